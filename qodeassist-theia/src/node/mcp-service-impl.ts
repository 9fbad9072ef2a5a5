import { AnyTool, defaultMcpConfigFiles, generateMcpToken, McpHub, McpToolServer, WritableSecretsStore } from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { McpServerSettings, McpServerStatus, QodeAssistMcpClient, QodeAssistMcpService } from '../common/mcp-protocol';
import { ToolHostClient } from '../common/tool-host-protocol';
import { QodeAssistUserHome, QodeAssistWritableSecrets } from './backend-symbols';
import { createToolExecutor } from './tool-host';

/** The secret ref the server token is kept under. */
const TOKEN_REF = 'qodeassist-mcp-server-token';

/** One MCP client hub per workspace folder for the whole backend: its servers are started once, whatever the number of windows. */
@injectable()
export class McpHubs {
    private readonly hubs = new Map<string, McpHub>();
    private readonly listeners = new Set<() => void>();

    constructor(@inject(QodeAssistUserHome) private readonly userHome: string) { }

    hubFor(workspacePath: string | undefined): McpHub {
        const key = workspacePath ?? '';
        let hub = this.hubs.get(key);
        if (!hub) {
            hub = new McpHub(defaultMcpConfigFiles(this.userHome, workspacePath)).start();
            hub.onDidChange(() => this.listeners.forEach(listener => listener()));
            this.hubs.set(key, hub);
        }
        return hub;
    }

    /** The hub's tools, as a contributor for a chat's or refactor's tool registry. */
    toolsFor(workspacePath: string | undefined): () => AnyTool[] {
        const hub = this.hubFor(workspacePath);
        return () => hub.tools();
    }

    onDidChange(listener: () => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    async dispose(): Promise<void> {
        await Promise.all([...this.hubs.values()].map(hub => hub.dispose()));
        this.hubs.clear();
    }
}

/**
 * The MCP server mode for the whole backend: started, restarted and stopped as the settings
 * say, its token kept in the secrets file. Its write and execute tools ask the user in the
 * most recently connected window; with no window open they are denied.
 */
@injectable()
export class McpServerHost {
    private server: McpToolServer | undefined;
    private settingsKey = '';
    private error: string | undefined;
    private readonly clients: QodeAssistMcpClient[] = [];
    private readonly listeners = new Set<() => void>();

    constructor(@inject(QodeAssistWritableSecrets) private readonly secrets: WritableSecretsStore) { }

    /** Where the tools ask and reach the editors: the newest window. */
    private readonly host: ToolHostClient = {
        requestToolPermission: async (id, request) => this.clients.at(-1)?.requestToolPermission(id, request) ?? 'deny',
        getDiagnostics: async path => this.clients.at(-1)?.getDiagnostics(path) ?? [],
        readOpenDocument: async path => this.clients.at(-1)?.readOpenDocument(path),
        writeDocument: async (path, content, options) => {
            const client = this.clients.at(-1);
            if (!client) {
                throw new Error('No QodeAssist window is open to write through.');
            }
            await client.writeDocument(path, content, options);
        }
    };

    addClient(client: QodeAssistMcpClient): () => void {
        this.clients.push(client);
        return () => this.clients.splice(this.clients.indexOf(client), 1);
    }

    onDidChange(listener: () => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    /** Changes run one after another: two windows (or two quick preference changes) never start two servers or make two tokens. */
    configure(settings: McpServerSettings): Promise<McpServerStatus> {
        return this.serially(() => this.apply(settings));
    }

    rotateToken(): Promise<McpServerStatus> {
        return this.serially(() => this.rotate());
    }

    private queue: Promise<unknown> = Promise.resolve();

    private serially<T>(work: () => Promise<T>): Promise<T> {
        const next = this.queue.then(work, work);
        this.queue = next.catch(() => undefined);
        return next;
    }

    private async apply(settings: McpServerSettings): Promise<McpServerStatus> {
        const key = JSON.stringify(settings);
        if (key === this.settingsKey && (this.server || !settings.enabled)) {
            return this.status();
        }
        this.settingsKey = key;
        await this.stopServer();
        this.error = undefined;
        if (!settings.enabled) {
            this.changed();
            return this.status();
        }
        if (!settings.workspacePath) {
            this.error = 'Open a workspace folder: the served tools work inside it.';
            this.changed();
            return this.status();
        }
        let newToken: string | undefined;
        let token = await this.secrets.get(TOKEN_REF);
        if (!token) {
            token = newToken = generateMcpToken();
            await this.secrets.set(TOKEN_REF, token);
        }
        const workspace = settings.workspacePath;
        const server = new McpToolServer({
            port: settings.port, host: settings.host || '127.0.0.1', token, allowedOrigins: settings.allowedOrigins,
            toolsFor: clientId => createToolExecutor({ host: this.host, ownerId: `mcp:${clientId}`, workspace, settings: settings.tools })
        });
        try {
            await server.start();
            this.server = server;
        } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            this.error = /EADDRINUSE/.test(reason)
                ? `Port ${settings.port} is taken by another program; pick another in qodeassist.mcp.server.port.`
                : `The MCP server could not start: ${reason}`;
        }
        this.changed();
        return { ...this.status(), ...(newToken && this.server ? { newToken } : {}) };
    }

    private async rotate(): Promise<McpServerStatus> {
        const token = generateMcpToken();
        await this.secrets.set(TOKEN_REF, token);
        // Restart with the new token: clients holding the old one are refused from now on.
        const settings = this.settingsKey ? JSON.parse(this.settingsKey) as McpServerSettings : undefined;
        this.settingsKey = '';
        const status = settings ? await this.apply(settings) : this.status();
        return { ...status, newToken: token };
    }

    status(): McpServerStatus {
        return {
            running: this.server !== undefined,
            ...(this.server ? { url: this.server.url, sseUrl: this.server.sseUrl } : {}),
            ...(this.error ? { error: this.error } : {}),
            sessions: this.server?.sessionCount ?? 0,
            bridgePath: require.resolve('@qodeassist/core/bin/qodeassist-mcp.js')
        };
    }

    async dispose(): Promise<void> {
        await this.stopServer();
    }

    private async stopServer(): Promise<void> {
        const server = this.server;
        this.server = undefined;
        await server?.stop();
    }

    private changed(): void {
        this.listeners.forEach(listener => listener());
    }
}

/** The MCP view of one window: server-mode control and the hub's state. */
@injectable()
export class QodeAssistMcpServiceImpl implements QodeAssistMcpService {
    private client: QodeAssistMcpClient | undefined;
    private readonly toDispose: Array<() => void> = [];

    constructor(
        @inject(McpServerHost) private readonly serverHost: McpServerHost,
        @inject(McpHubs) private readonly hubs: McpHubs
    ) { }

    setClient(client: QodeAssistMcpClient | undefined): void {
        this.client = client;
        if (client) {
            this.toDispose.push(this.serverHost.addClient(client));
            this.toDispose.push(this.serverHost.onDidChange(() => this.client?.onMcpChanged()));
            this.toDispose.push(this.hubs.onDidChange(() => this.client?.onMcpChanged()));
        }
    }

    configureServer(settings: McpServerSettings): Promise<McpServerStatus> {
        return this.serverHost.configure(settings);
    }

    async serverStatus(): Promise<McpServerStatus> {
        return this.serverHost.status();
    }

    rotateToken(): Promise<McpServerStatus> {
        return this.serverHost.rotateToken();
    }

    async hubState(workspacePath: string | undefined): Promise<{ servers: ReturnType<McpHub['states']>; issues: McpHub['issues'][number][] }> {
        const hub = this.hubs.hubFor(workspacePath);
        return { servers: hub.states(), issues: [...hub.issues] };
    }

    async reconnect(workspacePath: string | undefined, server: string): Promise<void> {
        await this.hubs.hubFor(workspacePath).reconnect(server);
    }

    dispose(): void {
        for (const stop of this.toDispose.splice(0)) {
            stop();
        }
        this.client = undefined;
    }
}
