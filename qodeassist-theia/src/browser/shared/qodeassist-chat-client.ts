import { Emitter, Event } from '@theia/core';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable } from '@theia/core/shared/inversify';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import { ProblemManager } from '@theia/markers/lib/browser/problem/problem-manager';
import { AcpPermissionAnswer, AcpPermissionRequest, ChatEvent, Diagnostic, PermissionAnswer, PermissionRequest, QodeAssistChatClient } from '../../common/chat-protocol';
import { QodeAssistRefactorClient, RefactorProgress } from '../../common/refactor-protocol';
import { toDiagnostics } from './diagnostics-conversion';
import { ChatFileEdits } from './file-edits';

export interface SessionEventsEnvelope {
    sessionId: string;
    events: ChatEvent[];
}

/**
 * Receives what the backend pushes — chat session events, refactor progress — and fans it out;
 * each chat widget and inline refactor listens for its own id. It also answers the backend's
 * ToolHostClient calls (permission, open documents, diagnostics, writes) for the chat, the
 * refactor, the MCP server and Theia AI's tools.
 */
@injectable()
export class QodeAssistChatClientImpl implements QodeAssistChatClient, QodeAssistRefactorClient {
    @inject(ProblemManager) protected readonly problems: ProblemManager;
    @inject(EditorManager) protected readonly editors: EditorManager;
    @inject(ChatFileEdits) protected readonly fileEdits: ChatFileEdits;

    private readonly onSessionEventsEmitter = new Emitter<SessionEventsEnvelope>();
    readonly onDidReceiveSessionEvents: Event<SessionEventsEnvelope> = this.onSessionEventsEmitter.event;

    private readonly onNoticeEmitter = new Emitter<{ chatId: string; message: string }>();
    readonly onDidReceiveNotice: Event<{ chatId: string; message: string }> = this.onNoticeEmitter.event;

    private readonly onRefactorProgressEmitter = new Emitter<{ id: string; progress: RefactorProgress[] }>();
    readonly onDidReceiveRefactorProgress: Event<{ id: string; progress: RefactorProgress[] }> = this.onRefactorProgressEmitter.event;

    private readonly permissionHandlers = new Map<string, (request: PermissionRequest) => Promise<PermissionAnswer>>();
    private readonly agentPermissionHandlers = new Map<string, (request: AcpPermissionRequest) => Promise<AcpPermissionAnswer>>();

    onSessionEvents(sessionId: string, events: ChatEvent[]): void {
        this.onSessionEventsEmitter.fire({ sessionId, events });
    }

    onRefactorProgress(id: string, progress: RefactorProgress[]): void {
        this.onRefactorProgressEmitter.fire({ id, progress });
    }

    /** The chat widget or inline refactor showing this session answers; without one, nothing runs. */
    async requestToolPermission(sessionId: string, request: PermissionRequest): Promise<PermissionAnswer> {
        const handler = this.permissionHandlers.get(sessionId);
        return handler ? handler(request) : 'deny';
    }

    /** The chat view showing this chat asks with the external agent's own options; without one, nothing is allowed. */
    async requestAgentPermission(chatId: string, request: AcpPermissionRequest): Promise<AcpPermissionAnswer> {
        const handler = this.agentPermissionHandlers.get(chatId);
        return handler ? handler(request) : { cancelled: true };
    }

    setAgentPermissionHandler(chatId: string, handler: (request: AcpPermissionRequest) => Promise<AcpPermissionAnswer>): { dispose(): void } {
        this.agentPermissionHandlers.set(chatId, handler);
        return { dispose: () => this.agentPermissionHandlers.delete(chatId) };
    }

    async getDiagnostics(path?: string): Promise<Diagnostic[]> {
        const markers = this.problems.findMarkers(path ? { uri: URI.fromFilePath(path) } : undefined);
        return toDiagnostics(markers.map(marker => ({ uri: marker.uri, diagnostic: marker.data })));
    }

    async readOpenDocument(path: string): Promise<string | undefined> {
        const widget = this.editors.all.find(candidate => candidate.editor.uri.scheme === 'file' && candidate.editor.uri.path.fsPath() === path);
        return widget?.editor.document.getText();
    }

    onChatNotice(chatId: string, message: string): void {
        this.onNoticeEmitter.fire({ chatId, message });
    }

    async writeDocument(path: string, content: string, options: { created: boolean }): Promise<void> {
        await this.fileEdits.write(path, content, options);
    }

    setPermissionHandler(sessionId: string, handler: (request: PermissionRequest) => Promise<PermissionAnswer>): { dispose(): void } {
        this.permissionHandlers.set(sessionId, handler);
        return { dispose: () => this.permissionHandlers.delete(sessionId) };
    }
}
