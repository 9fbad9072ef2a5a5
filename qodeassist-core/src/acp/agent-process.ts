import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { ChildProcess, spawn } from 'node:child_process';
import { childEnvironment } from '../tools/child-environment';
import { killProcessTree } from '../tools/contained-process';
import { containChildPath, locateProgram, programSearchFor } from '../tools/program-resolver';
import { QodeAssistError } from '../wire/error-info';
import { readNdjsonLines } from '../wire/ndjson-reader';
import { PROCESS_SECRETS, redactSecrets } from '../wire/redaction';
import { AcpAgentDefinition, AcpLimits } from './acp-definition';
import { agentEnvironment } from './agent-environment';
import { ByteTail } from './byte-tail';
import { AcpAgentError, agentNotFoundError, AgentExit, malformedMessageError, messageTooLargeError } from './acp-errors';

/** After stdin closes, how long an agent may take to exit by itself before its process tree is killed. */
const STOP_GRACE_MS = 1_000;
/** After the agent exits, how long a descendant may hold its output pipes before the exit is reported anyway. */
const EXIT_PIPE_GRACE_MS = 300;
/** How much of a malformed line the error quotes. */
const EXCERPT_CHARS = 120;

export interface AgentProcessOptions {
    /** The workspace: the agent's program must lie outside it, and it runs in the first root by default. */
    workspaceRoots: readonly string[];
    /** The environment scrubbed for the agent; the backend's own by default. It also says whether gateway mode is on (QODEASSIST_GATEWAY_URL). */
    env?: Readonly<Record<string, string | undefined>>;
    /** Key values that never reach the agent (unless the user named their variable); every key this process resolved by default. */
    secrets?: () => readonly string[];
    limits: AcpLimits;
    platform?: NodeJS.Platform;
}

/**
 * The program to start: a bare name on the trusted PATH, or an absolute path, judged by what it
 * really is — a program that lies in the workspace (also through a link) is refused.
 */
async function agentProgram(definition: AcpAgentDefinition, env: Record<string, string>, roots: readonly string[], platform: NodeJS.Platform): Promise<string> {
    const command = definition.command;
    const bare = !command.includes('/') && !command.includes('\\');
    const { found, real, realInWorkspace } = await locateProgram(command, bare, programSearchFor(env, roots, platform), roots, platform);
    if (!found || !real) {
        throw agentNotFoundError(definition);
    }
    if (realInWorkspace) {
        throw agentNotFoundError(definition, real === found ? found : `${found} (a link to ${real})`);
    }
    return found;
}

/**
 * Where the agent's program is, judged as a start would judge it (the scrubbed environment's PATH,
 * nothing inside the workspace); throws the same Config error a start would.
 */
export async function findAgentProgram(definition: AcpAgentDefinition, workspaceRoots: readonly string[], source: Readonly<Record<string, string | undefined>> = process.env, platform: NodeJS.Platform = process.platform): Promise<string> {
    const env = childEnvironment(source, { secrets: [], platform });
    return agentProgram(definition, env, workspaceRoots, platform);
}

/**
 * One external agent running as a child process that speaks ACP on its standard input and
 * output: contained like the tools' processes (scrubbed environment plus the variables its
 * definition names, a program outside the workspace, its own process group so stopping ends
 * its whole tree). Its standard output becomes the SDK's message stream, bounded per message;
 * a line that is not JSON-RPC stops it with a typed error.
 */
export class AgentProcess {
    readonly stream: Stream;
    /** Settles once the agent has exited (or could not start). */
    readonly exited: Promise<AgentExit>;
    private readonly stderr: ByteTail;
    private failure: AcpAgentError | undefined;
    private readonly failureListeners = new Set<(error: AcpAgentError) => void>();
    private readonly messageListeners = new Set<() => void>();
    private exitInfo: AgentExit | undefined;

    private constructor(readonly definition: AcpAgentDefinition, readonly child: ChildProcess, private readonly options: AgentProcessOptions) {
        this.stderr = new ByteTail(options.limits.stderrTailBytes);
        child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
        // A broken pipe (the agent died) surfaces through `exited`, not as an unhandled error.
        child.stdin?.on('error', () => undefined);
        this.exited = new Promise(resolve => {
            let timer: NodeJS.Timeout | undefined;
            const finish = (exit: AgentExit) => {
                if (!this.exitInfo) {
                    clearTimeout(timer);
                    this.exitInfo = exit;
                    process.removeListener('exit', this.killAtExit);
                    resolve(exit);
                }
            };
            child.once('error', error => finish({ code: null, signal: null, error }));
            child.once('exit', (code, signal) => {
                // Let the last stderr lines arrive, unless a descendant keeps the pipes open.
                timer = setTimeout(() => finish({ code, signal }), EXIT_PIPE_GRACE_MS);
            });
            child.once('close', (code, signal) => finish({ code, signal }));
        });
        process.on('exit', this.killAtExit);
        this.stream = { readable: this.readable(), writable: this.writable() };
    }

    /** Resolves the program and starts it; a missing or workspace program is a Config error naming the agent. */
    static async start(definition: AcpAgentDefinition, options: AgentProcessOptions): Promise<AgentProcess> {
        const platform = options.platform ?? process.platform;
        const source = options.env ?? process.env;
        // In gateway mode an agent that cannot be pointed at the gateway is refused here, before anything runs.
        const env = await agentEnvironment(definition, source, { secrets: options.secrets?.() ?? PROCESS_SECRETS.list(), platform });
        const program = await agentProgram(definition, env, options.workspaceRoots, platform);
        await containChildPath(env, programSearchFor(env, options.workspaceRoots, platform));
        const child = spawn(program, [...definition.args ?? []], {
            cwd: definition.cwd ?? options.workspaceRoots[0], env, shell: false, windowsHide: true,
            detached: platform !== 'win32', stdio: ['pipe', 'pipe', 'pipe']
        });
        return new AgentProcess(definition, child, options);
    }

    /** The last of what the agent wrote to standard error, secrets removed. */
    stderrTail(): string {
        return redactSecrets(this.stderr.text(), this.options.secrets?.() ?? PROCESS_SECRETS.list());
    }

    /** Why the stream was stopped (a malformed or oversized message), once it was. */
    get failed(): AcpAgentError | undefined {
        return this.failure;
    }

    /** Set once the agent has exited. */
    get exit(): AgentExit | undefined {
        return this.exitInfo;
    }

    onFailure(listener: (error: AcpAgentError) => void): () => void {
        this.failureListeners.add(listener);
        return () => this.failureListeners.delete(listener);
    }

    /** Called for every message the agent sends (its liveness, for the idle timer). */
    onMessage(listener: () => void): () => void {
        this.messageListeners.add(listener);
        return () => this.messageListeners.delete(listener);
    }

    /** Closes its input, waits a moment for it to exit, then ends its whole process tree. */
    async stop(): Promise<void> {
        if (!this.exitInfo) {
            this.child.stdin?.end();
            await Promise.race([this.exited, new Promise(done => setTimeout(done, STOP_GRACE_MS).unref())]);
        }
        // Also when it exited: what it started (npx's agent, a language server) may still run in its group.
        killProcessTree(this.child, this.options.platform);
        await this.exited;
    }

    /** A backend that ends without stopping its agents still takes them with it. */
    private readonly killAtExit = () => killProcessTree(this.child, this.options.platform);

    private fail(error: AcpAgentError): void {
        if (this.failure) {
            return;
        }
        this.failure = error;
        for (const listener of this.failureListeners) {
            listener(error);
        }
        killProcessTree(this.child, this.options.platform);
    }

    private readable(): ReadableStream<AnyMessage> {
        const stdout = this.child.stdout!;
        const limits = this.options.limits;
        return new ReadableStream<AnyMessage>({
            start: controller => {
                void (async () => {
                    try {
                        for await (const lines of readNdjsonLines(stdout, limits.maxMessageBytes)) {
                            for (const line of lines) {
                                const message = parseMessage(line);
                                if (!message) {
                                    this.fail(malformedMessageError(this.definition, excerpt(line), this.stderrTail()));
                                    controller.error(this.failure);
                                    return;
                                }
                                this.messageListeners.forEach(listener => listener());
                                controller.enqueue(message);
                            }
                        }
                        controller.close();
                    } catch (error) {
                        // The reader raises the message-size limit as a QodeAssistError; anything else is the pipe going away.
                        if (error instanceof QodeAssistError) {
                            this.fail(messageTooLargeError(this.definition, limits.maxMessageBytes, this.stderrTail()));
                        }
                        controller.error(this.failure ?? new Error('the agent\'s output closed'));
                    }
                })();
            }
        });
    }

    private writable(): WritableStream<AnyMessage> {
        const stdin = this.child.stdin!;
        return new WritableStream<AnyMessage>({
            write: message => new Promise<void>((resolve, reject) => {
                if (stdin.destroyed || !stdin.writable) {
                    reject(new Error(`ACP agent "${this.definition.name}" is not running.`));
                    return;
                }
                stdin.write(JSON.stringify(message) + '\n', error => error ? reject(error) : resolve());
            }),
            close: () => {
                stdin.end();
            }
        });
    }
}

/** A JSON-RPC 2.0 request, notification or response; anything else is undefined. */
function parseMessage(line: string): AnyMessage | undefined {
    let value: unknown;
    try {
        value = JSON.parse(line);
    } catch {
        return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return undefined;
    }
    const record = value as Record<string, unknown>;
    if (record.jsonrpc !== '2.0' || !('method' in record || 'id' in record)) {
        return undefined;
    }
    return record as AnyMessage;
}

function excerpt(line: string): string {
    const shown = line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line;
    return JSON.stringify(redactSecrets(shown));
}
