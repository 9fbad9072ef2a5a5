import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { Logger } from '../ports/logger';
import { capHead } from '../tools/output-cap';
import { AnyTool, ToolOutcome } from '../tools/tool';
import { CancelledError, QodeAssistError } from '../wire/error-info';
import { loadMcpConfig, McpConfigFiles, McpConfigIssue, McpServerConfig, mcpToolName } from './mcp-config';
import { McpConsentDetails, mcpConsentDetails, McpConsentPolicy } from './mcp-consent';
import { McpConfigWatcher } from './mcp-config-watcher';
import { McpOAuth, McpServerAuth, McpSignInResult } from './mcp-oauth';
import { McpSignInNeededError } from './mcp-oauth-rules';
import { EMPTY_CATALOG, McpCatalog } from './mcp-catalog';
import { McpHubFeatures } from './mcp-hub-features';
import { McpElicitationPrompt } from './mcp-elicitation';
import { McpRoots } from './mcp-roots';
import { McpFeatureHost, McpServerFeatures } from './mcp-server-features';
import { toolResultParts } from './mcp-tool-result';

/** `needs-consent`: a project server the user has not agreed to start (or whose entry changed since); `needs-sign-in`: a 401 and no usable OAuth tokens. */
export type McpServerStatus = 'connecting' | 'ready' | 'failed' | 'disabled' | 'needs-consent' | 'needs-sign-in';

/** What the UI shows of one configured server. */
export interface McpServerState {
    name: string;
    source: string;
    transport: McpServerConfig['transport'];
    status: McpServerStatus;
    /** Tools offered, once ready. */
    tools: string[];
    /** How many prompts and resources (templates included) it offers, once ready. */
    prompts?: number;
    resources?: number;
    /** Why it failed, and when the next attempt is. */
    error?: string;
    retryInMs?: number;
    /** What to show when asking, while the status is `needs-consent`. */
    consent?: McpConsentDetails;
    /** An HTTP server's OAuth sign-in, when the hub has McpOAuth. */
    auth?: McpServerAuth;
}

export interface McpHubOptions {
    /** First reconnect delay; it doubles with every failure up to `maxBackoffMs`. */
    backoffMs?: number;
    maxBackoffMs?: number;
    /** Milliseconds to wait before reloading a changed mcp.json. */
    reloadDelayMs?: number;
    logger?: Logger;
    /** Process environment for stdio servers, before each server's own `env`. */
    environment?: Record<string, string>;
    /** The user's consents for the project's servers; without it no project server starts. */
    consent?: McpConsentPolicy;
    /** Most characters of one tool result handed to the model; MAX_MCP_RESULT_CHARS when absent. */
    maxResultChars?: number;
    /** The workspace folders, sent to servers as roots; `setRoots` changes them later. */
    roots?: string[];
    /** Where servers' questions (elicitation) are shown; without it each is declined. */
    elicitation?: McpElicitationPrompt;
    /** OAuth for HTTP servers (one for the backend's hubs); without it a 401 is a failure. */
    oauth?: McpOAuth;
    /** Without `oauth`: why no sign-in can happen here, said when a server answers 401 (then it is not retried: only new credentials help). */
    noSignIn?: string;
}

type HubOptions = Required<Pick<McpHubOptions, 'backoffMs' | 'maxBackoffMs'>> & McpHubOptions & { featureHost?: McpFeatureHost };

/** Most characters of an MCP tool's result the model gets; the rest is counted in a note. */
export const MAX_MCP_RESULT_CHARS = 50_000;

interface RemoteTool {
    /** The server's own name for it. */
    name: string;
    /** What the sessions' tool registries get, made once per listing. */
    tool: AnyTool;
}

/** A connection to one configured server, with its reconnect loop. */
class ServerConnection {
    status: McpServerStatus = 'connecting';
    tools: RemoteTool[] = [];
    error: string | undefined;
    private client: Client | undefined;
    /** The client still in its handshake: closing the connection must stop its process too, or it outlives us. */
    private connecting: Client | undefined;
    private failures = 0;
    private retryAt: number | undefined;
    private retryTimer: NodeJS.Timeout | undefined;
    private closed = false;
    private generation = 0;
    readonly features: McpServerFeatures;

    constructor(
        readonly config: McpServerConfig,
        private readonly hub: { changed(): void; options: HubOptions },
        /** Set while the user has not agreed to start this (project) server. */
        readonly consent?: McpConsentDetails
    ) {
        const host = hub.options.featureHost ?? { roots: new McpRoots(hub.options.roots), elicitation: hub.options.elicitation, logger: hub.options.logger };
        this.features = new McpServerFeatures(config.name, host, config.timeouts.listMs, client => this.listTools(client), () => hub.changed());
        if (config.disabled) {
            this.status = 'disabled';
        } else if (consent) {
            this.status = 'needs-consent';
        } else {
            void this.connect();
        }
    }

    get retryInMs(): number | undefined {
        return this.retryAt === undefined ? undefined : Math.max(0, this.retryAt - Date.now());
    }

    async connect(): Promise<void> {
        if (this.consent || this.config.disabled) {
            return; // Only consent (a reload) or an enabled entry makes it startable.
        }
        const generation = ++this.generation;
        this.clearRetry();
        this.status = 'connecting';
        this.error = undefined;
        this.hub.changed();
        const client = this.features.newClient();
        const transport = this.transport();
        this.connecting = client;
        try {
            await client.connect(transport, { timeout: this.config.timeouts.initializeMs });
            const listed = await client.listTools(undefined, { timeout: this.config.timeouts.listMs });
            if (this.connecting === client) {
                this.connecting = undefined;
            }
            if (this.closed || generation !== this.generation) {
                this.features.closed(client);
                await client.close();
                return;
            }
            this.client = client;
            this.tools = this.remoteTools(listed.tools);
            await this.features.connected(client);
            this.status = 'ready';
            this.failures = 0;
            // A server that goes away later is reconnected, with backoff.
            client.onclose = () => {
                if (this.client === client) {
                    this.lost('the connection closed');
                }
            };
            this.hub.changed();
        } catch (error) {
            if (this.connecting === client) {
                this.connecting = undefined;
            }
            this.features.closed(client);
            await client.close().catch(() => undefined);
            const unauthorized = !this.hub.options.oauth && this.hub.options.noSignIn !== undefined && (error as { code?: unknown }).code === 401;
            if (!this.closed && generation === this.generation && (error instanceof McpSignInNeededError || unauthorized)) {
                this.status = 'needs-sign-in'; // No retry loop: only a sign-in (or Reconnect) changes anything.
                this.error = unauthorized ? `The MCP server "${this.config.name}" answered 401 (it needs authorization); ${this.hub.options.noSignIn}` : this.error;
                this.hub.changed();
            } else if (!this.closed && generation === this.generation) {
                this.lost(describe(error));
            }
        }
    }

    async call(tool: string, args: Record<string, unknown>, running: { chatId: string; requestId: string; signal?: AbortSignal }): Promise<ToolOutcome> {
        const signal = running.signal;
        const client = this.client;
        if (!client || this.status !== 'ready') {
            return { isError: true, content: `The MCP server "${this.config.name}" is ${this.status}${this.error ? ` (${this.error})` : ''}; the tool could not run. Try again once it is ready.` };
        }
        try {
            const result = await this.features.track(running, () =>
                client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.config.timeouts.callMs, resetTimeoutOnProgress: true, signal }));
            const parts = toolResultParts(result);
            return { content: this.bounded(parts.text), isError: result.isError === true, ...(parts.images.length > 0 ? { images: parts.images } : {}) };
        } catch (error) {
            if (signal?.aborted) {
                throw new CancelledError();
            }
            const reason = describe(error);
            if (this.client === client && !isApplicationError(error)) {
                // The server died or stopped answering: start it again for the next call.
                this.lost(reason);
            }
            return { isError: true, content: this.bounded(`The MCP server "${this.config.name}" failed during ${tool}: ${reason}`) };
        }
    }

    /** A server decides how much it answers; the model gets at most the hub's limit of it. */
    private bounded(text: string): string {
        return capHead(text, this.hub.options.maxResultChars ?? MAX_MCP_RESULT_CHARS, 'the result is too long to show whole; ask the tool for less (a narrower query, a range or a page)');
    }

    private asTool(name: string, description: string, inputSchema: Record<string, unknown>): AnyTool {
        return {
            name: mcpToolName(this.config.name, name),
            description: `${description} (MCP server "${this.config.name}", tool "${name}")`.trim(),
            permission: 'execute',
            // The server checks the arguments against its own schema; here they only need to be an object.
            parameters: z.record(z.string(), z.unknown()),
            inputSchema,
            run: (args: Record<string, unknown>, context) => this.call(name, args, { chatId: context.chatId, requestId: String(context.requestId), signal: context.signal })
        };
    }

    /** The server said its tools changed: list them again (the connection stays). */
    private async listTools(client: Client): Promise<void> {
        try {
            const listed = await client.listTools(undefined, { timeout: this.config.timeouts.listMs });
            if (this.client === client) {
                this.tools = this.remoteTools(listed.tools);
            }
        } catch (error) {
            this.hub.options.logger?.log('warn', 'qodeassist.mcp', `MCP server ${this.config.name}: listing its changed tools failed: ${describe(error)}`);
        }
    }

    private remoteTools(listed: Array<{ name: string; description?: string; inputSchema: unknown }>): RemoteTool[] {
        return listed.map(remote => ({ name: remote.name, tool: this.asTool(remote.name, remote.description ?? '', remote.inputSchema as Record<string, unknown>) }));
    }

    /** What it offers besides tools while ready. */
    get catalog(): McpCatalog {
        return this.status === 'ready' ? this.features.catalog : EMPTY_CATALOG;
    }

    /** The connected client, for reading resources and getting prompts; a typed error while it is not ready. */
    ready(): Client {
        if (!this.client || this.status !== 'ready') {
            throw new QodeAssistError({ category: 'Tool', message: `The MCP server "${this.config.name}" is ${this.status}${this.error ? ` (${this.error})` : ''}; try again once it is ready.` });
        }
        return this.client;
    }

    async close(): Promise<void> {
        this.closed = true;
        this.clearRetry();
        const client = this.client;
        const connecting = this.connecting;
        this.client = undefined;
        this.connecting = undefined;
        if (client) {
            this.features.closed(client);
        }
        await Promise.all([client, connecting].map(open => open?.close().catch(() => undefined)));
    }

    private lost(reason: string): void {
        const client = this.client;
        this.client = undefined;
        this.tools = [];
        if (client) {
            this.features.closed(client);
        }
        void client?.close().catch(() => undefined);
        if (this.closed) {
            return;
        }
        this.status = 'failed';
        this.error = reason;
        const delay = Math.min(this.hub.options.maxBackoffMs, this.hub.options.backoffMs * 2 ** this.failures++);
        this.retryAt = Date.now() + delay;
        this.retryTimer = setTimeout(() => void this.connect(), delay);
        this.retryTimer.unref?.();
        this.hub.options.logger?.log('warn', 'qodeassist.mcp', `MCP server ${this.config.name} failed: ${reason}; retrying in ${delay} ms`);
        this.hub.changed();
    }

    private clearRetry(): void {
        if (this.retryTimer) {
            clearTimeout(this.retryTimer);
        }
        this.retryTimer = undefined;
        this.retryAt = undefined;
    }

    private transport(): Transport {
        const config = this.config;
        if (config.transport === 'stdio') {
            const transport = new StdioClientTransport({
                command: config.command, args: config.args, cwd: config.cwd, stderr: 'pipe',
                env: { ...(this.hub.options.environment ?? getDefaultEnvironment()), ...config.env }
            });
            // A server's own log lines are not ours to print; keep the last ones for the failure message.
            this.lastStderr = '';
            transport.stderr?.on('data', chunk => {
                this.lastStderr = (this.lastStderr + String(chunk)).slice(-500);
            });
            return transport;
        }
        const url = new URL(config.url);
        const requestInit = { headers: config.headers };
        const auth = this.hub.options.oauth?.connection(config);
        return config.transport === 'sse' ? new SSEClientTransport(url, { requestInit, ...auth }) : new StreamableHTTPClientTransport(url, { requestInit, ...auth });
    }

    lastStderr = '';
}

/**
 * The MCP client hub: the servers of `~/.qodeassist/mcp.json` and the project's, each
 * connected over stdio, Streamable HTTP or SSE with its own timeouts, reconnected with
 * backoff when it fails, its tools offered as `mcp_<server>_<tool>` (execute class: the
 * user is asked before every call). The files are watched; a change applies at once.
 * The caller names the project file only for a trusted workspace, and a project server
 * starts only once `options.consent` holds the fingerprint of its current entry.
 */
export class McpHub {
    private connections = new Map<string, ServerConnection>();
    private issueList: McpConfigIssue[] = [];
    private readonly listeners = new Set<() => void>();
    private readonly watcher: McpConfigWatcher;
    private stopOAuth: (() => void) | undefined;
    readonly options: Required<Pick<McpHubOptions, 'backoffMs' | 'maxBackoffMs' | 'reloadDelayMs'>> & HubOptions & { featureHost: McpFeatureHost };
    /** Resources, prompts, roots and servers' questions, across the ready servers. */
    readonly features: McpHubFeatures;

    constructor(private files: McpConfigFiles, options: McpHubOptions = {}) {
        const featureHost = { roots: new McpRoots(options.roots), elicitation: options.elicitation, logger: options.logger };
        this.options = { backoffMs: 1_000, maxBackoffMs: 60_000, reloadDelayMs: 200, ...options, featureHost };
        this.features = new McpHubFeatures(() => this.connections.values(), featureHost);
        this.watcher = new McpConfigWatcher(() => this.reload(), this.options.reloadDelayMs);
    }

    /** Loads the files, connects, and watches the files' folders for changes. */
    start(): this {
        this.reload();
        this.watcher.watchFiles(this.files);
        // A sign-in or sign-out (from any window) reconnects that server here too.
        this.stopOAuth = this.options.oauth?.onDidChange(event => {
            const connection = this.connections.get(event.server);
            return connection?.config.transport !== 'stdio' && connection?.config.url === event.url && event.kind !== 'changed' ? void connection.connect() : this.changed();
        });
        return this;
    }

    /** Other files (the workspace became trusted or untrusted): an unnamed file is neither read nor watched from now on. */
    setFiles(files: McpConfigFiles): void {
        if (files.user === this.files.user && files.project === this.files.project) {
            return;
        }
        this.files = files;
        this.reload();
        this.watcher.watchFiles(files);
    }

    /**
     * Records the user's consent to a project server, if `fingerprint` (what the user was
     * shown) is that of the server's entry in the file now; false for a stale or unknown one.
     */
    async grantConsent(name: string, fingerprint: string): Promise<boolean> {
        const policy = this.options.consent;
        const config = loadMcpConfig(this.files).servers.find(server => server.name === name);
        if (!policy || !config || config.source !== this.files.project || mcpConsentDetails(config).fingerprint !== fingerprint) {
            return false;
        }
        await policy.grant(fingerprint, name);
        this.reload();
        return true;
    }

    get issues(): readonly McpConfigIssue[] {
        return this.issueList;
    }

    states(): McpServerState[] {
        return [...this.connections.values()].map(connection => ({
            name: connection.config.name, source: connection.config.source, transport: connection.config.transport, status: connection.status,
            tools: connection.tools.map(tool => tool.name),
            ...(connection.status === 'ready' ? { prompts: connection.catalog.prompts.length, resources: connection.catalog.resources.length + connection.catalog.templates.length } : {}),
            ...(connection.error ? { error: connection.lastStderr ? `${connection.error}; its last output: ${connection.lastStderr.trim()}` : connection.error } : {}),
            ...(connection.retryInMs !== undefined ? { retryInMs: connection.retryInMs } : {}),
            ...(connection.consent ? { consent: connection.consent } : {}),
            ...(connection.config.transport !== 'stdio' && this.options.oauth ? { auth: this.options.oauth.state(connection.config) } : {})
        }));
    }

    /** Starts the OAuth sign-in of a configured HTTP server (the managed policy allowed it, or it would not be here). */
    async signIn(name: string, callbackUrl: string): Promise<McpSignInResult> {
        const config = this.connections.get(name)?.config;
        return this.options.oauth && config && config.transport !== 'stdio' && !config.disabled ? this.options.oauth.signIn(config, callbackUrl)
            : { status: 'failed', step: 'discovery', message: `no HTTP MCP server "${name}" runs here to sign in to` };
    }

    /** Removes a server's OAuth tokens and client; it reconnects, and then asks for a sign-in. */
    async signOut(name: string): Promise<void> {
        const config = this.connections.get(name)?.config;
        await (this.options.oauth && config && config.transport !== 'stdio' ? this.options.oauth.signOut(config) : undefined);
    }

    /** Called whenever a server's state or the configuration changes. */
    onDidChange(listener: () => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    /** Resolves once no server is connecting any more (ready, failed or disabled), or after `timeoutMs`. */
    async settled(timeoutMs = 60_000): Promise<McpServerState[]> {
        const deadline = Date.now() + timeoutMs;
        while (this.states().some(state => state.status === 'connecting') && Date.now() < deadline) {
            await new Promise<void>(resolve => {
                const stop = this.onDidChange(() => { stop(); resolve(); });
                setTimeout(() => { stop(); resolve(); }, Math.max(0, Math.min(250, deadline - Date.now())));
            });
        }
        return this.states();
    }

    /** Connects one server again now (the UI's Reconnect). */
    async reconnect(name: string): Promise<void> {
        await this.connections.get(name)?.connect();
    }

    /** The ready servers' tools, for the ToolContributorRegistry of every chat and refactor session. */
    tools(): AnyTool[] {
        return [...this.connections.values()].flatMap(connection => connection.status === 'ready' ? connection.tools.map(remote => remote.tool) : []);
    }

    async dispose(): Promise<void> {
        this.stopOAuth?.();
        this.watcher.close();
        const closing = [...this.connections.values()].map(connection => connection.close());
        this.connections.clear();
        this.listeners.clear();
        await Promise.all(closing);
    }

    /** Applies the files: new servers connect, removed ones close, changed ones restart, unchanged ones stay. */
    private reload(): void {
        const { servers, issues } = loadMcpConfig(this.files);
        this.issueList = issues;
        for (const issue of issues) {
            this.options.logger?.log('warn', 'qodeassist.mcp', `${issue.file}: ${issue.message}`);
        }
        const next = new Map<string, ServerConnection>();
        for (const config of servers) {
            const consent = this.missingConsent(config);
            const current = this.connections.get(config.name);
            if (current && sameServer(current.config, config) && current.consent?.fingerprint === consent?.fingerprint) {
                next.set(config.name, current);
                this.connections.delete(config.name);
            } else {
                next.set(config.name, new ServerConnection(config, { changed: () => this.changed(), options: this.options }, consent));
            }
        }
        for (const gone of this.connections.values()) {
            void gone.close();
        }
        this.connections = next;
        this.changed();
    }

    /** What to ask about a project server the user has not agreed to start; undefined when it may start. */
    private missingConsent(config: McpServerConfig): McpConsentDetails | undefined {
        if (config.source !== this.files.project || config.disabled) {
            return undefined;
        }
        const details = mcpConsentDetails(config);
        return this.options.consent?.isGranted(details.fingerprint) ? undefined : details;
    }

    private changed(): void {
        for (const listener of [...this.listeners]) {
            listener();
        }
    }

    // --- Servers given as a list (an ACP client's session/new servers) rather than read from files ---

    /**
     * A hub of exactly these servers, connected now: no file is read or watched (do not call
     * `start` or `setFiles`, which would replace them with the files'). The caller has checked
     * them against the managed policy and has the user's consent; `dispose` stops them.
     */
    static ofServers(servers: readonly McpServerConfig[], options: McpHubOptions = {}): McpHub {
        const hub = new McpHub({}, options);
        for (const config of servers) {
            hub.connections.set(config.name, new ServerConnection(config, { changed: () => hub.changed(), options: hub.options }));
        }
        return hub;
    }
}

function sameServer(a: McpServerConfig, b: McpServerConfig): boolean {
    return JSON.stringify({ ...a, source: '' }) === JSON.stringify({ ...b, source: '' });
}

function describe(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

/** An error the server answered with (JSON-RPC error): the connection itself is fine. */
function isApplicationError(error: unknown): boolean {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'number' && code !== -32001 && code !== -32000;
}
