import {
    AnyTool, CONSENTS_FILE, defaultMcpConfigFiles, describeMcpToolRequest, generateMcpToken, McpClaimedClient, McpClientAllowances, McpConfigFiles, McpConsentStore, McpHub,
    environmentPolicy, McpOAuth, McpSignInResult, McpToolServer, PermissionAnswer, PermissionRequest, QodeAssistRuntime, WorkspaceFiles, WritableSecretsStore
} from '@qodeassist/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { join, resolve } from 'node:path';
import { ChatToolSettings } from '../common/chat-protocol';
import { McpServerSettings, McpServerStatus, QodeAssistMcpClient, QodeAssistMcpService } from '../common/mcp-protocol';
import { ToolHostClient } from '../common/tool-host-protocol';
import { QodeAssistUserHome, QodeAssistWritableSecrets } from './backend-symbols';
import { WorkspaceTrustRegistry } from './workspace-trust';

/** The secret ref the server token is kept under. */
const TOKEN_REF = 'qodeassist-mcp-server-token';

/**
 * One MCP client hub per workspace folder for the whole backend: its servers are started once,
 * whatever the number of windows. The project's mcp.json is read only while the workspace is
 * trusted (without a trust registry, never), and its servers start only with the user's consent,
 * kept in the one consent registry, `~/.qodeassist/consents.json` (which takes over the consents
 * of the older `mcp-consent.json`).
 */
@injectable()
export class McpHubs {
    private readonly hubs = new Map<string, McpHub>();
    private readonly listeners = new Set<() => void>();
    private readonly consents: McpConsentStore;
    private readonly stopTrustListener: (() => void) | undefined;
    /** OAuth for every hub's HTTP servers: tokens and clients in the key store (keyring or the owner-only file). */
    readonly oauth: McpOAuth | undefined;

    constructor(
        @inject(QodeAssistUserHome) private readonly userHome: string,
        @inject(WorkspaceTrustRegistry) @optional() private readonly trust?: WorkspaceTrustRegistry,
        @inject(QodeAssistWritableSecrets) @optional() secrets?: WritableSecretsStore
    ) {
        this.oauth = secrets ? new McpOAuth({ secrets, policy: environmentPolicy }) : undefined;
        this.consents = new McpConsentStore(join(userHome, '.qodeassist', CONSENTS_FILE));
        this.stopTrustListener = trust?.onDidChange(workspacePath => this.hubs.get(workspacePath)?.setFiles(this.filesFor(workspacePath)));
    }

    hubFor(workspacePath: string | undefined): McpHub {
        const key = workspacePath ?? '';
        let hub = this.hubs.get(key);
        if (!hub) {
            // The hub's workspace is its first root from the start: a server may list roots before any window reports its folders (`watch`).
            hub = new McpHub(this.filesFor(workspacePath), {
                consent: workspacePath ? this.consents.forWorkspace(workspacePath) : undefined, oauth: this.oauth, roots: workspacePath ? [workspacePath] : []
            }).start();
            hub.onDidChange(() => this.listeners.forEach(listener => listener()));
            this.hubs.set(key, hub);
        }
        return hub;
    }

    /** Records consent for a project server if the workspace is trusted and the entry is still the one the user saw. */
    async grantConsent(workspacePath: string | undefined, server: string, fingerprint: string): Promise<boolean> {
        if (!workspacePath || !this.trust?.isTrusted(workspacePath)) {
            return false;
        }
        return this.hubFor(workspacePath).grantConsent(server, fingerprint);
    }

    /** The user's file always; the project's only while the workspace is trusted. */
    private filesFor(workspacePath: string | undefined): McpConfigFiles {
        const files = defaultMcpConfigFiles(this.userHome, workspacePath);
        return this.trust?.isTrusted(workspacePath) ? files : { user: files.user };
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
        this.stopTrustListener?.();
        this.oauth?.dispose();
        await Promise.all([...this.hubs.values()].map(hub => hub.dispose()));
        this.hubs.clear();
    }
}

/** A window as the server mode sees it: its client, and the workspace it has open. */
interface McpWindow {
    client: QodeAssistMcpClient;
    workspace(): string | undefined;
}

/**
 * The MCP server mode for the whole backend: started, restarted and stopped as the settings
 * say, its token kept in the secrets file. Its write and execute tools ask the user in the
 * newest window that has the served workspace open, in a modal plain-text prompt with the
 * client's claimed name, the path and the diff; with no such window they are denied.
 */
@injectable()
export class McpServerHost {
    private server: McpToolServer | undefined;
    private settingsKey = '';
    private error: string | undefined;
    private readonly windows: McpWindow[] = [];
    private readonly listeners = new Set<() => void>();

    /** The server mode's own composition of the core: it serves tools only, so its tool kit is all it uses. */
    private readonly runtime: QodeAssistRuntime;

    constructor(@inject(QodeAssistWritableSecrets) private readonly secrets: WritableSecretsStore) {
        this.runtime = new QodeAssistRuntime({ secrets });
    }

    /** A window and the workspace it has open (asked at each request: a window may open another folder). */
    addClient(client: QodeAssistMcpClient, workspace: () => string | undefined = () => undefined): () => void {
        const window = { client, workspace };
        this.windows.push(window);
        return () => {
            const index = this.windows.indexOf(window);
            if (index >= 0) {
                this.windows.splice(index, 1);
            }
        };
    }

    /** The newest window with the served workspace open; another workspace's window never answers for it. */
    private windowFor(workspace: string): QodeAssistMcpClient | undefined {
        const served = resolve(workspace);
        return [...this.windows].reverse().find(window => {
            const open = window.workspace();
            return open !== undefined && resolve(open) === served;
        })?.client;
    }

    /** Where one outside client's tools ask and reach the editors: a window of the served workspace. */
    private hostFor(workspace: string, claimed: McpClaimedClient, tools: ChatToolSettings | undefined): ToolHostClient {
        const allowances = new McpClientAllowances();
        const ask = async (request: PermissionRequest): Promise<PermissionAnswer> => {
            const window = this.windowFor(workspace);
            if (!window) {
                return 'deny';
            }
            try {
                const files = new WorkspaceFiles([workspace], { allowOutside: tools?.allowOutsideWorkspace, useGitignore: tools?.useGitignore ?? true });
                const prompt = await describeMcpToolRequest(request, claimed, workspace, { files, readOpen: path => window.readOpenDocument(path) });
                return await window.requestMcpToolPermission(prompt);
            } catch {
                return 'deny'; // The workspace is gone, or the window closed while asking: that is a no.
            }
        };
        return {
            requestToolPermission: async (_id, request) => allowances.ask(request, () => ask(request)),
            getDiagnostics: async path => this.windowFor(workspace)?.getDiagnostics(path) ?? [],
            readOpenDocument: async path => this.windowFor(workspace)?.readOpenDocument(path),
            writeDocument: async (path, content, options) => {
                const window = this.windowFor(workspace);
                if (!window) {
                    throw new Error('No QodeAssist window has the served workspace open to write through.');
                }
                await window.writeDocument(path, content, options);
            }
        };
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
            toolsFor: (clientId, claimed) => this.runtime.toolKit({ host: this.hostFor(workspace, claimed, settings.tools), ownerId: `mcp:${clientId}`, workspace,
                // The user switched the server on in their own settings, and every execute call asks in a modal dialog.
                projectTrusted: true, settings: settings.tools })
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
        this.runtime.dispose();
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
    /** The folder this window has open, as it last told us (server settings, hub state). */
    private workspacePath: string | undefined;
    private readonly toDispose: Array<() => void> = [];

    constructor(
        @inject(McpServerHost) private readonly serverHost: McpServerHost,
        @inject(McpHubs) private readonly hubs: McpHubs
    ) { }

    setClient(client: QodeAssistMcpClient | undefined): void {
        this.client = client;
        if (client) {
            this.toDispose.push(this.serverHost.addClient(client, () => this.workspacePath));
            this.toDispose.push(this.serverHost.onDidChange(() => this.client?.onMcpChanged()));
            this.toDispose.push(this.hubs.onDidChange(() => this.client?.onMcpChanged()));
        }
    }

    configureServer(settings: McpServerSettings): Promise<McpServerStatus> {
        this.workspacePath = settings.workspacePath;
        return this.serverHost.configure(settings);
    }

    async serverStatus(): Promise<McpServerStatus> {
        return this.serverHost.status();
    }

    rotateToken(): Promise<McpServerStatus> {
        return this.serverHost.rotateToken();
    }

    async hubState(workspacePath: string | undefined): Promise<{ servers: ReturnType<McpHub['states']>; issues: McpHub['issues'][number][] }> {
        this.workspacePath = workspacePath ?? this.workspacePath;
        const hub = this.hubs.hubFor(workspacePath);
        return { servers: hub.states(), issues: [...hub.issues] };
    }

    async reconnect(workspacePath: string | undefined, server: string): Promise<void> {
        await this.hubs.hubFor(workspacePath).reconnect(server);
    }

    grantServerConsent(workspacePath: string | undefined, server: string, fingerprint: string): Promise<boolean> {
        return this.hubs.grantConsent(workspacePath, server, fingerprint);
    }

    signIn(workspacePath: string | undefined, server: string, callbackUrl: string): Promise<McpSignInResult> {
        return this.hubs.hubFor(workspacePath).signIn(server, callbackUrl);
    }

    signOut(workspacePath: string | undefined, server: string): Promise<void> {
        return this.hubs.hubFor(workspacePath).signOut(server);
    }

    dispose(): void {
        for (const stop of this.toDispose.splice(0)) {
            stop();
        }
        this.client = undefined;
    }
}
