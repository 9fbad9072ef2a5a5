import { resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { CommandResult, IBuildRunner, ITerminal, TerminalRunOptions } from '../ports/process-ports';
import { CancelledError } from '../wire/error-info';
import { PROCESS_SECRETS } from '../wire/redaction';
import { childEnvironment } from './child-environment';
import { HeadTailText } from './output-cap';
import { containChildPath, ProgramSearch, programNotFoundMessage, programSearchFor, resolveProgram } from './program-resolver';
import { SandboxSettings } from './sandbox';
import { startCommand } from './sandboxed-process';

export interface NodeTerminalOptions {
    /** Folders whose binaries are never started (the workspace); each run's own roots and cwd are added. */
    workspaceRoots?: readonly string[];
    /** Known secret values (keys read from the SecretsStore, the MCP token): never passed to a child. Default: every key this process resolved. */
    secrets?: () => readonly string[];
    /** The environment to scrub; the backend's own by default. */
    env?: Readonly<Record<string, string | undefined>>;
    /** The OS sandbox (bubblewrap where it starts, by default) and its network. */
    sandbox?: SandboxSettings;
}

/**
 * Node's child_process, never through a shell, contained: a scrubbed environment, the
 * program resolved to an absolute path outside the workspace, the whole tree ended on
 * timeout or cancel, and an OS sandbox around it where one starts (the workspace roots writable).
 */
export class NodeTerminal implements ITerminal {
    constructor(private readonly settings: NodeTerminalOptions = {}) { }

    async run(argv: readonly string[], options: TerminalRunOptions): Promise<CommandResult> {
        if (options.signal?.aborted) {
            throw new CancelledError();
        }
        const platform = process.platform;
        const source = this.settings.env ?? process.env;
        const env = childEnvironment(source, { secrets: this.settings.secrets?.() ?? PROCESS_SECRETS.list(), platform });
        const roots = [...(this.settings.workspaceRoots ?? []), ...(options.workspaceRoots ?? [])];
        const search = programSearchFor(env, [...roots, options.cwd], platform);
        const program = await this.programPath(argv[0], options.cwd, search);
        if (!program) {
            return { exitCode: null, output: argv[0] ? programNotFoundMessage(argv[0]) : 'No command was given.', timedOut: false, omitted: 0 };
        }
        await containChildPath(env, search);
        const started = await startCommand(program, argv.slice(1), {
            cwd: options.cwd, env, writableRoots: roots.length ? roots : [options.cwd], sourceEnv: source, sandbox: this.settings.sandbox,
            timeoutMs: options.timeoutMs, signal: options.signal, stderr: true, platform
        });
        // Only the two ends are held while it runs, and what falls between is counted exactly.
        const output = HeadTailText.within(options.maxOutputChars);
        for (const stream of [started.child.stdout, started.child.stderr]) {
            // One decoder per stream: a character split across two chunks stays whole.
            const decoder = new StringDecoder('utf8');
            stream?.on('data', (chunk: Buffer) => output.append(decoder.write(chunk)));
            stream?.on('end', () => output.append(decoder.end()));
        }
        const exit = await started.exit;
        if (exit.cancelled) {
            throw new CancelledError();
        }
        if (exit.error) {
            return { exitCode: null, output: exit.error.code === 'ENOENT' ? programNotFoundMessage(argv[0]) : exit.error.message, timedOut: false, omitted: 0, sandbox: started.sandbox };
        }
        const capped = output.result();
        return { exitCode: exit.timedOut ? null : exit.exitCode, output: capped.text, timedOut: exit.timedOut, omitted: capped.omitted, sandbox: started.sandbox };
    }

    /** A bare name goes through the PATH lookup; a path (a build command the user configured) is taken as given. */
    private async programPath(program: string | undefined, cwd: string, search: ProgramSearch): Promise<string | undefined> {
        if (!program) {
            return undefined;
        }
        if (program.includes('/') || (search.platform === 'win32' && program.includes('\\'))) {
            return resolve(cwd, program);
        }
        return resolveProgram(program, search);
    }
}

/** The bench CLI's build: one configured command line, run in the workspace. */
export class CommandBuildRunner implements IBuildRunner {
    constructor(
        private readonly argv: readonly string[], private readonly cwd: string, private readonly terminal: ITerminal = new NodeTerminal(),
        private readonly workspaceRoots: readonly string[] = [cwd]
    ) { }

    build(options: { timeoutMs: number; maxOutputChars: number; signal?: AbortSignal }): Promise<CommandResult> {
        return this.terminal.run(this.argv, { cwd: this.cwd, workspaceRoots: this.workspaceRoots, ...options });
    }
}
