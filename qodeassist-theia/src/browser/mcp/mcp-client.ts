import type { PermissionAnswer, PermissionRequest } from '@qodeassist/core';
import { Emitter, Event } from '@theia/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { McpToolPrompt, QodeAssistMcpClient } from '../../common/mcp-protocol';
import { QodeAssistChatClientImpl } from '../shared/qodeassist-chat-client';
import { McpToolPermissionDialog } from './mcp-dialogs';

/** What the backend's MCP side asks of this window: permission for outside clients' tool calls, and the editors. */
@injectable()
export class McpClientImpl implements QodeAssistMcpClient {
    @inject(QodeAssistChatClientImpl) protected readonly host: QodeAssistChatClientImpl;

    private readonly onDidChangeEmitter = new Emitter<void>();
    /** A hub's servers or the server mode changed (the servers list is read when shown; the tools Theia AI sees follow this). */
    readonly onDidChange: Event<void> = this.onDidChangeEmitter.event;

    onMcpChanged(): void {
        this.onDidChangeEmitter.fire();
    }

    /** Outside clients are asked about through requestMcpToolPermission, which carries what the prompt must show; anything else is a no. */
    async requestToolPermission(_sessionId: string, _request: PermissionRequest): Promise<PermissionAnswer> {
        return 'deny';
    }

    /** One modal prompt at a time: several clients asking at once are shown one after another. */
    protected prompting: Promise<unknown> = Promise.resolve();

    requestMcpToolPermission(prompt: McpToolPrompt): Promise<PermissionAnswer> {
        const answer = this.prompting.then(async () => await new McpToolPermissionDialog(prompt).open() ?? 'deny').catch(() => 'deny' as const);
        this.prompting = answer;
        return answer;
    }

    getDiagnostics(path?: string): ReturnType<QodeAssistMcpClient['getDiagnostics']> {
        return this.host.getDiagnostics(path);
    }

    readOpenDocument(path: string): Promise<string | undefined> {
        return this.host.readOpenDocument(path);
    }

    writeDocument(path: string, content: string, options: { created: boolean }): Promise<void> {
        return this.host.writeDocument(path, content, options);
    }
}
