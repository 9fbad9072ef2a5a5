import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CancelledError } from '../wire/error-info';
import { PROCESS_SECRETS } from '../wire/redaction';
import { childEnvironment } from './child-environment';
import { startContained } from './contained-process';
import { containChildPath, programSearchFor, resolveProgram } from './program-resolver';
import { contextLine, MatchGroup, matchLine, MAX_SEARCH_LINE_CHARS } from './search-results';
import { ToolContext } from './tool';

/** search_project skips files larger than this, in both engines. */
export const MAX_SEARCH_FILE_BYTES = 2_000_000;

/** `rg --version` answers per resolved binary, asked once each. */
const probes = new Map<string, Promise<boolean>>();

/** How rg is started: the scrubbed environment (RIPGREP_CONFIG_PATH, which could add `--pre`, is not passed) and the lookup outside the workspace. */
async function ripgrepLaunch(workspaceRoots: readonly string[]): Promise<{ program: string; env: Record<string, string> } | undefined> {
    const env = childEnvironment(process.env, { secrets: PROCESS_SECRETS.list() });
    const search = programSearchFor(env, workspaceRoots);
    const program = await resolveProgram('rg', search);
    if (!program) {
        return undefined;
    }
    await containChildPath(env, search);
    return { program, env };
}

/** Whether an `rg` outside the given workspace roots answers `--version` (asked once per binary). */
export async function hasRipgrep(workspaceRoots: readonly string[] = []): Promise<boolean> {
    const launch = await ripgrepLaunch(workspaceRoots);
    return !!launch && answersVersion(launch);
}

function answersVersion(launch: { program: string; env: Record<string, string> }): Promise<boolean> {
    let probe = probes.get(launch.program);
    if (!probe) {
        const started = startContained(launch.program, ['--version'], { cwd: process.cwd(), env: launch.env, timeoutMs: 10_000 });
        probe = started.exit.then(exit => !exit.error && !exit.timedOut && exit.exitCode === 0);
        probes.set(launch.program, probe);
    }
    return probe;
}

interface RipgrepEvent {
    type: 'match' | 'context' | string;
    data: { path?: { text?: string }; lines?: { text?: string }; line_number?: number; submatches?: Array<{ start?: number }> };
}

/** The character index of a UTF-8 byte offset rg reports. */
function characterAt(text: string, byteOffset: number): number {
    return Buffer.from(text, 'utf8').subarray(0, byteOffset).toString('utf8').length;
}

/**
 * search_project through ripgrep when it is installed: same arguments, same output format,
 * same ignore rules (our .qodeassistignore is passed to rg and every path is checked again).
 * Returns undefined to fall back to the JS search (no rg, or rg failed).
 */
export async function searchWithRipgrep(
    args: { query: string; regex?: boolean; case_sensitive?: boolean; whole_word?: boolean; glob?: string },
    context: ToolContext, limit: number, around: number, matchesGlob: ((path: string) => boolean) | undefined
): Promise<{ groups: MatchGroup[]; matches: number } | undefined> {
    if (process.env.QODEASSIST_SEARCH_ENGINE === 'js') {
        return undefined;
    }
    const launch = await ripgrepLaunch(context.files.roots);
    if (!launch || !(await answersVersion(launch))) {
        return undefined;
    }
    const groups: MatchGroup[] = [];
    let matches = 0;
    for (const root of context.files.roots) {
        // --sort path: the same query gives the same output every time (rg is otherwise parallel and unordered).
        const rgArgs = ['--json', '--sort', 'path', '--hidden', '--glob', '!.git', '--glob', '!node_modules', '-C', String(around), '--max-filesize', String(MAX_SEARCH_FILE_BYTES),
            // Only the ignore files WorkspaceFiles reads: .gitignore at every level, in a git repository or not (when enabled); no .ignore, .rgignore, git excludes or parents' files.
            '--no-ignore-dot', '--no-ignore-exclude', '--no-ignore-global', '--no-ignore-parent', ...(context.files.usesGitignore ? ['--no-require-git'] : ['--no-ignore-vcs']),
            args.case_sensitive ? '--case-sensitive' : '--ignore-case', ...(args.regex ? [] : ['--fixed-strings']), ...(args.whole_word ? ['--word-regexp'] : []),
            ...(args.glob ? ['--glob', args.glob] : []),
            ...(existsSync(join(root, '.qodeassistignore')) ? ['--ignore-file', join(root, '.qodeassistignore')] : []), '--', args.query, '.'];
        const ok = await new Promise<boolean>(resolve => {
            const { child, exit } = startContained(launch.program, rgArgs, { cwd: root, env: launch.env, signal: context.signal });
            const reader = createInterface({ input: child.stdout!, crlfDelay: Infinity });
            // Context within `around` lines after a match is that match's; any other context leads up to the next match.
            let lastMatch: { path: string; line: number; shown: boolean } | undefined;
            let leading: string[] = [];
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
                const lineNumber = event.data.line_number ?? 0;
                if (event.type === 'match') {
                    matches++;
                    const shown = matches <= limit;
                    if (shown) {
                        const at = text.length > MAX_SEARCH_LINE_CHARS ? characterAt(text, event.data.submatches?.[0]?.start ?? 0) : 0;
                        groups.push({ lines: [...leading, matchLine(relativePath, lineNumber, text, at)] });
                    }
                    leading = [];
                    lastMatch = { path: relativePath, line: lineNumber, shown };
                } else if (lastMatch?.path === relativePath && lineNumber > lastMatch.line && lineNumber - lastMatch.line <= around) {
                    if (lastMatch.shown) {
                        groups[groups.length - 1].lines.push(contextLine(relativePath, lineNumber, text));
                    }
                } else if (matches < limit) {
                    leading.push(contextLine(relativePath, lineNumber, text));
                }
            });
            void exit.then(({ exitCode, error, cancelled }) => {
                reader.close();
                // 0: matches, 1: none; anything else (a bad regex for rg, say) falls back.
                resolve(!error && !cancelled && (exitCode === 0 || exitCode === 1));
            });
        });
        if (context.signal?.aborted) {
            throw new CancelledError();
        }
        if (!ok) {
            return undefined;
        }
    }
    return { groups, matches };
}
