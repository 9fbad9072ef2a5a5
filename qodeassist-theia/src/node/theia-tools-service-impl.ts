import { CancelledError, QodeAssistRuntime, ToolKitExecutor } from '@qodeassist/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { ChatToolSettings } from '../common/chat-protocol';
import { QodeAssistTheiaToolsService, TheiaToolCall, TheiaToolInfo } from '../common/theia-tools-protocol';
import { ToolHostClient } from '../common/tool-host-protocol';
import { WorkspaceTrustRegistry } from './workspace-trust';
import { QodeAssistConnectionRuntime } from './connection-runtime';

/**
 * The ToolKit for Theia AI's agents, per frontend connection: one executor per workspace and
 * tool settings from the connection's runtime (confined to that folder, the user's disabled tools
 * left out, the MCP hub's tools included), and an abort handle per running call.
 */
@injectable()
export class QodeAssistTheiaToolsServiceImpl implements QodeAssistTheiaToolsService {
    private client: ToolHostClient | undefined;
    private readonly executors = new Map<string, ToolKitExecutor>();
    private readonly running = new Map<string, AbortController>();

    constructor(
        @inject(QodeAssistConnectionRuntime) private readonly runtime: QodeAssistRuntime,
        @inject(WorkspaceTrustRegistry) @optional() private readonly trust?: WorkspaceTrustRegistry
    ) { }

    setClient(client: ToolHostClient | undefined): void {
        this.client = client;
        this.executors.clear();
    }

    async tools(workspace: string, settings: ChatToolSettings): Promise<TheiaToolInfo[]> {
        return this.executorFor(workspace, settings).catalog();
    }

    async run(workspace: string, settings: ChatToolSettings, call: TheiaToolCall): Promise<{ content: string; isError: boolean }> {
        let args: unknown;
        try {
            args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
        } catch (error) {
            return { isError: true, content: `The arguments for ${call.name} are not valid JSON (${error instanceof Error ? error.message : String(error)}). Call it again with a JSON object.` };
        }
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
            return { isError: true, content: `The arguments for ${call.name} must be a JSON object, not ${Array.isArray(args) ? 'an array' : typeof args}.` };
        }
        const abort = new AbortController();
        this.running.set(call.id, abort);
        try {
            const result = await this.executorFor(workspace, settings).execute(
                { callId: call.id, name: call.name, arguments: args as Record<string, unknown> }, { requestId: `theia:${call.id}`, signal: abort.signal }
            );
            return { content: result.content, isError: result.isError ?? false };
        } catch (error) {
            if (error instanceof CancelledError) {
                return { isError: true, content: `${call.name} was cancelled.` };
            }
            throw error;
        } finally {
            this.running.delete(call.id);
        }
    }

    async cancel(callId: string): Promise<void> {
        this.running.get(callId)?.abort();
    }

    dispose(): void {
        for (const abort of this.running.values()) {
            abort.abort();
        }
        this.running.clear();
        this.executors.clear();
    }

    private executorFor(workspace: string, settings: ChatToolSettings): ToolKitExecutor {
        const projectTrusted = this.trust?.isTrusted(workspace) ?? false;
        const key = JSON.stringify([workspace, settings, projectTrusted]);
        let executor = this.executors.get(key);
        if (!executor) {
            if (this.executors.size >= 8) {
                // Settings changed many times in one window: the old combinations are not coming back.
                this.executors.clear();
            }
            executor = this.runtime.toolKit({ host: this.client, ownerId: 'theia-ai', workspace, projectTrusted, settings, confirmedByCaller: true });
            this.executors.set(key, executor);
        }
        return executor;
    }
}
