import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { originOf } from '../config/key-origins';
import { LoadedProvider } from '../config/configuration-source';
import { DEFAULT_START_TIMEOUT_SECONDS, ProviderLaunch } from '../config/schemas';
import { Logger } from '../ports/logger';
import { SessionAgent } from '../session/session';
import { childEnvironment } from '../tools/child-environment';
import { ContainedProcess, killProcessTree, startContained } from '../tools/contained-process';
import { containChildPath, locateProgram, programNotFoundMessage, ProgramSearch, programSearchFor } from '../tools/program-resolver';
import { CLIENT_API_INFO, endpointUrl } from '../wire/client-apis';
import { ErrorInfo, QodeAssistError, untilAborted } from '../wire/error-info';
import { PROCESS_SECRETS } from '../wire/redaction';
import { ResolvedAgent } from '../agents/configuration-loader';
import { launchRefusal } from '../agents/launch-policy';

/** What the launcher is doing for a provider, for the surfaces that show it (the log; a chat or status bar that subscribes). */
export interface LaunchStatus {
    provider: string;
    state: 'starting' | 'ready' | 'failed';
    /** The whole story: what runs, where it was expected, how long it may take, or why it failed. */
    message: string;
    /** A few words for a status bar: `starting Ollama…`, `Ollama is ready`, `Ollama did not start`. */
    summary: string;
}

export interface ProviderLauncherOptions {
    /** The environment the server's is scrubbed from; the backend's own by default. */
    env?: Readonly<Record<string, string | undefined>>;
    /** Key values that must never reach the server; default every key this process resolved. */
    secrets?: () => readonly string[];
    /** Where a relative `cwd` is resolved and where the server runs by default; the user's home. */
    home?: string;
    /** How often readiness is asked while a server starts. */
    pollMs?: number;
    platform?: NodeJS.Platform;
}

export interface EnsureRunningOptions {
    /** The request's: ends the wait, not the start (another request may be waiting for the same server). */
    signal?: AbortSignal;
    logger?: Logger;
    /** Folders whose binaries are never started: the workspace. */
    workspaceRoots?: readonly string[];
}

/** A provider's server could not be started or did not get ready: names the provider, the command and the key to change. */
export class ProviderLaunchError extends QodeAssistError {
    constructor(info: ErrorInfo, readonly provider: string, readonly command: string, readonly key: string | undefined) {
        super(info);
        this.name = 'ProviderLaunchError';
    }
}

interface Launched {
    provider: string;
    process: ContainedProcess;
    exited: boolean;
    /** The tail of what the server printed, for the error when it exits before it is ready. */
    output: string;
}

const PROBE_TIMEOUT_MS = 1_000;
const OUTPUT_TAIL = 2_000;

/**
 * Starts the local servers of providers with `[launch]` when a request finds their port
 * closed, waits until they answer, and stops at dispose only what it started. A server is
 * keyed by its origin, so providers that share one (ollama and ollama-openai) share a start.
 * Contained like the tools' processes: scrubbed environment, own process group, the program
 * found outside the workspace; never a launch section from a repository's provider file.
 */
export class ProviderLauncher {
    private readonly launched = new Map<string, Launched>();
    private readonly starting = new Map<string, Promise<void>>();
    private readonly listeners = new Set<(status: LaunchStatus) => void>();
    private readonly underWay = new Map<string, LaunchStatus>();
    private disposed = false;
    private hookedExit = false;
    /** A backend that ends without stopping its contributions still takes its servers with it. */
    private readonly killAtExit = () => {
        for (const server of this.launched.values()) {
            killProcessTree(server.process.child, this.platform);
        }
    };

    constructor(private readonly options: ProviderLauncherOptions = {}) { }

    private get platform(): NodeJS.Platform {
        return this.options.platform ?? process.platform;
    }

    onStatus(listener: (status: LaunchStatus) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    /** The providers whose servers this launcher started and that still run. */
    get running(): string[] {
        return [...this.launched.values()].filter(server => !server.exited).map(server => server.provider);
    }

    /**
     * Resolves once the provider's server answers: at once when it has no `[launch]`, may not
     * launch, or its port is open; otherwise after starting it and waiting for its readiness probe.
     */
    async ensureRunning(provider: LoadedProvider, options: EnsureRunningOptions = {}): Promise<void> {
        const launch = provider.instance.launch;
        if (!launch || launchRefusal(provider) !== undefined) {
            return;
        }
        const origin = new URL(provider.url).origin;
        if (this.launched.get(origin)?.exited === false) {
            return;
        }
        let starting = this.starting.get(origin);
        if (!starting) {
            starting = this.startIfClosed(provider, launch, origin, options).finally(() => {
                this.starting.delete(origin);
                this.underWay.delete(provider.instance.name);
            });
            this.starting.set(origin, starting);
        }
        return untilAborted(starting, options.signal);
    }

    /** Stops every server this launcher started (a server that was already running is not touched). */
    async dispose(): Promise<void> {
        this.disposed = true;
        process.removeListener('exit', this.killAtExit);
        this.hookedExit = false;
        const servers = [...this.launched.values()];
        this.launched.clear();
        for (const server of servers) {
            killProcessTree(server.process.child, this.platform);
        }
        await Promise.all(servers.map(server => server.process.exit));
    }

    private async startIfClosed(provider: LoadedProvider, launch: ProviderLaunch, origin: string, options: EnsureRunningOptions): Promise<void> {
        if (await portOpen(new URL(provider.url))) {
            return;
        }
        if (this.disposed) {
            throw new QodeAssistError({ category: 'Network', message: `QodeAssist is shutting down; provider "${provider.instance.name}" was not started.` });
        }
        const name = provider.instance.name;
        const commandLine = [launch.command, ...launch.args ?? []].join(' ');
        const fail = (info: ErrorInfo, key?: string): never => {
            this.tell({ provider: name, state: 'failed', message: info.message, summary: `${title(name)} did not start` }, options.logger, 'warn');
            throw new ProviderLaunchError(info, name, commandLine, key);
        };
        const home = this.options.home ?? homedir();
        const env = childEnvironment(this.options.env ?? process.env, { secrets: this.options.secrets?.() ?? PROCESS_SECRETS.list(), platform: this.platform });
        const search = programSearchFor(env, options.workspaceRoots ?? [], this.platform);
        const program = await this.programPath(launch.command, options.workspaceRoots ?? [], search);
        if (typeof program !== 'string') {
            return fail({
                category: 'Config',
                message: program.inWorkspace
                    ? `Provider "${name}" could not start "${commandLine}": ${program.inWorkspace} is inside the workspace, and QodeAssist never starts a program from a workspace. Set [launch] command in ${provider.file.label} to a program installed outside it.`
                    : `Provider "${name}" could not start "${commandLine}": ${programNotFoundMessage(launch.command)} Or set [launch] command in ${provider.file.label} to an absolute path.`
            }, 'launch.command');
        }
        await containChildPath(env, search);
        Object.assign(env, launch.env ?? {});
        const timeoutSeconds = launch.start_timeout ?? DEFAULT_START_TIMEOUT_SECONDS;
        this.tell({
            provider: name, state: 'starting', summary: `starting ${title(name)}…`,
            message: `starting ${title(name)}… (${commandLine}; provider "${name}" did not answer at ${origin}; waiting up to ${timeoutSeconds} s)`
        }, options.logger, 'info');
        const started = startContained(program, launch.args ?? [], { cwd: launch.cwd ? resolve(home, launch.cwd) : home, env, stderr: true, platform: this.platform });
        const server: Launched = { provider: name, process: started, exited: false, output: '' };
        const keep = (chunk: Buffer) => { server.output = (server.output + chunk.toString('utf8')).slice(-OUTPUT_TAIL); };
        started.child.stdout?.on('data', keep);
        started.child.stderr?.on('data', keep);
        void started.exit.then(() => {
            server.exited = true;
            if (this.launched.get(origin) === server) {
                this.launched.delete(origin);
            }
        });
        if (!this.hookedExit) {
            this.hookedExit = true;
            process.on('exit', this.killAtExit);
        }
        this.launched.set(origin, server);

        const deadline = Date.now() + timeoutSeconds * 1000;
        for (;;) {
            const exit = server.exited ? await started.exit : undefined;
            if (exit) {
                const why = exit.error ? exit.error.message : `it exited with code ${exit.exitCode}`;
                return fail({
                    category: 'Network', message: `Provider "${name}" could not be started with "${commandLine}": ${why} before it answered at ${origin}. Check [launch] in ${provider.file.label}.`,
                    ...(server.output.trim() ? { providerDetail: server.output.trim() } : {})
                }, 'launch.command');
            }
            if (await isReady(provider, launch)) {
                this.tell({ provider: name, state: 'ready', message: `${title(name)} is ready at ${origin}`, summary: `${title(name)} is ready` }, options.logger, 'info');
                return;
            }
            if (Date.now() >= deadline) {
                this.launched.delete(origin);
                killProcessTree(started.child, this.platform);
                await started.exit;
                return fail({
                    category: 'Network',
                    message: `Provider "${name}" did not get ready within ${timeoutSeconds} s of starting "${commandLine}", so it was stopped. Raise [launch] start_timeout in ${provider.file.label}, or start the server yourself.`,
                    ...(server.output.trim() ? { providerDetail: server.output.trim() } : {})
                }, 'launch.start_timeout');
            }
            await new Promise(done => setTimeout(done, this.options.pollMs ?? 250));
        }
    }

    /**
     * A bare name on the trusted PATH, or an absolute path; either is judged by what it really is.
     * Links are followed to the program they lead to (as `trustedPathEntries` does for PATH), and a
     * program that really lies inside the workspace is refused. A link that itself sits in the
     * workspace is replaced by its target, so swapping the link after this check changes nothing.
     */
    private async programPath(command: string, workspaceRoots: readonly string[], search: ProgramSearch): Promise<string | { inWorkspace?: string }> {
        const bare = !command.includes('/') && !command.includes('\\');
        const { found, real, realInWorkspace, foundInWorkspace } = await locateProgram(command, bare, search, workspaceRoots, this.platform);
        if (!found || !real) {
            return {};
        }
        if (realInWorkspace) {
            return { inWorkspace: real === found ? found : `${found} (a link to ${real})` };
        }
        return foundInWorkspace ? real : found;
    }

    /** The starts under way now, each as its 'starting' status: for a surface that begins to wait while one runs. */
    get startingNow(): LaunchStatus[] {
        return [...this.underWay.values()];
    }

    private tell(status: LaunchStatus, logger: Logger | undefined, level: 'info' | 'warn'): void {
        if (status.state === 'starting') {
            this.underWay.set(status.provider, status);
        } else {
            this.underWay.delete(status.provider);
        }
        logger?.log(level, 'qodeassist.session', status.message);
        for (const listener of this.listeners) {
            listener(status);
        }
    }
}

/** The agent as a session gets it, with the provider's server started before each request when needed (only where the request goes to the provider's own URL). */
export function withProviderLaunch(sessionAgent: SessionAgent, agent: ResolvedAgent, launcher: ProviderLauncher, options: Omit<EnsureRunningOptions, 'signal'> = {}): SessionAgent {
    const origin = originOf(sessionAgent.url);
    if (!agent.provider.instance.launch || launchRefusal(agent.provider) !== undefined || origin === undefined || origin !== originOf(agent.provider.url)) {
        return sessionAgent;
    }
    return { ...sessionAgent, ensureReachable: signal => launcher.ensureRunning(agent.provider, { ...options, signal }) };
}

function title(name: string): string {
    return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Whether something accepts connections at the URL's host and port. */
function portOpen(url: URL): Promise<boolean> {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return new Promise(done => {
        const socket = createConnection({ host, port });
        const finish = (open: boolean) => {
            socket.destroy();
            done(open);
        };
        socket.setTimeout(PROBE_TIMEOUT_MS, () => finish(false));
        socket.once('connect', () => finish(true));
        socket.once('error', () => finish(false));
    });
}

/** The readiness probe: `ready_url`, else the provider API's model listing, else an open port; no key is sent. */
async function isReady(provider: LoadedProvider, launch: ProviderLaunch): Promise<boolean> {
    const listing = CLIENT_API_INFO[provider.instance.client_api].models?.endpoint;
    const target = launch.ready_url ?? listing;
    if (target === undefined) {
        return portOpen(new URL(provider.url));
    }
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? target : endpointUrl(provider.url, target);
    if (originOf(url) === undefined || originOf(url) !== originOf(provider.url)) {
        return portOpen(new URL(provider.url));
    }
    try {
        const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS * 2) });
        await response.body?.cancel();
        return response.ok;
    } catch {
        return false;
    }
}
