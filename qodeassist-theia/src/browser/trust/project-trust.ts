import { DisposableCollection, Emitter, nls } from '@theia/core';
import { FrontendApplicationContribution } from '@theia/core/lib/browser';
import { ConnectionStatus, ConnectionStatusService } from '@theia/core/lib/browser/connection-status-service';
import { StatusBar, StatusBarAlignment } from '@theia/core/lib/browser/status-bar/status-bar';
import { inject, injectable } from '@theia/core/shared/inversify';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { WorkspaceRestriction, WorkspaceRestrictionContribution, WorkspaceTrustService } from '@theia/workspace/lib/browser/workspace-trust-service';
import { ProjectTrustState, QodeAssistConfigService } from '../../common/config-protocol';

const STATUS_ID = 'qodeassist-project-trust';

/**
 * Carries Theia's workspace trust to the backend, where the project layer (`.qodeassist/**`,
 * `.claude/skills`, project MCP servers) is read only for trusted folders, and shows what an
 * untrusted workspace leaves unread: a status bar item, a line in Theia's restricted-mode
 * tooltip, and the state the chat and the configuration view show with their Trust button.
 */
@injectable()
export class QodeAssistProjectTrust implements FrontendApplicationContribution, WorkspaceRestrictionContribution {
    @inject(WorkspaceTrustService) protected readonly trustService: WorkspaceTrustService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(QodeAssistConfigService) protected readonly config: QodeAssistConfigService;
    @inject(StatusBar) protected readonly statusBar: StatusBar;
    @inject(ConnectionStatusService) protected readonly connection: ConnectionStatusService;

    protected readonly onDidChangeEmitter = new Emitter<ProjectTrustState | undefined>();
    readonly onDidChange = this.onDidChangeEmitter.event;
    protected readonly toDispose = new DisposableCollection(this.onDidChangeEmitter);
    protected current: ProjectTrustState | undefined;

    /** The first workspace folder's state (the one the chat and the views configure from); undefined before the first answer. */
    get state(): ProjectTrustState | undefined {
        return this.current;
    }

    onStart(): void {
        // Until the user answers Theia's trust prompt the backend reads nothing of the project: show that at once.
        void this.workspace.ready.then(() => this.refresh());
        void this.trustService.getWorkspaceTrust().then(() => this.report());
        this.toDispose.push(this.trustService.onDidChangeWorkspaceTrust(() => void this.report()));
        this.toDispose.push(this.workspace.onWorkspaceChanged(() => void this.report()));
        // A restarted backend has forgotten every answer: tell it again.
        this.toDispose.push(this.connection.onStatusChange(status => status === ConnectionStatus.ONLINE && void this.report()));
    }

    onStop(): void {
        this.toDispose.dispose();
    }

    /** Asks the user through Theia's own trust dialog; the backend loads the project layer once they agree. */
    async requestTrust(): Promise<void> {
        await this.trustService.requestWorkspaceTrust();
        await this.report();
    }

    getRestrictions(): WorkspaceRestriction[] {
        return this.current?.skipped.length
            ? [{ label: nls.localize('qodeassist/trust/restriction', 'QodeAssist project configuration (agents, providers, skills, MCP servers)'), details: this.current.skipped }]
            : [];
    }

    /** Reports the trust of every workspace folder; the state shown is the first folder's. */
    protected async report(): Promise<void> {
        const trusted = await this.trustService.getWorkspaceTrust().catch(() => false);
        const roots = this.workspace.tryGetRoots().map(root => root.resource.path.fsPath());
        const states = await Promise.all(roots.map(root => this.config.setWorkspaceTrust(root, trusted).catch(() => undefined)));
        this.show(states[0]);
    }

    protected async refresh(): Promise<void> {
        const first = this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
        this.show(first ? await this.config.projectTrust(first).catch(() => undefined) : undefined);
    }

    protected show(state: ProjectTrustState | undefined): void {
        this.current = state;
        if (state && !state.trusted && state.skipped.length) {
            this.statusBar.setElement(STATUS_ID, {
                text: `$(shield) ${nls.localize('qodeassist/trust/status', 'QodeAssist: project config not loaded')}`,
                tooltip: `${state.notice ?? ''}\n${nls.localize('qodeassist/trust/statusHint', 'Click to trust this workspace.')}`,
                alignment: StatusBarAlignment.LEFT, priority: 5,
                onclick: () => void this.requestTrust()
            });
        } else {
            void this.statusBar.removeElement(STATUS_ID);
        }
        this.trustService.refreshRestrictedModeIndicator();
        this.onDidChangeEmitter.fire(state);
    }
}
