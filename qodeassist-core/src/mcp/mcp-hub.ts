import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { existsSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { Logger } from '../ports/logger';
import { capHead } from '../tools/output-cap';
import { AnyTool, ToolOutcome } from '../tools/tool';
import { CancelledError } from '../wire/error-info';
import { loadMcpConfig, McpConfigFiles, McpConfigIssue, McpServerConfig, mcpToolName } from './mcp-config';
import { McpConsentDetails, mcpConsentDetails, McpConsentPolicy } from './mcp-consent';

/** `needs-consent`: a project server the user has not agreed to start (or whose entry changed since). */
export type McpServerStatus = 'connecting' | 'ready' | 'failed' | 'disabled' | 'needs-consent';

/** What the UI shows of one configured server. */
export interface McpServerState {
    name: string;
    source: string;
    transport: McpServerConfig['transport'];
    status: McpServerStatus;
    /** Tools offered, once ready. */
    tools: string[];
    /** Why it failed, and when the next attempt is. */
    error?: string;
    retryInMs?: number;
    /** What to show when asking, while the status is `needs-consent`. */
    consent?: McpConsentDetails;
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
}

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
    private failures = 0;
    private retryAt: number | undefined;
    private retryTimer: NodeJS.Timeout | undefined;
    private closed = false;
    private generation = 0;

    constructor(
        readonly config: McpServerConfig,
        private readonly hub: { changed(): void; options: Required<Pick<McpHubOptions, 'backoffMs' | 'maxBackoffMs'>> & McpHubOptions },
        /** Set while the user has not agreed to start this (project) server. */
        readonly consent?: McpConsentDetails
    ) {
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
        const client = new Client({ name: 'qodeassist', version: '0.1.0' });
        const transport = this.transport();
        try {
            await client.connect(transport, { timeout: this.config.timeouts.initializeMs });
            const listed = await client.listTools(undefined, { timeout: this.config.timeouts.listMs });
            if (this.closed || generation !== this.generation) {
                await client.close();
                return;
            }
            this.client = client;
            this.tools = listed.tools.map(remote => ({ name: remote.name, tool: this.asTool(remote.name, remote.description ?? '', remote.inputSchema as Record<string, unknown>) }));
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
            await client.close().catch(() => undefined);
            if (!this.closed && generation === this.generation) {
                this.lost(describe(error));
            }
        }
    }

    async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome> {
        const client = this.client;
        if (!client || this.status !== 'ready') {
            return { isError: true, content: `The MCP server "${this.config.name}" is ${this.status}${this.error ? ` (${this.error})` : ''}; the tool could not run. Try again once it is ready.` };
        }
        try {
            const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.config.timeouts.callMs, resetTimeoutOnProgress: true, signal });
            return { content: this.bounded(resultText(result as { content?: unknown })), isError: result.isError === true };
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
            run: (args: Record<string, unknown>, context) => this.call(name, args, context.signal)
        };
    }

    async close(): Promise<void> {
        this.closed = true;
        this.clearRetry();
        const client = this.client;
        this.client = undefined;
        await client?.close().catch(() => undefined);
    }

    private lost(reason: string): void {
        const client = this.client;
        this.client = undefined;
        this.tools = [];
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
        return config.transport === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
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
    private readonly watchers: Array<{ close(): void }> = [];
    private reloadTimer: NodeJS.Timeout | undefined;
    readonly options: Required<Pick<McpHubOptions, 'backoffMs' | 'maxBackoffMs' | 'reloadDelayMs'>> & McpHubOptions;

    constructor(private files: McpConfigFiles, options: McpHubOptions = {}) {
        this.options = { backoffMs: 1_000, maxBackoffMs: 60_000, reloadDelayMs: 200, ...options };
    }

    /** Loads the files, connects, and watches the files' folders for changes. */
    start(): this {
        this.reload();
        this.watchFiles();
        return this;
    }

    /** Other files (the workspace became trusted or untrusted): an unnamed file is neither read nor watched from now on. */
    setFiles(files: McpConfigFiles): void {
        if (files.user === this.files.user && files.project === this.files.project) {
            return;
        }
        this.files = files;
        for (const watcher of this.watchers.splice(0)) {
            watcher.close();
        }
        this.reload();
        this.watchFiles();
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
            ...(connection.error ? { error: connection.lastStderr ? `${connection.error}; its last output: ${connection.lastStderr.trim()}` : connection.error } : {}),
            ...(connection.retryInMs !== undefined ? { retryInMs: connection.retryInMs } : {}),
            ...(connection.consent ? { consent: connection.consent } : {})
        }));
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
        if (this.reloadTimer) {
            clearTimeout(this.reloadTimer);
        }
        for (const watcher of this.watchers.splice(0)) {
            watcher.close();
        }
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

    private watchFiles(): void {
        for (const file of [this.files.user, this.files.project]) {
            if (file) {
                this.watch(file);
            }
        }
    }

    /** Watches the file's folder; while that folder does not exist yet, its parent, until it appears. */
    private watch(file: string): void {
        const folder = dirname(file);
        const watched = existsSync(folder) ? folder : dirname(folder);
        if (!existsSync(watched)) {
            return; // Neither the folder nor its parent: nothing to watch (a workspace that is gone).
        }
        const watcher = watch(watched, (_event, name) => {
            if (watched === folder) {
                if (name === null || name.toString() === basename(file)) {
                    this.scheduleReload();
                }
            } else if (existsSync(folder)) {
                // The folder appeared: watch it from now on, and read what it may already hold.
                handle.close();
                this.watchers.splice(this.watchers.indexOf(handle), 1);
                this.watch(file);
                this.scheduleReload();
            }
        });
        watcher.on('error', () => watcher.close());
        const handle = { close: () => watcher.close() };
        this.watchers.push(handle);
    }

    private scheduleReload(): void {
        if (this.reloadTimer) {
            clearTimeout(this.reloadTimer);
        }
        this.reloadTimer = setTimeout(() => this.reload(), this.options.reloadDelayMs);
    }

    private changed(): void {
        for (const listener of [...this.listeners]) {
            listener();
        }
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

/** A tool result as the model reads it: text parts as they are, other parts described. */
function resultText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
    const parts = Array.isArray(result.content) ? result.content as Array<Record<string, unknown>> : [];
    const texts = parts.map(part => {
        switch (part.type) {
            case 'text': return String(part.text ?? '');
            case 'image': return `[image ${String(part.mimeType ?? '')}, ${String(part.data ?? '').length} base64 characters]`;
            case 'audio': return `[audio ${String(part.mimeType ?? '')}]`;
            case 'resource': {
                const resource = part.resource as Record<string, unknown> | undefined;
                return typeof resource?.text === 'string' ? resource.text : `[resource ${String(resource?.uri ?? '')}]`;
            }
            case 'resource_link': return `[resource link ${String(part.uri ?? '')}${part.name ? ` (${String(part.name)})` : ''}]`;
            default: return JSON.stringify(part);
        }
    });
    if (texts.length === 0 && (result.structuredContent ?? result.toolResult) !== undefined) {
        return JSON.stringify(result.structuredContent ?? result.toolResult);
    }
    return texts.join('\n');
}
