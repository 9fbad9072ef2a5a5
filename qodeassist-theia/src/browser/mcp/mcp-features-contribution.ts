import { FrontendApplicationContribution } from '@theia/core/lib/browser';
import { inject, injectable } from '@theia/core/shared/inversify';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { QodeAssistMcpFeaturesService } from '../../common/mcp-features-protocol';
import { BackendConnection } from '../connection/backend-connection';
import { McpElicitations } from './mcp-elicitations';

/**
 * Tells the backend which workspace this window shows and its folders (sent to the MCP servers
 * as roots, again whenever they change or the backend comes back), so the servers' questions are shown here; form values
 * are checked by the backend's own check.
 */
@injectable()
export class McpFeaturesContribution implements FrontendApplicationContribution {
    @inject(QodeAssistMcpFeaturesService) protected readonly service: QodeAssistMcpFeaturesService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(McpElicitations) protected readonly elicitations: McpElicitations;
    @inject(BackendConnection) protected readonly backend: BackendConnection;

    onStart(): void {
        this.elicitations.check = (fields, values) => this.service.formProblem(fields, values);
        void this.workspace.ready.then(() => this.sendRoots());
        this.workspace.onWorkspaceChanged(() => this.sendRoots());
        // A restarted backend knows no window: say again which workspace this one shows.
        this.backend.onDidReconnect(() => this.sendRoots());
    }

    protected sendRoots(): Promise<void> {
        const folders = this.workspace.tryGetRoots().map(root => root.resource.path.fsPath());
        return this.service.watch(folders[0], folders).catch(() => undefined);
    }
}
