import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CancelledError } from '../wire/error-info';
import { ToolContext } from './tool';

/** search_project skips files larger than this, in both engines. */
export const MAX_SEARCH_FILE_BYTES = 2_000_000;

let ripgrepAvailable: Promise<boolean> | undefined;

/** Whether `rg` is on PATH (asked once per process). */
export function hasRipgrep(): Promise<boolean> {
    ripgrepAvailable ??= new Promise(resolve => {
        const probe = spawn('rg', ['--version'], { stdio: 'ignore' });
        probe.on('error', () => resolve(false));
        probe.on('close', code => resolve(code === 0));
    });
    return ripgrepAvailable;
}

interface RipgrepEvent {
    type: 'match' | 'context' | string;
    data: { path?: { text?: string }; lines?: { text?: string }; line_number?: number };
}

/**
 * search_project through ripgrep when it is installed: same arguments, same output format,
 * same ignore rules (our .qodeassistignore is passed to rg and every path is checked again).
 * Returns undefined to fall back to the JS search (no rg, or rg failed).
 */
export async function searchWithRipgrep(
    args: { query: string; regex?: boolean; case_sensitive?: boolean; whole_word?: boolean; glob?: string },
    context: ToolContext, limit: number, around: number, matchesGlob: ((path: string) => boolean) | undefined
): Promise<{ lines: string[]; matches: number } | undefined> {
    if (process.env.QODEASSIST_SEARCH_ENGINE === 'js' || !(await hasRipgrep())) {
        return undefined;
    }
    const lines: string[] = [];
    let matches = 0;
    for (const root of context.files.roots) {
        // --sort path: the same query gives the same output every time (rg is otherwise parallel and unordered).
        const rgArgs = ['--json', '--sort', 'path', '--hidden', '--glob', '!.git', '--glob', '!node_modules', '-C', String(around), '--max-filesize', String(MAX_SEARCH_FILE_BYTES),
            args.case_sensitive ? '--case-sensitive' : '--ignore-case', ...(args.regex ? [] : ['--fixed-strings']), ...(args.whole_word ? ['--word-regexp'] : []),
            ...(args.glob ? ['--glob', args.glob] : []),
            ...(existsSync(join(root, '.qodeassistignore')) ? ['--ignore-file', join(root, '.qodeassistignore')] : []), '--', args.query, '.'];
        const ok = await new Promise<boolean>(resolve => {
            const child = spawn('rg', rgArgs, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
            const onAbort = () => child.kill('SIGKILL');
            context.signal?.addEventListener('abort', onAbort, { once: true });
            const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
            const readerClosed = new Promise<void>(done => reader.once('close', () => done()));
            reader.on('line', line => {
                let event: RipgrepEvent;
                try {
                    event = JSON.parse(line) as RipgrepEvent;
                } catch {
                    return;
                }
                if (event.type !== 'match' && event.type !== 'context') {
                    return;
                }
                const relativePath = (event.data.path?.text ?? '').replace(/^\.\//, '');
                const path = { absolute: join(root, relativePath), root, relative: relativePath };
                if (context.files.isIgnored(path) || (matchesGlob && !matchesGlob(relativePath))) {
                    return;
                }
                const text = (event.data.lines?.text ?? '').replace(/\r?\n$/, '');
                if (event.type === 'match') {
                    matches++;
                    if (matches <= limit) {
                        lines.push(`${relativePath}:${event.data.line_number}: ${text}`);
                    }
                } else if (matches <= limit) {
                    lines.push(`${relativePath}-${event.data.line_number}- ${text}`);
                }
            });
            child.on('error', () => resolve(false));
            child.on('close', code => {
                context.signal?.removeEventListener('abort', onAbort);
                // 0: matches, 1: none; anything else (a bad regex for rg, say) falls back.
                void readerClosed.then(() => resolve(code === 0 || code === 1));
            });
        });
        if (context.signal?.aborted) {
            throw new CancelledError();
        }
        if (!ok) {
            return undefined;
        }
    }
    return { lines: trimTrailingContext(lines), matches };
}

/** Context lines printed after the last shown match belong to matches not shown: drop them. */
function trimTrailingContext(lines: string[]): string[] {
    let end = lines.length;
    while (end > 0 && !/^[^:]*:\d+: /.test(lines[end - 1]) && /-\d+- /.test(lines[end - 1])) {
        end--;
    }
    return lines.slice(0, end);
}
