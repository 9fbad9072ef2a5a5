import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ContentLoader, ContextAssembler, HistoryMessage, TokenEstimator } from '@qodeassist/core';
import { getEncoding } from 'js-tiktoken';

const ROOT = join(__dirname, '..', '..', '..');

/** A chat of `count` messages: user questions, answers, and every third exchange a tool round with a sizeable result. */
export function syntheticHistory(count: number): HistoryMessage[] {
    const history: HistoryMessage[] = [];
    for (let i = 0; history.length < count; i++) {
        history.push({ role: 'user', blocks: [{ type: 'text', text: `Question ${i}: why does build step ${i} fail on the CI machine?` }] });
        if (i % 3 === 0 && history.length + 3 <= count) {
            history.push({ role: 'assistant', blocks: [{ type: 'thinking', text: 'Read the log.', signature: 'sig' }, { type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `logs/build-${i}.txt` } }] });
            history.push({ role: 'user', blocks: [{ type: 'tool_result', toolUseId: `t${i}`, name: 'read_file', content: `line\n`.repeat(200), isError: false }] });
        }
        history.push({ role: 'assistant', blocks: [{ type: 'text', text: `Step ${i} fails because the cache key changed; pin it in ci.yml.`.repeat(3) }] });
    }
    return history.slice(0, count);
}

export interface AssembleRow {
    messages: number;
    medianMs: number;
}

/** assemble() time per history size, median of several runs after a warm-up. */
export async function measureAssemble(sizes = [10, 100, 1_000, 10_000]): Promise<AssembleRow[]> {
    const assembler = new ContextAssembler(new TokenEstimator(), new ContentLoader());
    const rows: AssembleRow[] = [];
    for (const size of sizes) {
        const history = syntheticHistory(size);
        const input = {
            layers: [{ name: 'agent.system', text: 'You are QodeAssist.' }], history, pinned: [], tools: [],
            budget: { contextWindow: 100_000_000, maxOutputTokens: 8_192 }, estimatorKey: 'bench'
        };
        const runs = size >= 10_000 ? 7 : 21;
        const times: number[] = [];
        await assembler.assemble(input);
        for (let run = 0; run < runs; run++) {
            const start = performance.now();
            await assembler.assemble(input);
            times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        rows.push({ messages: size, medianMs: times[Math.floor(times.length / 2)] });
    }
    return rows;
}

export function assembleTable(rows: AssembleRow[]): string {
    const lines = ['| messages | assemble() median | × previous size | per message |', '|---|---|---|---|'];
    rows.forEach((row, index) => {
        const growth = index === 0 ? '—' : `${(row.medianMs / rows[index - 1].medianMs).toFixed(1)}× for ${(row.messages / rows[index - 1].messages).toFixed(0)}× messages`;
        lines.push(`| ${row.messages.toLocaleString('en')} | ${row.medianMs.toFixed(3)} ms | ${growth} | ${(1000 * row.medianMs / row.messages).toFixed(2)} µs |`);
    });
    return lines.join('\n');
}

function corpusFiles(dir: string, extensions: readonly string[], into: string[] = []): string[] {
    for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (entry === 'node_modules' || entry === 'lib' || entry.startsWith('.')) {
            continue;
        }
        if (statSync(path).isDirectory()) {
            corpusFiles(path, extensions, into);
        } else if (extensions.includes(extname(entry))) {
            into.push(path);
        }
    }
    return into;
}

export interface EstimatorRow {
    kind: string;
    documents: number;
    defaultError: number;
    calibratedError: number;
}

/**
 * The TokenEstimator against a real tokenizer (o200k_base via js-tiktoken) on this repository's own
 * code and prose: mean absolute error per document, with the default ratio and after calibrating on
 * the other half of the corpus (as Usage events would).
 */
export function measureEstimator(): EstimatorRow[] {
    const encoding = getEncoding('o200k_base');
    const kinds: Array<[string, string[]]> = [
        ['code (TypeScript)', corpusFiles(join(ROOT, 'qodeassist-core', 'src'), ['.ts']).concat(corpusFiles(join(ROOT, 'qodeassist-theia', 'src'), ['.ts', '.tsx']))],
        ['prose (Markdown, prompts)', [join(ROOT, 'README.md'), join(ROOT, 'BENCHMARKS.md'), ...corpusFiles(join(ROOT, 'agents', 'roles'), ['.json'])]],
        ['templates (TOML, nunjucks)', corpusFiles(join(ROOT, 'agents'), ['.toml', '.njk'])]
    ];
    const rows: EstimatorRow[] = [];
    const all: Array<{ text: string; tokens: number }> = [];
    for (const [kind, files] of kinds) {
        const documents = files.map(file => readFileSync(file, 'utf8')).filter(text => text.length >= 200).map(text => ({ text, tokens: encoding.encode(text, [], []).length }));
        all.push(...documents);
        rows.push({ kind, documents: documents.length, ...errors(documents) });
    }
    rows.push({ kind: 'all', documents: all.length, ...errors(all) });
    return rows;
}

function errors(documents: Array<{ text: string; tokens: number }>): { defaultError: number; calibratedError: number } {
    const meanError = (estimator: TokenEstimator, set: typeof documents) =>
        set.reduce((sum, doc) => sum + Math.abs(estimator.estimateText(doc.text, 'k') - doc.tokens) / doc.tokens, 0) / Math.max(1, set.length);
    const train = documents.filter((_, index) => index % 2 === 0);
    const test = documents.filter((_, index) => index % 2 === 1);
    const calibrated = new TokenEstimator();
    for (const doc of train) {
        calibrated.calibrate('k', { chars: doc.text.length, images: 0 }, doc.tokens);
    }
    return { defaultError: meanError(new TokenEstimator(), test), calibratedError: meanError(calibrated, test) };
}

export function estimatorTable(rows: EstimatorRow[]): string {
    return ['| corpus | documents | error, default ratio | error, calibrated |', '|---|---|---|---|',
        ...rows.map(row => `| ${row.kind} | ${row.documents} | ${(100 * row.defaultError).toFixed(1)} % | ${(100 * row.calibratedError).toFixed(1)} % |`)].join('\n');
}
