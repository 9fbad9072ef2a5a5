import {
    ChatChanges, ChatFeature, eventsForView, ChatOwners, ChatRewind, ChatStore, ContentRef, ContextManifest, ImagesNotTakenError, openedForView, qodeassistHome, QodeAssistError, QodeAssistRuntime,
    RestoreMode, RestoreOutcome, RestorePreview, RestoreToResult, StoredFileEdit, WorkspaceCheckpoints, WorkspaceFiles
} from '@qodeassist/core';
import { join } from 'node:path';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { QodeAssistChatOwners, QodeAssistConfiguration, QodeAssistUserHome } from './backend-symbols';
import { ConfigurationProvider } from './workspace-configurations';
import { QodeAssistConnectionRuntime } from './connection-runtime';
import { EventCoalescer } from './event-coalescer';
import { ImagesNotTaken } from '../common/images-not-taken';
import {
    AgentChoice, ChatEvent, ChatImport, ChatInput, ChatSendOptions, ChatSkillSettings, ChatStorage, OpenedChat, QodeAssistChatClient, QodeAssistChatService, RoleChoice, SkillChoice,
    TurnPosition
} from '../common/chat-protocol';

/**
 * The chat over RPC for one frontend connection: the core's ChatFeature does the work; this
 * adapter hands it the window as its host (events joined per interval on their way to the
 * browser, notices, the tools' questions) and closes everything with the connection.
 */
@injectable()
export class QodeAssistChatServiceImpl implements QodeAssistChatService {
    private client: QodeAssistChatClient | undefined;
    private readonly feature: ChatFeature;
    /** Each chat's events on their way to the browser, deltas joined per interval. */
    private readonly outboxes = new Map<string, EventCoalescer<ChatEvent>>();

    constructor(
        @inject(QodeAssistConnectionRuntime) runtime: QodeAssistRuntime,
        @inject(QodeAssistConfiguration) configurations: ConfigurationProvider,
        @inject(QodeAssistUserHome) userHome: string,
        /** The backend's chats; absent (a test of one window), this window's own. */
        @inject(QodeAssistChatOwners) @optional() owners?: ChatOwners
    ) {
        // One registry per state dir: every window's chats share a workspace's shadow repository and its queue.
        this.feature = new ChatFeature({ runtime, configurations, userHome, owners, checkpoints: WorkspaceCheckpoints.at(join(userHome, '.qodeassist', 'checkpoints')) });
    }

    setClient(client: QodeAssistChatClient | undefined): void {
        this.client = client;
        this.feature.setHost(client && {
            onEvents: (chatId, events) => {
                // A tool result's images go to the view as their type and size: their bytes stay in the backend.
                this.outboxFor(chatId)?.push(eventsForView(events));
                if (events.some(event => event.type === 'Moved')) {
                    // Sent at once (not a delta); later events go under the new id.
                    this.closeOutbox(chatId);
                }
            },
            onNotice: (chatId, message) => client.onChatNotice(chatId, message),
            requestToolPermission: (ownerId, request) => client.requestToolPermission(ownerId, request),
            getDiagnostics: path => client.getDiagnostics(path),
            readOpenDocument: path => client.readOpenDocument(path),
            writeDocument: (path, content, options) => client.writeDocument(path, content, options),
            requestAgentPermission: (chatId, request) => {
                // The tool call the prompt is about goes first: the view shows the prompt beside it.
                this.outboxes.get(chatId)?.flush();
                return client.requestAgentPermission(chatId, request);
            }
        });
    }

    async openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        // What was held for the view before goes first: the view rebuilds from what this returns, later events follow it.
        this.outboxes.get(chatId ?? '')?.flush();
        return openedForView(await this.feature.open(storage, chatId));
    }

    send(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<string> {
        return this.feature.send(chatId, input, options);
    }

    retry(chatId: string, options: ChatSendOptions): Promise<string> {
        return this.feature.retry(chatId, options);
    }

    editAndSend(chatId: string, turn: number, input: ChatInput, options: ChatSendOptions): Promise<string> {
        return this.feature.editAndSend(chatId, turn, input, options);
    }

    resetTo(chatId: string, position: TurnPosition): Promise<void> {
        return this.feature.resetTo(chatId, position);
    }

    switchBranch(chatId: string, branchId: string): Promise<void> {
        return this.feature.switchBranch(chatId, branchId);
    }

    estimate(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<ContextManifest | undefined> {
        return this.feature.estimate(chatId, input, options);
    }

    async attach(chatId: string, name: string, mediaType: string, base64: string, options?: ChatSendOptions): Promise<ContentRef> {
        try {
            return await this.feature.attach(chatId, name, mediaType, Buffer.from(base64, 'base64'), options);
        } catch (error) {
            throw error instanceof ImagesNotTakenError ? ImagesNotTaken(error.message, { agent: error.agent, imageAgents: [...error.imageAgents] }) : error;
        }
    }

    async summarize(chatId: string, options: ChatSendOptions): Promise<OpenedChat> {
        const opened = await this.feature.summarize(chatId, options);
        this.closeOutbox(chatId);
        return openedForView(opened);
    }

    async compressIfFull(chatId: string, input: ChatInput, options: ChatSendOptions, percent: number): Promise<OpenedChat | undefined> {
        const opened = await this.feature.compressIfFull(chatId, input, options, percent);
        if (opened) {
            this.closeOutbox(chatId);
        }
        return opened && openedForView(opened);
    }

    async cancelSummary(chatId: string): Promise<void> {
        this.feature.cancelSummary(chatId);
    }

    setEditState(chatId: string, editId: string, state: StoredFileEdit['state']): Promise<void> {
        return this.feature.setEditState(chatId, editId, state);
    }

    async protectedLocation(workspacePath: string, absolutePath: string): Promise<string | undefined> {
        const files = new WorkspaceFiles([workspacePath]);
        try {
            return files.protectedLocation(files.resolve(absolutePath));
        } catch {
            // Outside the workspace or a dangling link: the edit port refuses it before writing anything.
            return undefined;
        }
    }

    cancel(chatId: string, turnId?: string): Promise<void> {
        return this.feature.cancel(chatId, turnId);
    }

    async closeSession(chatId: string): Promise<void> {
        const closing = this.feature.close(chatId);
        this.closeOutbox(chatId);
        await closing;
    }

    listChats(storage: ChatStorage): ReturnType<ChatStore['list']> {
        return this.feature.library.list(storage);
    }

    renameChat(storage: ChatStorage, chatId: string, title: string): Promise<void> {
        return this.feature.library.rename(storage, chatId, title);
    }

    deleteChat(storage: ChatStorage, chatId: string): Promise<void> {
        return this.feature.library.delete(storage, chatId);
    }

    exportChat(storage: ChatStorage, chatId: string): Promise<string> {
        return this.feature.library.exportMarkdown(storage, chatId);
    }

    exportChatJson(storage: ChatStorage, chatId: string): Promise<string> {
        return this.feature.library.exportJson(storage, chatId);
    }

    importChat(storage: ChatStorage, json: string): Promise<ChatImport> {
        return this.feature.library.importJson(storage, json);
    }

    checkpointTurns(chatId: string, workspacePath: string): Promise<number[]> {
        return this.rewind.turns(workspacePath, chatId);
    }

    previewRestore(chatId: string, workspacePath: string, turn: number): Promise<RestorePreview> {
        return this.rewind.preview(workspacePath, chatId, turn);
    }

    restoreCheckpoint(chatId: string, workspacePath: string, turn: number, mode: RestoreMode): Promise<RestoreToResult> {
        if (mode !== 'files' && mode !== 'chat' && mode !== 'both') {
            throw new QodeAssistError({ category: 'Validation', message: `"${String(mode)}" is no way to restore; pick files, chat or both.` });
        }
        return this.rewind.restore(workspacePath, chatId, turn, mode);
    }

    undoRestore(chatId: string, workspacePath: string, restore: { restoreId?: string; branchId?: string }): Promise<RestoreOutcome> {
        return this.rewind.undo(workspacePath, chatId, { restoreId: restore.restoreId ?? undefined, branchId: restore.branchId ?? undefined });
    }

    reviewChanges(chatId: string, workspacePath: string, fromTurn: number | null, toTurn: number | null): Promise<ChatChanges> {
        // JSON-RPC turns an absent argument into null.
        return this.rewind.changes(workspacePath, chatId, fromTurn ?? undefined, toTurn ?? undefined);
    }

    keepChange(chatId: string, workspacePath: string, path: string): Promise<void> {
        return this.rewind.keep(workspacePath, chatId, path);
    }

    revertChange(chatId: string, workspacePath: string, turn: number, path: string): Promise<RestoreToResult> {
        return this.rewind.revert(workspacePath, chatId, turn, path);
    }

    async listAgents(workspacePath: string | undefined): Promise<AgentChoice[]> {
        return [...this.feature.pickers.agents(workspacePath), ...await this.feature.pickers.externalAgents(workspacePath)];
    }

    setAgentMode(chatId: string, modeId: string): Promise<void> {
        return this.feature.setAgentMode(chatId, modeId);
    }

    async listRoles(workspacePath: string | undefined): Promise<RoleChoice[]> {
        return this.feature.pickers.roles(workspacePath);
    }

    async listSkills(workspacePath: string | undefined, settings?: ChatSkillSettings): Promise<SkillChoice[]> {
        return this.feature.pickers.skills(workspacePath, settings);
    }

    findFiles(workspacePath: string, query: string, options: { useGitignore: boolean }): Promise<string[]> {
        return this.feature.pickers.findFiles(workspacePath, query, options);
    }

    /** Resolves when every pending save has been written, closed chats' included. */
    saved(): Promise<void> {
        return this.feature.saved();
    }

    dispose(): void {
        this.feature.dispose();
        for (const outbox of this.outboxes.values()) {
            outbox.dispose();
        }
        this.outboxes.clear();
        this.client = undefined;
    }

    private get rewind(): ChatRewind {
        const rewind = this.feature.rewind;
        if (!rewind) {
            throw new QodeAssistError({ category: 'Config', message: 'Checkpoints are not kept in this IDE backend.' });
        }
        return rewind;
    }

    private outboxFor(chatId: string): EventCoalescer<ChatEvent> | undefined {
        let outbox = this.outboxes.get(chatId);
        if (!outbox && this.feature.isOpen(chatId)) {
            outbox = new EventCoalescer(batch => this.client?.onSessionEvents(chatId, batch));
            this.outboxes.set(chatId, outbox);
        }
        return outbox;
    }

    private closeOutbox(chatId: string): void {
        this.outboxes.get(chatId)?.dispose();
        this.outboxes.delete(chatId);
    }
}

/** The folder standing for the user's home for QodeAssist: QODEASSIST_STATE_DIR (a persistent volume on Theia Cloud), else the home. */
export function defaultUserHome(): string {
    return qodeassistHome();
}
