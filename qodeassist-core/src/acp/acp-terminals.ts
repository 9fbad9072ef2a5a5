import { RequestError } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { childEnvironment, environmentValue } from '../tools/child-environment';
import { ContainedProcess, killProcessTree } from '../tools/contained-process';
import { containChildPath, locateProgram, programNotFoundMessage, programSearchFor } from '../tools/program-resolver';
import { SandboxSettings } from '../tools/sandbox';
import { startCommand } from '../tools/sandboxed-process';
import { ToolInputError, WorkspaceFiles } from '../tools/workspace-files';
import { untilAborted } from '../wire/error-info';
import { PROCESS_SECRETS } from '../wire/redaction';
import { ByteTail } from './byte-tail';

const NOT_ALLOWED = -32602;
const NOT_FOUND = -32002;

export interface TerminalRequest {
    command: string;
    args?: readonly string[];
    env?: ReadonlyArray<{ name: string; value: string }>;
    cwd?: string | null;
    outputByteLimit?: number | null;
}

export interface TerminalExitStatus {
    exitCode: number | null;
    signal: string | null;
}

export interface TerminalOutput {
    output: string;
    truncated: boolean;
    exitStatus?: TerminalExitStatus;
}

export interface AcpTerminalsOptions {
    files: WorkspaceFiles;
    /** The environment scrubbed for each command; the backend's own by default. */
    env?: Readonly<Record<string, string | undefined>>;
    /** Key values that never reach a command; every key this process resolved by default. */
    secrets?: () => readonly string[];
    maxTerminals: number;
    maxOutputBytes: number;
    /** Seconds a command may run before its process tree is ended. */
    maxSeconds: number;
    platform?: NodeJS.Platform;
    /** The OS sandbox commands run in (bubblewrap where it starts, by default). */
    sandbox?: SandboxSettings;
}

interface Terminal {
    id: string;
    sessionId: string;
    process: ContainedProcess;
    output: ByteTail;
    stop: AbortController;
    status?: TerminalExitStatus;
    done: Promise<TerminalExitStatus>;
}

/** Shell syntax that only a shell understands; a command line without arguments that has any runs through one. */
const SHELL_SYNTAX = /[\s;&|`$<>(){}*?!~"'\\]/;

/**
 * `terminal/*` for an external agent, on the tools' process containment: a scrubbed environment
 * (the agent's own variables pass the same secret checks), the program found outside the
 * workspace, the working folder inside it, each command in bubblewrap where it starts (its own PID
 * namespace, only the workspace writable, key folders hidden) and in its own process group
 * otherwise, so kill, release, cancel and the time limit end its whole tree, and only the tail of
 * its output kept.
 *
 * Agents send either a program with arguments or one command line without arguments (Zed runs
 * those through a shell, and agents rely on it): such a line runs through `sh -c` (`cmd /c` on
 * Windows), the shell itself found outside the workspace. The user approved the call through the
 * agent's permission prompt; the containment holds either way.
 */
export class AcpTerminals {
    private readonly terminals = new Map<string, Terminal>();

    constructor(private readonly options: AcpTerminalsOptions) { }

    async create(sessionId: string, request: TerminalRequest): Promise<string> {
        if (this.terminals.size >= this.options.maxTerminals) {
            throw new RequestError(NOT_ALLOWED, `There are already ${this.options.maxTerminals} terminals open, the most an agent may hold. Release the ones you no longer need (terminal/release).`);
        }
        const platform = this.options.platform ?? process.platform;
        const roots = this.options.files.roots;
        const cwd = this.workingFolder(request.cwd);
        const agentVariables = (request.env ?? []).filter(variable => variable.name.toUpperCase() !== 'PATH');
        const backend = this.options.env ?? process.env;
        const source = { ...backend, ...Object.fromEntries(agentVariables.map(variable => [variable.name, variable.value])) };
        const env = childEnvironment(source, { secrets: this.options.secrets?.() ?? PROCESS_SECRETS.list(), allow: agentVariables.map(variable => variable.name), platform });
        const search = programSearchFor(env, [...roots, cwd], platform);
        const [program, args] = await this.argv(request, env, platform);
        const resolved = await this.programPath(program, search, [...roots, cwd], platform);
        await containChildPath(env, search);
        const stop = new AbortController();
        const started = await startCommand(resolved, args, {
            cwd, env, writableRoots: roots, sourceEnv: backend, sandbox: this.options.sandbox, stderr: true, signal: stop.signal, timeoutMs: this.options.maxSeconds * 1000, platform
        });
        const limit = Math.min(this.options.maxOutputBytes, request.outputByteLimit && request.outputByteLimit > 0 ? request.outputByteLimit : Infinity);
        const output = new ByteTail(limit);
        started.child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
        started.child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
        let signal: string | null = null;
        started.child.once('exit', (_code, exitSignal) => { signal = exitSignal; });
        const id = `term-${randomUUID()}`;
        const terminal: Terminal = {
            id, sessionId, process: started, output, stop,
            done: started.exit.then(exit => {
                const status: TerminalExitStatus = exit.error
                    ? { exitCode: null, signal: null }
                    : { exitCode: exit.cancelled || exit.timedOut ? null : exit.exitCode, signal: signal ?? (exit.cancelled || exit.timedOut ? 'SIGKILL' : null) };
                if (exit.error) {
                    output.push(Buffer.from(exit.error.message));
                }
                terminal.status = status;
                return status;
            })
        };
        this.terminals.set(id, terminal);
        return id;
    }

    output(sessionId: string, id: string): TerminalOutput {
        const terminal = this.find(sessionId, id);
        return { output: terminal.output.text(), truncated: terminal.output.truncated, ...(terminal.status ? { exitStatus: terminal.status } : {}) };
    }

    waitForExit(sessionId: string, id: string, signal?: AbortSignal): Promise<TerminalExitStatus> {
        return untilAborted(this.find(sessionId, id).done, signal);
    }

    /** Ends the command's whole tree; the terminal stays readable until released. */
    async kill(sessionId: string, id: string): Promise<void> {
        const terminal = this.find(sessionId, id);
        terminal.stop.abort();
        await terminal.done;
    }

    async release(sessionId: string, id: string): Promise<void> {
        const terminal = this.find(sessionId, id);
        this.terminals.delete(id);
        terminal.stop.abort();
        await terminal.done;
    }

    /** Ends every command a session still runs (its turn was cancelled); the terminals stay readable. */
    killSession(sessionId: string): void {
        for (const terminal of this.terminals.values()) {
            if (terminal.sessionId === sessionId && !terminal.status) {
                terminal.stop.abort();
            }
        }
    }

    /** Ends every command and forgets every terminal. */
    async dispose(): Promise<void> {
        const all = [...this.terminals.values()];
        this.terminals.clear();
        for (const terminal of all) {
            killProcessTree(terminal.process.child, this.options.platform);
            terminal.stop.abort();
        }
        await Promise.all(all.map(terminal => terminal.done));
    }

    private find(sessionId: string, id: string): Terminal {
        const terminal = this.terminals.get(id);
        if (!terminal || terminal.sessionId !== sessionId) {
            throw new RequestError(NOT_FOUND, `There is no terminal "${id}" in this session (it was released, or never created).`);
        }
        return terminal;
    }

    private workingFolder(cwd: string | null | undefined): string {
        try {
            const folder = this.options.files.resolve(cwd ?? this.options.files.roots[0]);
            return this.options.files.real(folder).absolute;
        } catch (error) {
            throw new RequestError(NOT_ALLOWED, error instanceof ToolInputError ? error.message : String(error));
        }
    }

    /** The program and its arguments: as given, or a lone command line handed to the platform's shell. */
    private async argv(request: TerminalRequest, env: Record<string, string>, platform: NodeJS.Platform): Promise<[string, string[]]> {
        const args = [...request.args ?? []];
        if (args.length > 0 || !SHELL_SYNTAX.test(request.command.trim())) {
            return [request.command.trim(), args];
        }
        if (platform === 'win32') {
            return [environmentValue(env, 'ComSpec', platform) ?? 'cmd.exe', ['/d', '/s', '/c', request.command]];
        }
        return ['sh', ['-c', request.command]];
    }

    /** A bare name on the trusted PATH, or an absolute path whose real place is outside the workspace. */
    private async programPath(program: string, search: ReturnType<typeof programSearchFor>, roots: readonly string[], platform: NodeJS.Platform): Promise<string> {
        if (!program) {
            throw new RequestError(NOT_ALLOWED, 'The command is empty.');
        }
        const bare = !program.includes('/') && !(platform === 'win32' && program.includes('\\'));
        const { found, real, realInWorkspace } = await locateProgram(program, bare, search, roots, platform);
        if (!found) {
            throw new RequestError(NOT_ALLOWED, bare ? programNotFoundMessage(program)
                : `"${program}" is a relative path; commands run only programs found outside the workspace (a name on PATH, or an absolute path).`);
        }
        if (!real || realInWorkspace) {
            throw new RequestError(NOT_ALLOWED, `"${program}" ${real ? 'is inside the workspace' : 'does not exist'}; commands run only programs installed outside the workspace.`);
        }
        return found;
    }
}
