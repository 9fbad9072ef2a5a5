// The chat controller's world in memory (chat service, pushes, composer, view, backend) for its specs.
import type { HistoryMessage } from '@qodeassist/core';
import {
    AcpPermissionAnswer, AcpPermissionRequest, AgentChoice, CHAT_NOT_OPEN_MARK, ChatEvent, ChatInput, ChatSendOptions, ChatStorage, ContentRef, ContextManifest, OpenedChat, PermissionAnswer, PermissionRequest,
    QodeAssistChatService, RoleChoice, SkillChoice, StoredChat, ChatChanges, RestoreMode, RestoreOutcome, RestorePreview, RestoreToResult
} from '../../common/chat-protocol';
import { ChatComposerPort, ChatController, ChatControllerHost, ChatEventSource, OutgoingAttachment } from './chat-controller';
import type { BackendStatus } from './chat-reconnect';
import { textOf } from './chat-transcript';

export type Call = [method: string, ...args: unknown[]];

/**
 * The backend's chat service in memory: records every call, opens chats numbered chat-1, chat-2, …;
 * `fail` makes a method reject, `failOnce` its next call; `hold` keeps a method's next call waiting.
 * A saved chat opens as `saved` holds it; one in `missing` has no file.
 */
export class FakeChatService implements QodeAssistChatService {
    readonly calls: Call[] = [];
    readonly fail = new Map<string, Error>();
    readonly failOnce = new Map<string, Error>();
    readonly saved = new Map<string, OpenedChat>();
    readonly missing = new Set<string>();
    manifest: ContextManifest | undefined;
    summary: StoredChat | undefined;
    protected nextChat = 1;
    protected readonly held = new Map<string, Promise<Error | undefined>>();

    callsOf(method: string): unknown[][] {
        return this.calls.filter(([name]) => name === method).map(([, ...args]) => args);
    }

    /** The next call of `method` waits until the returned function is called; with an error, it then rejects. */
    hold(method: string): (error?: Error) => void {
        let release: (error?: Error) => void = () => undefined;
        this.held.set(method, new Promise(resolve => { release = resolve; }));
        return error => release(error);
    }

    protected async record<T>(method: string, args: unknown[], result: () => T): Promise<T> {
        this.calls.push([method, ...args]);
        const held = this.held.get(method);
        this.held.delete(method);
        const error = (held && await held) ?? this.failOnce.get(method) ?? this.fail.get(method);
        this.failOnce.delete(method);
        if (error) {
            throw error;
        }
        return result();
    }

    openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        return this.record('openSession', [storage, chatId], () => {
            if (chatId && this.missing.has(chatId)) {
                throw new Error(`There is no saved chat ${chatId}.`);
            }
            return chatId ? this.saved.get(chatId) ?? { chatId } : { chatId: `chat-${this.nextChat++}` };
        });
    }
    send(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<string> {
        return this.record('send', [chatId, input, options], () => 'request-1');
    }
    retry(chatId: string, options: ChatSendOptions): Promise<string> {
        return this.record('retry', [chatId, options], () => 'request-2');
    }
    cancel(chatId: string, turnId?: string): Promise<void> {
        return this.record('cancel', turnId ? [chatId, turnId] : [chatId], () => undefined);
    }
    closeSession(chatId: string): Promise<void> {
        return this.record('closeSession', [chatId], () => undefined);
    }
    attach(chatId: string, name: string, mediaType: string, base64: string): Promise<ContentRef> {
        return this.record('attach', [chatId, name, mediaType, base64], () => ({ name, mediaType }) as unknown as ContentRef);
    }
    estimate(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<ContextManifest | undefined> {
        return this.record('estimate', [chatId, input, options], () => this.manifest);
    }
    summarize(chatId: string, options: ChatSendOptions): Promise<OpenedChat> {
        return this.record('summarize', [chatId, options], () => ({ chatId: `chat-${this.nextChat++}`, chat: this.summary }));
    }
    /** Auto-compression summarizes only when `full` says the send would not fit. */
    full = false;
    compressIfFull(chatId: string, input: ChatInput, options: ChatSendOptions, percent: number): Promise<OpenedChat | undefined> {
        return this.record('compressIfFull', [chatId, input, options, percent], () => this.full ? { chatId: `chat-${this.nextChat++}`, chat: this.summary } : undefined);
    }
    cancelSummary(chatId: string): Promise<void> {
        return this.record('cancelSummary', [chatId], () => undefined);
    }
    protectedLocation(workspacePath: string, absolutePath: string): Promise<string | undefined> {
        return this.record('protectedLocation', [workspacePath, absolutePath], () => undefined);
    }
    setEditState(chatId: string, editId: string, state: 'applied' | 'undone'): Promise<void> {
        return this.record('setEditState', [chatId, editId, state], () => undefined);
    }
    listChats(): Promise<{ chats: []; unreadable: [] }> {
        return this.record('listChats', [], () => ({ chats: [], unreadable: [] }));
    }
    renameChat(): Promise<void> {
        return this.record('renameChat', [], () => undefined);
    }
    deleteChat(): Promise<void> {
        return this.record('deleteChat', [], () => undefined);
    }
    exportChat(): Promise<string> {
        return this.record('exportChat', [], () => '');
    }
    editAndSend(chatId: string, turn: number, input: ChatInput, options: ChatSendOptions): Promise<string> {
        return this.record('editAndSend', [chatId, turn, input, options], () => 'request-3');
    }
    /** The turns with a checkpoint, and what restoring and reviewing answer. */
    checkpoints: number[] = [];
    checkpointTurns(chatId: string, workspacePath: string): Promise<number[]> {
        return this.record('checkpointTurns', [chatId, workspacePath], () => this.checkpoints);
    }
    previewRestore(chatId: string, workspacePath: string, turn: number): Promise<RestorePreview> {
        return this.record('previewRestore', [chatId, workspacePath, turn], () => ({ turn, files: [], leftOut: { ignored: [], oversized: [], nestedRepositories: [] } }));
    }
    restoreCheckpoint(chatId: string, workspacePath: string, turn: number, mode: RestoreMode): Promise<RestoreToResult> {
        return this.record('restoreCheckpoint', [chatId, workspacePath, turn, mode], () => ({ turn, mode, restoreId: 'restore-1', changed: [], skipped: [] }));
    }
    undoRestore(chatId: string, workspacePath: string, restore: { restoreId?: string; branchId?: string }): Promise<RestoreOutcome> {
        return this.record('undoRestore', [chatId, workspacePath, restore], () => ({ changed: [], skipped: [] }));
    }
    reviewChanges(chatId: string, workspacePath: string, fromTurn: number | null, toTurn: number | null): Promise<ChatChanges> {
        return this.record('reviewChanges', [chatId, workspacePath, fromTurn, toTurn], () => ({ files: [] }));
    }
    keepChange(chatId: string, workspacePath: string, path: string): Promise<void> {
        return this.record('keepChange', [chatId, workspacePath, path], () => undefined);
    }
    revertChange(chatId: string, workspacePath: string, turn: number, path: string): Promise<RestoreToResult> {
        return this.record('revertChange', [chatId, workspacePath, turn, path], () => ({ turn, mode: 'files', changed: [], skipped: [] }));
    }
    resetTo(chatId: string, position: { turn: number; part: 'question' | 'answer' }): Promise<void> {
        return this.record('resetTo', [chatId, position], () => undefined);
    }
    switchBranch(chatId: string, branchId: string): Promise<void> {
        return this.record('switchBranch', [chatId, branchId], () => undefined);
    }
    exportChatJson(): Promise<string> {
        return this.record('exportChatJson', [], () => '{}');
    }
    importChat(): Promise<{ chatId: string; title: string; notes: string[] }> {
        return this.record('importChat', [], () => ({ chatId: 'imported', title: 'Imported', notes: [] }));
    }
    listAgents(): Promise<AgentChoice[]> {
        return this.record('listAgents', [], () => []);
    }
    setAgentMode(chatId: string, modeId: string): Promise<void> {
        return this.record('setAgentMode', [chatId, modeId], () => undefined);
    }
    listRoles(): Promise<RoleChoice[]> {
        return this.record('listRoles', [], () => []);
    }
    listSkills(): Promise<SkillChoice[]> {
        return this.record('listSkills', [], () => []);
    }
    findFiles(): Promise<string[]> {
        return this.record('findFiles', [], () => []);
    }
    setClient(): void { }
    dispose(): void { }
}

/** The tool-host client's side the controller listens to: the test pushes events and asks for permission as the backend would. */
export class FakeEventSource implements ChatEventSource {
    protected readonly eventListeners = new Set<(envelope: { sessionId: string; events: ChatEvent[] }) => unknown>();
    protected readonly noticeListeners = new Set<(notice: { chatId: string; message: string }) => unknown>();
    readonly handlers = new Map<string, (request: PermissionRequest) => Promise<PermissionAnswer>>();
    readonly agentHandlers = new Map<string, (request: AcpPermissionRequest) => Promise<AcpPermissionAnswer>>();

    onDidReceiveSessionEvents(listener: (envelope: { sessionId: string; events: ChatEvent[] }) => unknown): { dispose(): void } {
        this.eventListeners.add(listener);
        return { dispose: () => this.eventListeners.delete(listener) };
    }
    onDidReceiveNotice(listener: (notice: { chatId: string; message: string }) => unknown): { dispose(): void } {
        this.noticeListeners.add(listener);
        return { dispose: () => this.noticeListeners.delete(listener) };
    }
    setPermissionHandler(sessionId: string, handler: (request: PermissionRequest) => Promise<PermissionAnswer>): { dispose(): void } {
        this.handlers.set(sessionId, handler);
        return { dispose: () => this.handlers.delete(sessionId) };
    }
    setAgentPermissionHandler(chatId: string, handler: (request: AcpPermissionRequest) => Promise<AcpPermissionAnswer>): { dispose(): void } {
        this.agentHandlers.set(chatId, handler);
        return { dispose: () => this.agentHandlers.delete(chatId) };
    }
    requestAgentPermission(chatId: string, request: AcpPermissionRequest): Promise<AcpPermissionAnswer> {
        const handler = this.agentHandlers.get(chatId);
        return handler ? handler(request) : Promise.resolve({ cancelled: true });
    }

    async push(sessionId: string, ...events: ChatEvent[]): Promise<void> {
        for (const listener of this.eventListeners) {
            listener({ sessionId, events });
        }
        await settle();
    }
    async notice(chatId: string, message: string): Promise<void> {
        for (const listener of this.noticeListeners) {
            listener({ chatId, message });
        }
        await settle();
    }
    requestPermission(sessionId: string, request: PermissionRequest): Promise<PermissionAnswer> {
        const handler = this.handlers.get(sessionId);
        return handler ? handler(request) : Promise.resolve('deny');
    }
}

export const OPTIONS: ChatSendOptions = { workspacePath: '/work/app', agent: 'claude-chat', role: 'reviewer', linked: ['/work/app/a.ts'] };

export class FakeComposer implements ChatComposerPort {
    agentEvents: ChatEvent[] = [];
    followAgent(events: readonly ChatEvent[]): void {
        this.agentEvents.push(...events);
    }
    attachments: OutgoingAttachment[] = [];
    /** The texts given back with `restoreDraft`. */
    restored: string[] = [];
    problem: string | undefined;
    skillChoices: SkillChoice[] = [];
    takeError: Error | undefined;
    estimatesScheduled = 0;
    followed: OpenedChat[] = [];

    sendOptions(): ChatSendOptions {
        return OPTIONS;
    }
    skills(): readonly SkillChoice[] {
        return this.skillChoices;
    }
    hasAttachments(): boolean {
        return this.attachments.length > 0;
    }
    attachmentRefs(): ContentRef[] {
        return this.attachments.map(attachment => attachment.ref);
    }
    async take(): Promise<OutgoingAttachment[]> {
        if (this.takeError) {
            throw this.takeError;
        }
        const taken = this.attachments;
        this.attachments = [];
        return taken;
    }
    restoreDraft(text: string): void {
        this.restored.push(text);
    }
    showProblem(reason: string | undefined): void {
        this.problem = reason;
    }
    scheduleEstimate(): void {
        this.estimatesScheduled++;
    }
    async follow(opened: OpenedChat): Promise<void> {
        this.followed.push(opened);
    }
}

export class FakeHost implements ChatControllerHost {
    percent = 0;
    off: string | undefined;
    updates = 0;
    /** `ended` of every render of the streaming answer. */
    streams: boolean[] = [];
    setupChecks = 0;
    shown: OpenedChat[] = [];

    historyLocation(): ChatStorage['location'] {
        return 'workspace';
    }
    workspacePath(): string | undefined {
        return '/work/app';
    }
    autoCompressPercent(): number {
        return this.percent;
    }
    offReason(): string | undefined {
        return this.off;
    }
    update(): void {
        this.updates++;
    }
    streamed(ended: boolean): void {
        this.streams.push(ended);
    }
    checkSetup(): void {
        this.setupChecks++;
    }
    chatShown(opened: OpenedChat): void {
        this.shown.push(opened);
    }
}

/** The backend connection as the test moves it away and back. */
export class FakeBackend implements BackendStatus {
    away = false;
    protected readonly changeListeners = new Set<(away: boolean) => unknown>();
    protected readonly reconnectListeners = new Set<() => unknown>();

    onDidChange(listener: (away: boolean) => unknown): { dispose(): void } {
        this.changeListeners.add(listener);
        return { dispose: () => this.changeListeners.delete(listener) };
    }
    onDidReconnect(listener: () => unknown): { dispose(): void } {
        this.reconnectListeners.add(listener);
        return { dispose: () => this.reconnectListeners.delete(listener) };
    }
    leave(): void {
        this.away = true;
        this.changeListeners.forEach(listener => listener(true));
    }
    async return(): Promise<void> {
        this.away = false;
        this.changeListeners.forEach(listener => listener(false));
        this.reconnectListeners.forEach(listener => listener());
        await settle();
    }
}

/** Lets the controller's awaited promises and listeners run. */
export function settle(): Promise<void> {
    return new Promise(resolve => setImmediate(resolve));
}

export function setup() {
    const service = new FakeChatService();
    const client = new FakeEventSource();
    const composer = new FakeComposer();
    const host = new FakeHost();
    const backend = new FakeBackend();
    const undone: string[] = [];
    const controller = new ChatController({
        service, client, composer, host, backend,
        edits: { undo: async record => { undone.push(record.path); }, reapply: async () => undefined }
    });
    return { service, client, composer, host, backend, controller, undone };
}

/** The input of the n-th send. */
export function sentInput(service: FakeChatService, index: number): ChatInput {
    return service.callsOf('send')[index][1] as ChatInput;
}

export const userMessage = (text: string): HistoryMessage => ({ role: 'user', blocks: [{ type: 'text', text }] });
export const answerMessage = (text: string, interrupted?: boolean): HistoryMessage => ({ role: 'assistant', blocks: [{ type: 'text', text }], ...(interrupted ? { interrupted } : {}) });
export const storedChat = (id: string, history: HistoryMessage[]): StoredChat => ({ version: 1, id, title: 'A chat', createdAt: '', updatedAt: '', edits: {}, history });
export const NOT_OPEN = new Error(`The chat chat-1 ${CHAT_NOT_OPEN_MARK} (it was closed, or the backend restarted); open it again from the chat history.`);
export const shape = (parts: ReturnType<typeof setup>) => parts.controller.transcript.messages.map(message => [message.role, textOf(message), message.status]);

/** A chat with one finished turn, as the events of a whole request leave it. */
export async function withFinishedTurn(parts: ReturnType<typeof setup>): Promise<void> {
    await parts.controller.send('first question');
    await parts.client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'TextDelta', requestId: 'r1', text: 'first answer' },
        { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
}

export const attachment = (name: string): OutgoingAttachment => ({ ref: { name } as unknown as ContentRef, view: { name, mediaType: 'text/plain' } });
