import { ILogger } from '@theia/core';
import { FrontendApplicationContribution } from '@theia/core/lib/browser';
import { inject, injectable } from '@theia/core/shared/inversify';
import { createToolCallError, ToolInvocationContext, ToolInvocationRegistry, ToolRequest, ToolRequestParameters } from '@theia/ai-core/lib/common';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { ChatToolSettings } from '../../common/chat-protocol';
import { McpClientImpl } from '../mcp/mcp-contribution';
import { QodeAssistLanguageModelsService, QodeAssistTheiaToolsService, TheiaToolInfo } from '../../common/theia-tools-protocol';
import { QodeAssistPreferences, toolSettingsOf } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { firstRootPath } from '../workspace-paths';

/** The provider name QodeAssist's tools carry in Theia AI (its tool settings group them by it). */
export const THEIA_TOOL_PROVIDER = 'QodeAssist';

/** Theia's id for a QodeAssist tool: prefixed, so it never shadows Theia's own tools of the same name. */
export function theiaToolId(name: string): string {
    return `qodeassist_${name}`;
}

/** Providers reject a whole request when one function name is longer than this. */
const MAX_TOOL_NAME = 64;

/**
 * QodeAssist in Theia AI. Its chat agents (the [chat] roster) become language models
 * `qodeassist/<agent>` that Theia's agents can run on. Its ToolKit: every enabled tool (built-in, and the MCP hub's as their
 * servers come and go) is registered in Theia's tool registry as `qodeassist_<name>`, so
 * Theia's own agents can call it with `~{qodeassist_read_file}`. Theia's chat confirms each
 * call (write and execute tools never get "always allow" without an extra warning); the call
 * runs in the backend confined to the first workspace folder, as the QodeAssist chat's would.
 * The list follows the workspace, the tool preferences, QodeAssist's on/off switch and MCP.
 */
@injectable()
export class TheiaAiBridge implements FrontendApplicationContribution {
    @inject(ToolInvocationRegistry) protected readonly registry: ToolInvocationRegistry;
    @inject(QodeAssistTheiaToolsService) protected readonly service: QodeAssistTheiaToolsService;
    @inject(QodeAssistLanguageModelsService) protected readonly languageModels: QodeAssistLanguageModelsService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;
    @inject(McpClientImpl) protected readonly mcp: McpClientImpl;
    @inject(ILogger) protected readonly logger: ILogger;

    private refreshing: Promise<void> = Promise.resolve();

    onStart(): void {
        const refresh = () => {
            this.refreshing = this.refreshing.then(() => this.refresh(), () => this.refresh());
        };
        this.workspace.onWorkspaceChanged(refresh);
        this.preferences.onPreferenceChanged(change => {
            if (change.preferenceName.startsWith('qodeassist.tools.') || change.preferenceName === 'qodeassist.build.command') {
                refresh();
            }
        });
        this.qodeAssistSwitch.onDidChange(refresh);
        this.mcp.onDidChange(refresh);
        void this.workspace.roots.then(refresh);
    }

    /** Registers the tools anew; the list from the backend is the truth. */
    protected async refresh(): Promise<void> {
        const root = firstRootPath(this.workspace);
        const settings = toolSettingsOf(this.preferences);
        const enabled = !this.qodeAssistSwitch.offReason;
        let tools: TheiaToolInfo[] = [];
        try {
            await this.languageModels.publish(root, enabled);
            if (root && enabled) {
                tools = await this.service.tools(root, settings);
            }
        } catch (error) {
            this.logger.warn(`QodeAssist could not offer its tools and agents to Theia AI: ${error instanceof Error ? error.message : String(error)}`);
        }
        this.registry.unregisterAllTools(THEIA_TOOL_PROVIDER);
        for (const tool of tools) {
            if (theiaToolId(tool.name).length <= MAX_TOOL_NAME) {
                this.registry.registerTool(this.toRequest(tool, root!, settings));
            }
        }
    }

    protected toRequest(tool: TheiaToolInfo, root: string, settings: ChatToolSettings): ToolRequest {
        const id = theiaToolId(tool.name);
        const schema = tool.parameters as Partial<ToolRequestParameters>;
        return {
            id,
            name: id,
            providerName: THEIA_TOOL_PROVIDER,
            description: tool.description,
            parameters: { type: 'object', properties: schema.properties ?? {}, ...(schema.required ? { required: schema.required } : {}) },
            ...(tool.permission === 'read' ? {} : {
                confirmAlwaysAllow: tool.permission === 'write'
                    ? `QodeAssist's ${tool.name} changes files in ${root} without asking again.`
                    : `QodeAssist's ${tool.name} runs programs in ${root} without asking again.`
            }),
            handler: async (args: string, context?: ToolInvocationContext) => {
                const callId = context?.toolCallId ?? `${id}-${Date.now()}`;
                const cancel = context?.cancellationToken?.onCancellationRequested(() => void this.service.cancel(callId));
                try {
                    const result = await this.service.run(root, settings, { id: callId, name: tool.name, arguments: args });
                    return result.isError ? createToolCallError(result.content) : result.content;
                } finally {
                    cancel?.dispose();
                }
            }
        };
    }
}
