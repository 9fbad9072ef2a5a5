import { z } from 'zod';
import { CommandResult, IBuildRunner, ITerminal } from '../ports/process-ports';
import { AnyTool, defineTool } from './tool';
import { ToolInputError } from './workspace-files';
import { formatBuildProblem, parseBuildProblems } from '../context/build-problems';

export interface TerminalToolOptions {
    terminal: ITerminal;
    /** Programs the model may start (the first word of the command). */
    allowed: readonly string[];
    timeoutMs?: number;
    maxOutputChars?: number;
}

/** What a developer usually lets an assistant run, per OS; configurable. */
export function defaultAllowedCommands(platform: NodeJS.Platform = process.platform): string[] {
    const common = ['git', 'node', 'npm', 'npx', 'yarn', 'pnpm', 'python', 'python3', 'pytest', 'cargo', 'go', 'make', 'cmake', 'ctest', 'tsc', 'eslint'];
    return platform === 'win32'
        ? [...common, 'dir', 'type', 'where', 'findstr', 'msbuild', 'dotnet']
        : [...common, 'ls', 'cat', 'head', 'tail', 'wc', 'grep', 'rg', 'find', 'pwd', 'echo', 'diff', 'which'];
}

/** Shell syntax that would chain, redirect or expand: refused, since commands run without a shell anyway. */
const METACHARACTERS = /[;&|`$<>(){}\n\r*?!~]/;

/**
 * Splits a command line into words, honouring "double" and 'single' quotes. Shell syntax
 * outside quotes is refused: without a shell it would not do what the model expects.
 */
export function splitCommandLine(command: string): string[] {
    const words: string[] = [];
    let current = '';
    let quote: '"' | '\'' | undefined;
    let started = false;
    for (const char of command) {
        if (quote) {
            if (char === quote) {
                quote = undefined;
            } else {
                current += char;
            }
        } else if (char === '"' || char === '\'') {
            quote = char;
            started = true;
        } else if (METACHARACTERS.test(char)) {
            throw new ToolInputError(`The command contains ${JSON.stringify(char)} outside quotes: pipes, redirection, globs and variables are not supported. Run one program with plain arguments.`);
        } else if (/\s/.test(char)) {
            if (started || current) {
                words.push(current);
                current = '';
                started = false;
            }
        } else {
            current += char;
        }
    }
    if (quote) {
        throw new ToolInputError('The command has an unclosed quote.');
    }
    if (started || current) {
        words.push(current);
    }
    return words;
}

const TERMINAL_PARAMETERS = z.strictObject({
    command: z.string().min(1).describe('The command line, e.g. "git status" or "npm test -- --grep parser"'),
    cwd: z.string().optional().describe('Folder relative to the workspace root'),
    timeout_seconds: z.number().int().positive().max(1_800).optional()
});

export function createTerminalTool(options: TerminalToolOptions): AnyTool {
    return defineTool({
        name: 'execute_terminal_command',
        description: `Run one command in the workspace, without a shell (no pipes, redirection or variables). Allowed programs: ${options.allowed.join(', ')}.`,
        permission: 'execute',
        parameters: TERMINAL_PARAMETERS,
        run: async (args, context) => {
            const argv = splitCommandLine(args.command);
            const program = argv[0]?.split(/[\\/]/).pop() ?? '';
            if (!argv[0] || argv[0].includes('/') || argv[0].includes('\\') || !options.allowed.includes(program)) {
                throw new ToolInputError(`"${argv[0] ?? ''}" is not on the allowed list (${options.allowed.join(', ')}). The user can extend the list in the settings.`);
            }
            const cwd = context.files.resolve(args.cwd ?? '.');
            const result = await options.terminal.run(argv, {
                cwd: cwd.absolute, timeoutMs: (args.timeout_seconds ?? 0) * 1000 || options.timeoutMs || 60_000,
                maxOutputChars: options.maxOutputChars ?? 30_000, signal: context.signal, workspaceRoots: context.files.roots
            });
            const status = result.timedOut ? 'timed out and was stopped' : result.exitCode === null ? 'could not start' : `exited with code ${result.exitCode}`;
            return { content: `$ ${args.command}${sandboxLine(result)}\n${result.output}\n[${status}]`, isError: result.exitCode !== 0 };
        }
    });
}

/**
 * The header line naming where a command ran, so the model and the user see whether it was
 * sandboxed; empty for a terminal that does not say (an ACP client's own, which runs it itself).
 */
export function sandboxLine(result: CommandResult): string {
    return result.sandbox === undefined ? '' : `\n[sandbox: ${result.sandbox}]`;
}

/** Characters of build output build_project hands to the model (head and tail kept, the middle counted). */
export const BUILD_OUTPUT_CHARS = 10_000;
/** Problems build_project lists; the rest are counted. */
export const MAX_BUILD_PROBLEMS = 50;

const NO_PARAMETERS = z.strictObject({});

export function createBuildTool(runner: IBuildRunner, options: { timeoutMs?: number; maxOutputChars?: number } = {}): AnyTool {
    return defineTool({
        name: 'build_project',
        description: 'Build the project with its configured build and report the result with the problems found.',
        permission: 'execute',
        parameters: NO_PARAMETERS,
        run: async (_args, context) => {
            const result = await runner.build({ timeoutMs: options.timeoutMs ?? 600_000, maxOutputChars: options.maxOutputChars ?? BUILD_OUTPUT_CHARS, signal: context.signal });
            const problems = parseBuildProblems(result.output);
            const summary = result.timedOut ? 'The build timed out.' : result.exitCode === null ? 'The build could not start.' : result.exitCode === 0 ? 'The build succeeded.' : `The build failed (exit code ${result.exitCode}).`;
            const unlisted = problems.length - MAX_BUILD_PROBLEMS;
            const list = problems.length
                ? `\nProblems (${problems.filter(p => p.severity === 'error').length} errors, ${problems.filter(p => p.severity === 'warning').length} warnings):\n`
                + problems.slice(0, MAX_BUILD_PROBLEMS).map(formatBuildProblem).join('\n')
                + (unlisted > 0 ? `\n[… ${unlisted} more problems not shown; fix these and build again]` : '') : '';
            return { content: `${summary}${sandboxLine(result)}${list}\nOutput:\n${result.output}`, isError: result.exitCode !== 0 };
        }
    });
}
