import type { ClientCapabilities, ClientConnection, ClientContext, InitializeResponse, SendRequestOptions, SessionUpdate } from '@agentclientprotocol/sdk';
import { client as acpClient, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { Logger } from '../ports/logger';
import { CancelledError } from '../wire/error-info';
import { AcpAgentDefinition, acpLimits, AcpLimits } from './acp-definition';
import {
    AcpAgentError, agentCrashedError, agentErrorReason, agentRequestError, agentStoppedError, agentTimeoutError, unsupportedProtocolError
} from './acp-errors';
import { AcpEvent } from './acp-events';
import { AcpFileAccess } from './acp-files';
import { AcpHost } from './acp-host';
import { AcpSession, AcpSessionContext } from './acp-session';
import { AcpTerminals } from './acp-terminals';
import { SandboxSettings } from '../tools/sandbox';
import { AgentProcess } from './agent-process';

/** Updates for a session not known yet (sent before its `session/new` answer) are held, up to this many. */
const MAX_EARLY_UPDATES = 256;
/** After the connection fails, how long to wait for the agent's exit to tell a crash from a hang-up. */
const EXIT_WAIT_MS = 1_500;

export interface AcpClientOptions {
    host: AcpHost;
    limits?: Partial<AcpLimits>;
    /** The environment scrubbed for the agent and its commands; the backend's own by default. */
    env?: Readonly<Record<string, string | undefined>>;
    /** Key values that never reach the agent or its commands; every key this process resolved by default. */
    secrets?: () => readonly string[];
    logger?: Logger;
    clientInfo?: { name: string; version: string };
    platform?: NodeJS.Platform;
    /** The OS sandbox the agent's terminal commands run in (bubblewrap where it starts, by default); the agent itself runs outside it. */
    sandbox?: SandboxSettings;
}

/** What the agent told of itself in `initialize`. */
export interface AcpAgentInfo {
    protocolVersion: number;
    name?: string;
    title?: string;
    version?: string;
    loadSession: boolean;
    /** Takes more workspace roots than the session's cwd. */
    additionalDirectories: boolean;
    prompt: { image: boolean; audio: boolean; embeddedContext: boolean };
    authMethods: Array<{ id: string; name: string; description?: string }>;
}

export type AcpClientState = 'new' | 'starting' | 'ready' | 'failed' | 'closed';

export interface AcpSessionOptions {
    /** Hears every event of the session from the start (modes and commands come right after `session/new`). */
    onEvent?: (event: AcpEvent) => void;
    /** The session's working folder; the definition's, else the first workspace root. */
    cwd?: string;
}

/**
 * One external coding agent over the Agent Client Protocol (the official SDK, stable v1): started
 * as a contained subprocess speaking JSON-RPC on stdio, initialized with what the host offers
 * (file reads and writes, terminals), serving those requests for the agent, and running its
 * sessions (`AcpSession`). A crash, a malformed message or a silent agent is a typed error that
 * names the agent, says what to do and carries the tail of its error output.
 */
export class AcpAgentClient {
    readonly limits: AcpLimits;
    private process: AgentProcess | undefined;
    private connection: ClientConnection | undefined;
    private info: AcpAgentInfo | undefined;
    private starting: Promise<AcpAgentInfo> | undefined;
    private readonly sessions = new Map<string, AcpSession>();
    private readonly early = new Map<string, SessionUpdate[]>();
    private earlyCount = 0;
    private fatal: AcpAgentError | undefined;
    private rejectDeath!: (error: AcpAgentError) => void;
    private readonly death: Promise<never>;
    private lastActivity = Date.now();
    private busy = 0;
    private closed = false;
    private readonly files: AcpFileAccess;
    private readonly terminals: AcpTerminals;
    private readonly context: AcpSessionContext;

    constructor(readonly definition: AcpAgentDefinition, private readonly options: AcpClientOptions) {
        this.limits = acpLimits(options.limits);
        this.files = new AcpFileAccess(options.host, this.limits.maxFileBytes);
        this.terminals = new AcpTerminals({
            files: options.host.files, env: options.env, secrets: options.secrets, platform: options.platform, sandbox: options.sandbox,
            maxTerminals: this.limits.maxTerminals, maxOutputBytes: this.limits.maxTerminalOutputBytes, maxSeconds: this.limits.terminalSeconds
        });
        this.death = new Promise<never>((_resolve, reject) => { this.rejectDeath = reject; });
        this.death.catch(() => undefined);
        this.context = {
            definition, host: options.host, limits: this.limits, files: this.files, terminals: this.terminals, logger: options.logger,
            promptCapabilities: () => this.info?.prompt,
            request: (method, call, timeout) => this.request(method, call, timeout),
            hostWork: work => this.hostWork(work),
            stderrTail: () => this.stderrTail(),
            lastActivityAt: () => this.lastActivity,
            hostBusy: () => this.busy > 0
        };
    }

    get state(): AcpClientState {
        return this.closed ? 'closed' : this.fatal ? 'failed' : this.info ? 'ready' : this.starting ? 'starting' : 'new';
    }

    /** What the agent told of itself, once started. */
    get agentInfo(): AcpAgentInfo | undefined {
        return this.info;
    }

    /** The last of the agent's error output (bounded, secrets removed). */
    stderrTail(): string {
        return this.process?.stderrTail() ?? '';
    }

    /** Starts the agent and runs `initialize` (once; later calls share the first). */
    start(signal?: AbortSignal): Promise<AcpAgentInfo> {
        this.starting ??= this.launch(signal);
        return this.starting;
    }

    /** `session/new` in the workspace. */
    async newSession(options: AcpSessionOptions = {}): Promise<AcpSession> {
        await this.start();
        const roots = this.options.host.files.roots;
        const response = await this.request('session/new', (agent, send) => agent.request('session/new', {
            cwd: options.cwd ?? this.definition.cwd ?? roots[0], mcpServers: [],
            // The other workspace roots, where the agent takes them (it says so in initialize).
            ...(roots.length > 1 && this.info?.additionalDirectories ? { additionalDirectories: roots.slice(1) } : {})
        }, send), { seconds: this.limits.sessionSeconds, setting: 'sessionSeconds' });
        const session = this.register(response.sessionId, options);
        session.setModes(response.modes);
        this.flushEarly(session);
        return session;
    }

    /** `session/load`: the agent replays the conversation as events (user and agent messages, tool calls) before it answers. */
    async loadSession(sessionId: string, options: AcpSessionOptions = {}): Promise<AcpSession> {
        const info = await this.start();
        if (!info.loadSession) {
            throw new AcpAgentError(this.definition.name, 'Validation', `ACP agent "${this.definition.name}" cannot load earlier sessions (it does not offer loadSession). Start a new chat with it instead.`);
        }
        const session = this.register(sessionId, options);
        session.idleRequestId = `acp-load:${sessionId}`;
        try {
            const response = await this.request('session/load', (agent, send) => agent.request('session/load', {
                sessionId, cwd: options.cwd ?? this.definition.cwd ?? this.options.host.files.roots[0], mcpServers: []
            }, send), { seconds: this.limits.sessionSeconds, setting: 'sessionSeconds' });
            session.setModes(response?.modes);
        } catch (error) {
            this.sessions.delete(sessionId);
            throw error;
        }
        session.idleRequestId = `acp-session:${sessionId}`;
        return session;
    }

    /** `authenticate` with one of the methods the agent named in `initialize`. */
    async authenticate(methodId: string): Promise<void> {
        await this.start();
        await this.request('authenticate', (agent, send) => agent.request('authenticate', { methodId }, send), { seconds: this.limits.initializeSeconds, setting: 'initializeSeconds' });
    }

    /** Cancels every turn, ends every command, closes the connection and stops the agent's whole process tree. */
    async close(): Promise<void> {
        if (this.closed) {
            return;
        }
        this.closed = true;
        for (const session of this.sessions.values()) {
            session.cancel();
        }
        await this.terminals.dispose();
        this.connection?.close();
        await this.process?.stop();
        this.sessions.clear();
    }

    private async launch(signal: AbortSignal | undefined): Promise<AcpAgentInfo> {
        let response: InitializeResponse;
        try {
            response = await this.initialize(signal);
        } catch (error) {
            // A client whose start failed stays failed, with the reason, and leaves no process behind.
            this.die(error instanceof AcpAgentError ? error : agentStoppedError(this.definition));
            await this.process?.stop();
            throw error;
        }
        const agentCapabilities = response.agentCapabilities ?? {};
        this.info = {
            protocolVersion: response.protocolVersion,
            ...(response.agentInfo ? { name: response.agentInfo.name, version: response.agentInfo.version, ...(response.agentInfo.title ? { title: response.agentInfo.title } : {}) } : {}),
            loadSession: agentCapabilities.loadSession === true,
            additionalDirectories: !!agentCapabilities.sessionCapabilities?.additionalDirectories,
            prompt: {
                image: agentCapabilities.promptCapabilities?.image === true,
                audio: agentCapabilities.promptCapabilities?.audio === true,
                embeddedContext: agentCapabilities.promptCapabilities?.embeddedContext === true
            },
            authMethods: (response.authMethods ?? []).map(method => ({ id: method.id, name: method.name, ...(method.description ? { description: method.description } : {}) }))
        };
        return this.info;
    }

    private async initialize(signal: AbortSignal | undefined): Promise<InitializeResponse> {
        const host = this.options.host;
        const agentProcess = await AgentProcess.start(this.definition, {
            workspaceRoots: host.files.roots, env: this.options.env, secrets: this.options.secrets, limits: this.limits, platform: this.options.platform
        });
        this.process = agentProcess;
        if (this.closed) {
            throw agentStoppedError(this.definition);
        }
        agentProcess.onMessage(() => { this.lastActivity = Date.now(); });
        agentProcess.onFailure(error => this.die(error));
        void agentProcess.exited.then(exit => {
            if (!this.closed) {
                const during = [...this.sessions.values()].some(session => session.busy) ? 'during a prompt turn' : this.info ? 'while idle' : 'while starting (before initialize was answered)';
                this.die(agentProcess.failed ?? agentCrashedError(this.definition, exit, agentProcess.stderrTail(), during));
            }
        });
        this.connection = this.clientApp().connect(agentProcess.stream);
        const capabilities: ClientCapabilities = {
            fs: { readTextFile: host.fileSystem?.read !== false, writeTextFile: host.fileSystem?.write !== false },
            terminal: host.terminal !== false
        };
        const response = await this.request<InitializeResponse>('initialize', (agent, send) => agent.request('initialize', {
            protocolVersion: PROTOCOL_VERSION, clientCapabilities: capabilities, clientInfo: this.options.clientInfo ?? { name: 'qodeassist', version: '0.1.0' }
        }, send), { seconds: this.limits.initializeSeconds, setting: 'initializeSeconds' }, signal);
        if (response.protocolVersion !== PROTOCOL_VERSION) {
            throw unsupportedProtocolError(this.definition, response.protocolVersion, PROTOCOL_VERSION);
        }
        return response;
    }

    /** The SDK's client side with QodeAssist's handlers for what the agent asks of the IDE. */
    private clientApp() {
        const host = this.options.host;
        const terminalOffered = () => {
            if (host.terminal === false) {
                throw RequestError.methodNotFound('terminal/create');
            }
        };
        return acpClient({ name: 'qodeassist' })
            .onNotification('session/update', ({ params }) => this.route(params.sessionId, params.update))
            .onRequest('session/request_permission', ({ params, signal }) => this.session(params.sessionId).requestPermission(params, signal))
            .onRequest('fs/read_text_file', async ({ params }) => {
                if (host.fileSystem?.read === false) {
                    throw RequestError.methodNotFound('fs/read_text_file');
                }
                return { content: await this.session(params.sessionId).readFile(params) };
            })
            .onRequest('fs/write_text_file', async ({ params, signal }) => {
                if (host.fileSystem?.write === false) {
                    throw RequestError.methodNotFound('fs/write_text_file');
                }
                await this.session(params.sessionId).writeFile(params.path, params.content, signal);
                return {};
            })
            .onRequest('terminal/create', async ({ params, signal }) => {
                terminalOffered();
                return { terminalId: await this.session(params.sessionId).createTerminal(params, signal) };
            })
            .onRequest('terminal/output', async ({ params }) => this.session(params.sessionId).terminalOutput(params.terminalId))
            .onRequest('terminal/wait_for_exit', async ({ params, signal }) => this.session(params.sessionId).waitForTerminalExit(params.terminalId, signal))
            .onRequest('terminal/kill', async ({ params }) => {
                await this.session(params.sessionId).killTerminal(params.terminalId);
                return {};
            })
            .onRequest('terminal/release', async ({ params }) => {
                await this.session(params.sessionId).releaseTerminal(params.terminalId);
                return {};
            });
    }

    private session(sessionId: string): AcpSession {
        const session = this.sessions.get(sessionId);
        if (!session) {
            throw RequestError.sessionNotFound(sessionId);
        }
        return session;
    }

    private route(sessionId: string, update: SessionUpdate): void {
        const session = this.sessions.get(sessionId);
        if (session) {
            session.update(update);
        } else if (this.earlyCount < MAX_EARLY_UPDATES) {
            this.earlyCount++;
            this.early.set(sessionId, [...this.early.get(sessionId) ?? [], update]);
        }
    }

    private register(sessionId: string, options: AcpSessionOptions): AcpSession {
        const session = new AcpSession(sessionId, this.context);
        if (options.onEvent) {
            session.onEvent(options.onEvent);
        }
        this.sessions.set(sessionId, session);
        return session;
    }

    private flushEarly(session: AcpSession): void {
        const updates = this.early.get(session.id) ?? [];
        this.early.delete(session.id);
        this.earlyCount -= updates.length;
        updates.forEach(update => session.update(update));
    }

    private agent(): ClientContext {
        if (this.fatal) {
            throw this.fatal;
        }
        if (this.closed || !this.connection) {
            throw agentStoppedError(this.definition);
        }
        return this.connection.agent;
    }

    /**
     * Sends a request; the agent's error answer, its death, a malformed message, a timeout and the
     * caller's cancel each end it as the matching typed error.
     */
    private async request<T>(method: string, call: (agent: ClientContext, send: SendRequestOptions) => Promise<T>, timeout?: { seconds: number; setting: string }, signal?: AbortSignal): Promise<T> {
        const agent = this.agent();
        const controller = new AbortController();
        let timedOut = false;
        const timer = timeout ? setTimeout(() => { timedOut = true; controller.abort(); }, timeout.seconds * 1000) : undefined;
        const onAbort = () => controller.abort();
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
            return await Promise.race([call(agent, { cancellationSignal: controller.signal, stopWaitingOnCancel: true }), this.death]);
        } catch (error) {
            if (error instanceof AcpAgentError) {
                throw error;
            }
            if (this.closed) {
                throw agentStoppedError(this.definition);
            }
            if (timedOut) {
                throw agentTimeoutError(this.definition, method, timeout!.seconds, timeout!.setting, this.stderrTail());
            }
            if (signal?.aborted) {
                throw new CancelledError();
            }
            if (error instanceof RequestError && this.process?.exit === undefined && !this.fatal) {
                const hint = error.code === -32000 && this.info?.authMethods.length ? ` It offers: ${this.info.authMethods.map(m => m.name).join(', ')}.` : '';
                throw agentRequestError(this.definition, method, error.code, agentErrorReason(error.message, error.data), this.stderrTail(), hint);
            }
            // The connection went down: wait a moment for the agent's exit to tell why.
            await Promise.race([this.death.catch(() => undefined), new Promise(resolve => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
            throw this.fatal ?? agentStoppedError(this.definition);
        } finally {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
        }
    }

    private async hostWork<T>(work: () => Promise<T>): Promise<T> {
        this.busy++;
        try {
            return await work();
        } finally {
            this.busy--;
            this.lastActivity = Date.now();
        }
    }

    /** The agent is gone or broke the protocol: every turn fails with the reason, later calls get it too. */
    private die(error: AcpAgentError): void {
        if (this.fatal) {
            return;
        }
        this.fatal = error;
        this.rejectDeath(error);
        this.options.logger?.log('warn', 'qodeassist.tools', error.message);
        for (const session of this.sessions.values()) {
            session.failTurn(error);
        }
        void this.terminals.dispose();
        this.connection?.close(error);
        // Whatever of its process tree is left (it may have exited and left children) goes too.
        void this.process?.stop();
    }
}
