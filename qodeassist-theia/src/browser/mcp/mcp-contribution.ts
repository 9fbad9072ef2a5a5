import { Command, CommandContribution, CommandRegistry, MessageService, nls, QuickInputService, QuickPickItem } from '@theia/core';
import { ConfirmDialog, FrontendApplicationContribution } from '@theia/core/lib/browser';
import { inject, injectable } from '@theia/core/shared/inversify';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { WorkspaceTrustService } from '@theia/workspace/lib/browser/workspace-trust-service';
import { McpConsentDetails, McpServerState, McpServerStatus, QodeAssistMcpService } from '../../common/mcp-protocol';
import { QodeAssistPreferences, toolSettingsOf } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { McpClientImpl } from './mcp-client';
import { McpServerConsentDialog } from './mcp-dialogs';
import { signInToMcpServer } from './mcp-sign-in';
import { WindowService } from '@theia/core/lib/browser/window/window-service';

export { McpClientImpl };

export namespace QodeAssistMcpCommands {
    export const SERVERS: Command = Command.toLocalizedCommand({ id: 'qodeassist.mcp.servers', category: 'QodeAssist', label: 'MCP Servers…' }, 'qodeassist/mcp/servers');
    export const CONNECT: Command = Command.toLocalizedCommand({ id: 'qodeassist.mcp.connectClients', category: 'QodeAssist', label: 'Connect Other MCP Clients to QodeAssist…' }, 'qodeassist/mcp/connect');
    export const ROTATE: Command = Command.toLocalizedCommand({ id: 'qodeassist.mcp.rotateToken', category: 'QodeAssist', label: 'Rotate MCP Server Token' }, 'qodeassist/mcp/rotate');
    /** Argument: the server's name. */
    export const SIGN_IN: Command = { id: 'qodeassist.mcp.signIn' };
}

/** VS Code asks for the token itself (a password input), so the snippet never holds it. */
const VSCODE_TOKEN_INPUT = 'qodeassist-token';

/** The snippets other MCP clients need, for a server URL and a token (or a placeholder). */
export function connectionSnippets(status: Pick<McpServerStatus, 'url' | 'bridgePath'>, token: string): Array<{ title: string; text: string }> {
    const url = status.url ?? 'http://127.0.0.1:7717/mcp';
    return [
        {
            title: 'Claude Desktop and other stdio clients (mcpServers JSON)',
            text: JSON.stringify({ mcpServers: { qodeassist: { command: 'node', args: [status.bridgePath], env: { QODEASSIST_MCP_URL: url, QODEASSIST_MCP_TOKEN: token } } } }, undefined, 2)
        },
        {
            title: 'VS Code (.vscode/mcp.json)',
            text: JSON.stringify({
                inputs: [{ type: 'promptString', id: VSCODE_TOKEN_INPUT, description: 'QodeAssist MCP server token', password: true }],
                servers: { qodeassist: { type: 'http', url, headers: { Authorization: `Bearer \${input:${VSCODE_TOKEN_INPUT}}` } } }
            }, undefined, 2)
        },
        { title: 'Claude Code', text: `claude mcp add --transport http qodeassist ${url} --header "Authorization: Bearer ${token}"` }
    ];
}

const STATUS_LABEL: Record<McpServerState['status'], string> = {
    connecting: 'connecting…', ready: 'ready', failed: 'failed', disabled: 'disabled', 'needs-consent': 'waiting for your consent', 'needs-sign-in': 'waiting for you to sign in'
};

/**
 * MCP in the IDE: the server mode follows the `qodeassist.mcp.server.*` preferences (its token is
 * shown once, with copy-ready snippets); the client hub's servers and their state are listed on
 * demand; tools called by outside MCP clients ask here before writing or running anything.
 */
@injectable()
export class McpContribution implements FrontendApplicationContribution, CommandContribution {
    @inject(QodeAssistMcpService) protected readonly service: QodeAssistMcpService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(WorkspaceTrustService) protected readonly trust: WorkspaceTrustService;
    @inject(MessageService) protected readonly messages: MessageService;
    @inject(QuickInputService) protected readonly quickInput: QuickInputService;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;
    @inject(McpClientImpl) protected readonly mcpClient: McpClientImpl;
    @inject(WindowService) protected readonly windows: WindowService;
    /** Servers already offered a sign-in in this window. */
    protected readonly offeredSignIns = new Set<string>();

    protected lastError: string | undefined;
    /** Fingerprints already offered in this window: a project server is offered once, then waits in the servers list. */
    protected readonly offeredConsents = new Set<string>();
    protected consentCheck: Promise<void> = Promise.resolve();
    protected consentCheckQueued = false;

    onStart(): void {
        // Tools are served only for a trusted workspace, and only after the user said so.
        void this.workspace.ready.then(() => {
            void this.applySettings();
            // Start the workspace's client hub now, so its servers are ready by the first chat.
            this.offerConsents();
        });
        this.mcpClient.onDidChange(() => this.offerConsents());
        this.trust.onDidChangeWorkspaceTrust(() => void this.applySettings());
        this.preferences.onPreferenceChanged(change => {
            if (change.preferenceName.startsWith('qodeassist.mcp.server.') || change.preferenceName.startsWith('qodeassist.tools.') || change.preferenceName === 'qodeassist.enabled') {
                void this.applySettings();
            }
        });
    }

    registerCommands(commands: CommandRegistry): void {
        commands.registerCommand(QodeAssistMcpCommands.SERVERS, { execute: () => this.showServers() });
        commands.registerCommand(QodeAssistMcpCommands.CONNECT, { execute: () => this.showConnection() });
        commands.registerCommand(QodeAssistMcpCommands.SIGN_IN, {
            execute: (server: string) => signInToMcpServer({ service: this.service, messages: this.messages, windows: this.windows }, this.workspacePath(), server)
        });
        commands.registerCommand(QodeAssistMcpCommands.ROTATE, {
            execute: async () => {
                const status = await this.service.rotateToken();
                await this.showToken(status, nls.localize('qodeassist/mcp/rotated', 'The MCP server has a new token; clients using the old one must be updated.'));
            }
        });
    }

    // ---- server mode ----

    protected applying: Promise<void> = Promise.resolve();

    /** One change after another, so a burst of preference events shows at most one token dialog. */
    protected applySettings(): Promise<void> {
        this.applying = this.applying.then(() => this.doApplySettings(), () => this.doApplySettings());
        return this.applying;
    }

    protected async doApplySettings(): Promise<void> {
        const trusted = await this.trust.getWorkspaceTrust();
        const status = await this.service.configureServer({
            enabled: this.preferences['qodeassist.mcp.server.enabled'] && trusted && !this.qodeAssistSwitch.offReason,
            port: this.preferences['qodeassist.mcp.server.port'],
            host: this.preferences['qodeassist.mcp.server.host'],
            allowedOrigins: this.preferences['qodeassist.mcp.server.allowedOrigins'],
            workspacePath: this.workspace.tryGetRoots()[0]?.resource.path.fsPath(),
            tools: toolSettingsOf(this.preferences)
        });
        if (status.error && status.error !== this.lastError) {
            this.messages.error(`QodeAssist MCP server: ${status.error}`);
        }
        this.lastError = status.error;
        if (status.newToken) {
            await this.showToken(status, nls.localize('qodeassist/mcp/started', 'The QodeAssist MCP server is running. This is its token; it is shown only now.'));
        }
    }

    protected async showToken(status: McpServerStatus, intro: string): Promise<void> {
        await new ConfirmDialog({
            title: nls.localize('qodeassist/mcp/tokenTitle', 'QodeAssist MCP Server Token'),
            msg: this.connectionNode(status, status.newToken ?? '<token>', intro),
            ok: nls.localize('qodeassist/mcp/copied', 'Done'),
            cancel: nls.localize('qodeassist/mcp/close', 'Close')
        }).open();
    }

    protected async showConnection(): Promise<void> {
        const status = await this.service.serverStatus();
        const intro = status.running
            ? nls.localize('qodeassist/mcp/connectIntro', 'Use one of these in the other client. The token was shown when the server started; if you do not have it, rotate it (QodeAssist: Rotate MCP Server Token).')
            : nls.localize('qodeassist/mcp/disabledIntro', 'The MCP server is off. Turn on qodeassist.mcp.server.enabled; its token is shown once when it starts.');
        await new ConfirmDialog({ title: nls.localize('qodeassist/mcp/connectTitle', 'Connect MCP Clients'), msg: this.connectionNode(status, '<token>', intro) }).open();
    }

    protected connectionNode(status: McpServerStatus, token: string, intro: string): HTMLElement {
        const node = document.createElement('div');
        node.className = 'qa-mcp-connection';
        const paragraph = document.createElement('p');
        paragraph.textContent = intro;
        node.append(paragraph);
        if (status.newToken) {
            node.append(this.copyBlock('Token', status.newToken));
        }
        if (status.url) {
            node.append(this.copyBlock('Streamable HTTP', status.url), this.copyBlock('HTTP+SSE (legacy clients)', status.sseUrl ?? ''));
        }
        for (const snippet of connectionSnippets(status, token)) {
            node.append(this.copyBlock(snippet.title, snippet.text));
        }
        return node;
    }

    protected copyBlock(title: string, text: string): HTMLElement {
        const block = document.createElement('div');
        block.className = 'qa-mcp-snippet';
        const header = document.createElement('div');
        header.className = 'qa-mcp-snippet-title';
        header.textContent = title;
        const copy = document.createElement('button');
        copy.className = 'theia-button secondary';
        copy.textContent = nls.localize('qodeassist/mcp/copy', 'Copy');
        copy.onclick = () => void navigator.clipboard.writeText(text).then(() => { copy.textContent = nls.localize('qodeassist/mcp/copiedOne', 'Copied'); });
        header.append(copy);
        const pre = document.createElement('pre');
        pre.textContent = text;
        block.append(header, pre);
        return block;
    }

    // ---- client hub ----

    protected workspacePath(): string | undefined {
        return this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
    }

    /** Offers each project server that waits for consent once, in a notification whose action opens the consent dialog. */
    protected offerConsents(): void {
        if (this.consentCheckQueued) {
            return; // A check is already waiting; it will see this change too.
        }
        this.consentCheckQueued = true;
        this.consentCheck = this.consentCheck.then(async () => {
            this.consentCheckQueued = false;
            const workspacePath = this.workspacePath();
            const { servers } = await this.service.hubState(workspacePath);
            for (const server of servers) {
                const consent = server.status === 'needs-consent' ? server.consent : undefined;
                if (consent && !this.offeredConsents.has(consent.fingerprint)) {
                    this.offeredConsents.add(consent.fingerprint);
                    void this.offerConsent(workspacePath, consent);
                }
                if (server.status === 'needs-sign-in' && !this.offeredSignIns.has(server.name)) {
                    this.offeredSignIns.add(server.name);
                    void this.offerSignIn(server);
                }
            }
        }).catch(() => undefined);
    }

    protected async offerConsent(workspacePath: string | undefined, consent: McpConsentDetails): Promise<void> {
        const review = nls.localize('qodeassist/mcp/consentReview', 'Review…');
        // Only the server's name goes into the notification (letters, digits, "." "_" "-" by the config's rules); the entry itself is shown as text in the dialog.
        const answer = await this.messages.info(
            nls.localize('qodeassist/mcp/consentOffer', 'The project\'s MCP server "{0}" waits for your consent to start.', consent.server), review);
        if (answer === review) {
            await this.askConsent(workspacePath, consent);
        }
    }

    /** A notification whose action starts the sign-in (the server's name only: letters, digits, "." "_" "-"). */
    protected async offerSignIn(server: McpServerState): Promise<void> {
        const signIn = nls.localize('qodeassist/mcp/signIn', 'Sign in');
        const answer = await this.messages.info(server.auth?.authorizationServer
            ? nls.localize('qodeassist/mcp/signInOfferAt', 'The MCP server "{0}" asks you to sign in (at {1}).', server.name, server.auth.authorizationServer)
            : nls.localize('qodeassist/mcp/signInOffer', 'The MCP server "{0}" asks you to sign in.', server.name), signIn);
        if (answer === signIn) {
            await signInToMcpServer({ service: this.service, messages: this.messages, windows: this.windows }, this.workspacePath(), server.name);
        }
    }

    /** The consent dialog; the backend grants it only if the file's entry is still the one shown. */
    protected async askConsent(workspacePath: string | undefined, consent: McpConsentDetails): Promise<void> {
        if (!await new McpServerConsentDialog(consent).open()) {
            return;
        }
        if (!await this.service.grantServerConsent(workspacePath, consent.server, consent.fingerprint)) {
            this.messages.warn(nls.localize('qodeassist/mcp/consentStale',
                'The MCP server "{0}" was not started: its entry changed since it was shown, or the workspace is not trusted. Review it again in QodeAssist: MCP Servers….', consent.server));
        }
    }

    protected async showServers(): Promise<void> {
        const workspacePath = this.workspacePath();
        const { servers, issues } = await this.service.hubState(workspacePath);
        const items: Array<QuickPickItem & { server?: string; consent?: McpConsentDetails }> = servers.map(server => ({
            label: server.name,
            description: server.status === 'ready' ? `${STATUS_LABEL.ready} · ${server.tools.length} tools` : STATUS_LABEL[server.status],
            detail: server.status === 'needs-consent'
                ? nls.localize('qodeassist/mcp/consentDetail', 'A project server: pick it to review what it runs and allow it. {0}', server.source)
                : server.error ? `${server.error}${server.retryInMs !== undefined ? ` — retrying in ${Math.ceil(server.retryInMs / 1000)} s` : ''}` : `${server.transport} · ${server.source}`,
            server: server.name,
            consent: server.status === 'needs-consent' ? server.consent : undefined
        }));
        for (const issue of issues) {
            items.push({ label: `$(error) ${issue.file}`, detail: issue.message });
        }
        if (items.length === 0) {
            items.push({ label: nls.localize('qodeassist/mcp/none', 'No MCP servers configured'), detail: nls.localize('qodeassist/mcp/noneHint', 'Add them to ~/.qodeassist/mcp.json or .qodeassist/mcp.json as {"mcpServers": {…}}.') });
        }
        const picked = await this.quickInput.showQuickPick(items, {
            title: nls.localize('qodeassist/mcp/serversTitle', 'MCP Servers (pick one to reconnect or review)'), matchOnDetail: true
        });
        if (picked?.consent) {
            await this.askConsent(workspacePath, picked.consent);
        } else if (picked?.server) {
            await this.service.reconnect(workspacePath, picked.server);
            this.messages.info(nls.localize('qodeassist/mcp/reconnecting', 'Reconnecting {0}…', picked.server));
        }
    }
}
