import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FILE_TOOLS, ToolContext, WorkspaceFiles } from '@qodeassist/core';

const TREE = join(__dirname, '..', '..', '..', 'node_modules', '@theia');
const QUERIES: Array<{ label: string; args: Record<string, unknown> }> = [
    { label: 'literal "TODO"', args: { query: 'TODO', case_sensitive: true } },
    { label: 'literal "injectable", any case', args: { query: 'injectable' } },
    { label: 'regex "import .* from"', args: { query: 'import .* from', regex: true, case_sensitive: true } },
    { label: 'whole word "Emitter", *.d.ts only', args: { query: 'Emitter', whole_word: true, case_sensitive: true, glob: '**/*.d.ts' } }
];

function rgCount(args: Record<string, unknown>): Promise<number> {
    const flags = ['--count', '--hidden', '--glob', '!.git', '--glob', '!node_modules', args.case_sensitive ? '--case-sensitive' : '--ignore-case',
        ...(args.regex ? [] : ['--fixed-strings']), ...(args.whole_word ? ['--word-regexp'] : []), ...(args.glob ? ['--glob', String(args.glob)] : []), '--', String(args.query), '.'];
    return new Promise((resolve, reject) => {
        const child = spawn('rg', flags, { cwd: TREE, stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', chunk => { out += chunk; });
        child.on('error', reject);
        child.on('close', () => resolve(out.split('\n').filter(Boolean).reduce((sum, line) => sum + Number(line.split(':').pop()), 0)));
    });
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
    const start = performance.now();
    const value = await run();
    return { ms: performance.now() - start, value };
}

export interface SearchRow {
    label: string;
    matches: number;
    rgMs: number;
    toolRgMs: number;
    toolJsMs: number;
}

/** search_project against ripgrep on the installed @theia packages, both of its engines, same queries. */
export async function measureSearch(): Promise<SearchRow[]> {
    const search = FILE_TOOLS.find(tool => tool.name === 'search_project')!;
    const context = { requestId: 'bench', chatId: 'bench', files: new WorkspaceFiles([TREE], { useGitignore: false }) } as ToolContext;
    const rows: SearchRow[] = [];
    for (const query of QUERIES) {
        const args = { ...query.args, max_results: 1_000, context_lines: 0 };
        await rgCount(query.args);
        const rg = await timed(() => rgCount(query.args));
        delete process.env.QODEASSIST_SEARCH_ENGINE;
        await search.run(args, context);
        const toolRg = await timed(() => search.run(args, context));
        process.env.QODEASSIST_SEARCH_ENGINE = 'js';
        const toolJs = await timed(() => search.run(args, context));
        delete process.env.QODEASSIST_SEARCH_ENGINE;
        const more = /\[(\d+) more matches/.exec(toolJs.value.content);
        const shown = toolJs.value.content.split('\n').filter(line => /^[^\s:]+:\d+: /.test(line)).length;
        rows.push({ label: query.label, matches: rg.value, rgMs: rg.ms, toolRgMs: toolRg.ms, toolJsMs: toolJs.ms });
        if (shown + Number(more?.[1] ?? 0) !== rg.value) {
            console.warn(`${query.label}: the JS engine counted ${shown + Number(more?.[1] ?? 0)} matches, rg ${rg.value}`);
        }
    }
    return rows;
}

export function searchTable(rows: SearchRow[]): string {
    return ['| query | matches (rg) | rg CLI | search_project (rg engine) | ratio | search_project (JS engine) | ratio |', '|---|---|---|---|---|---|---|',
        ...rows.map(row => `| ${row.label} | ${row.matches.toLocaleString('en')} | ${row.rgMs.toFixed(0)} ms | ${row.toolRgMs.toFixed(0)} ms | **${(row.toolRgMs / row.rgMs).toFixed(2)}×** | ${row.toolJsMs.toFixed(0)} ms | ${(row.toolJsMs / row.rgMs).toFixed(2)}× |`)
    ].join('\n');
}
