import * as assert from 'node:assert/strict';
import type { HistoryMessage } from '@qodeassist/core';
import {
    AcpPermissionAnswer, AcpPermissionRequest, AgentChoice, CHAT_NOT_OPEN_MARK, ChatEvent, ChatInput, ChatSendOptions, ChatStorage, ContentRef, ContextManifest, OpenedChat, PermissionAnswer, PermissionRequest,
    QodeAssistChatService, RoleChoice, SkillChoice, StoredChat, ChatChanges, RestoreMode, RestoreOutcome, RestorePreview, RestoreToResult
} from '../../common/chat-protocol';
import { ChatComposerPort, ChatController, ChatControllerHost, ChatEventSource, OutgoingAttachment } from './chat-controller';
import { BACKEND_AWAY_PROBLEM, BackendStatus } from './chat-reconnect';
import { textOf } from './chat-transcript';

type Call = [method: string, ...args: unknown[]];

/**
 * The backend's chat service in memory: records every call, opens chats numbered chat-1, chat-2, …;
 * `fail` makes a method reject, `failOnce` its next call; `hold` keeps a method's next call waiting.
 * A saved chat opens as `saved` holds it; one in `missing` has no file.
 */
class FakeChatService implements QodeAssistChatService {
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
class FakeEventSource implements ChatEventSource {
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

const OPTIONS: ChatSendOptions = { workspacePath: '/work/app', agent: 'claude-chat', role: 'reviewer', linked: ['/work/app/a.ts'] };

class FakeComposer implements ChatComposerPort {
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

class FakeHost implements ChatControllerHost {
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
class FakeBackend implements BackendStatus {
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
function settle(): Promise<void> {
    return new Promise(resolve => setImmediate(resolve));
}

function setup() {
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
function sentInput(service: FakeChatService, index: number): ChatInput {
    return service.callsOf('send')[index][1] as ChatInput;
}

const userMessage = (text: string): HistoryMessage => ({ role: 'user', blocks: [{ type: 'text', text }] });
const answerMessage = (text: string, interrupted?: boolean): HistoryMessage => ({ role: 'assistant', blocks: [{ type: 'text', text }], ...(interrupted ? { interrupted } : {}) });
const storedChat = (id: string, history: HistoryMessage[]): StoredChat => ({ version: 1, id, title: 'A chat', createdAt: '', updatedAt: '', edits: {}, history });
const NOT_OPEN = new Error(`The chat chat-1 ${CHAT_NOT_OPEN_MARK} (it was closed, or the backend restarted); open it again from the chat history.`);
const shape = (parts: ReturnType<typeof setup>) => parts.controller.transcript.messages.map(message => [message.role, textOf(message), message.status]);

/** A chat with one finished turn, as the events of a whole request leave it. */
async function withFinishedTurn(parts: ReturnType<typeof setup>): Promise<void> {
    await parts.controller.send('first question');
    await parts.client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'TextDelta', requestId: 'r1', text: 'first answer' },
        { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
}

const attachment = (name: string): OutgoingAttachment => ({ ref: { name } as unknown as ContentRef, view: { name, mediaType: 'text/plain' } });

describe('ChatController', () => {
    describe('send', () => {
        it('opens the chat on first use and sends the text, the attachments and the composer\'s options', async () => {
            const { service, composer, controller } = setup();
            composer.attachments = [attachment('notes.md')];
            await controller.send('  explain this  ');
            assert.deepEqual(service.callsOf('openSession'), [[{ location: 'workspace', workspacePath: '/work/app' }, undefined]]);
            const { turnId } = sentInput(service, 0);
            assert.match(turnId!, /^[0-9a-f]{32}$/);
            assert.deepEqual(service.callsOf('send'), [['chat-1', { text: 'explain this', attachments: [{ name: 'notes.md' }], turnId }, OPTIONS]]);
            const [user, answer] = controller.transcript.messages;
            assert.deepEqual([textOf(user), user.attachments, answer.status], ['explain this', [{ name: 'notes.md', mediaType: 'text/plain' }], 'streaming']);
            assert.deepEqual(controller.savedChat, { chatId: 'chat-1', location: 'workspace' });
            assert.equal(await controller.currentChatId(), 'chat-1');
        });

        it('shows a known /skill as an invocation with the rest as its text, and sends the message as typed', async () => {
            const { service, composer, controller } = setup();
            composer.skillChoices = [{ name: 'review', description: 'Reviews code' } as SkillChoice];
            await controller.send('/review the parser');
            const [user] = controller.transcript.messages;
            assert.deepEqual([user.skill, textOf(user)], ['review', 'the parser']);
            assert.equal((service.callsOf('send')[0][1] as ChatInput).text, '/review the parser');
        });

        it('sends nothing for an empty draft, or while an answer streams', async () => {
            const { service, controller } = setup();
            await controller.send('   ');
            assert.deepEqual(service.calls, []);
            await controller.send('one');
            await controller.send('two');
            assert.equal(service.callsOf('send').length, 1);
        });

        it('says why in the composer when QodeAssist is off, and sends nothing', async () => {
            const { service, composer, host, controller } = setup();
            host.off = 'QodeAssist is off for this project.';
            await controller.send('hello');
            assert.equal(composer.problem, 'QodeAssist is off for this project.');
            assert.deepEqual([service.calls, controller.transcript.messages], [[], []]);
        });

        it('gives each send its own turn id', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.send('second');
            assert.notEqual(sentInput(parts.service, 0).turnId, sentInput(parts.service, 1).turnId);
        });

        it('refuses to send while the backend is away: the draft and its attachments stay in the composer, nothing is shown or sent', async () => {
            const { service, composer, backend, controller } = setup();
            composer.attachments = [attachment('notes.md')];
            backend.leave();
            await controller.send('hello');
            assert.equal(composer.problem, BACKEND_AWAY_PROBLEM);
            assert.deepEqual([service.calls, controller.transcript.messages, composer.attachments.length], [[], [], 1]);
            await backend.return();
            assert.equal(composer.problem, undefined, 'the composer stops saying so once the backend is back');
        });

        it('keeps the chat and gives the message back to the composer when the connection drops during the send; no answer fails', async () => {
            const parts = setup();
            const { service, composer, backend, controller } = parts;
            await withFinishedTurn(parts);
            const release = service.hold('send');
            const sending = controller.send('second question');
            await settle();
            assert.deepEqual(shape(parts).at(-1), ['assistant', '', 'streaming']);
            backend.leave();
            assert.equal(controller.transcript.messages[3].stalled, true, 'the answer says it waits for the backend instead of spinning');
            release(new Error('reconnecting channel'));
            await sending;
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done']]);
            assert.deepEqual([composer.restored, composer.problem, await controller.currentChatId()], [['second question'], BACKEND_AWAY_PROBLEM, 'chat-1']);
        });

        it('says that the backend is away even while an answer waits for it, and sends nothing', async () => {
            const { service, composer, backend, controller } = setup();
            await controller.send('hi');
            backend.leave();
            await controller.send('typed while away');
            assert.deepEqual([composer.problem, service.callsOf('send').length, controller.transcript.messages.length], [BACKEND_AWAY_PROBLEM, 1, 2]);
        });

        it('keeps a message the backend recorded when only the reply of its send was lost', async () => {
            const parts = setup();
            const { service, client, composer, backend, controller } = parts;
            await controller.ensureChat();
            const release = service.hold('send');
            const sending = controller.send('hi');
            await settle();
            await client.push('chat-1', { type: 'UserMessage', turnId: sentInput(service, 0).turnId, message: userMessage('hi') }, { type: 'RequestStarted', requestId: 'r1' });
            backend.leave();
            release(new Error('reconnecting channel'));
            await sending;
            assert.deepEqual(shape(parts), [['user', 'hi', 'done'], ['assistant', '', 'streaming']]);
            assert.deepEqual([composer.restored, composer.problem], [[], undefined]);
        });

        it('opens the chat again under the same id and sends once more when the backend no longer holds it (it restarted)', async () => {
            const parts = setup();
            const { service, composer, controller } = parts;
            await withFinishedTurn(parts);
            service.saved.set('chat-1', { chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer')]) });
            service.failOnce.set('send', NOT_OPEN);
            await controller.send('second question');
            assert.deepEqual(service.callsOf('openSession').map(([, chatId]) => chatId), [undefined, 'chat-1']);
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-1', 'chat-1', 'chat-1']);
            assert.equal(sentInput(service, 1).turnId, sentInput(service, 2).turnId);
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done'], ['user', 'second question', 'done'], ['assistant', '', 'streaming']]);
            assert.deepEqual([composer.restored, composer.problem], [[], undefined]);
        });

        it('ends this view\'s answer when the resend after a reopen fails to start (the backend names the turn): nothing keeps streaming', async () => {
            const parts = setup();
            const { service, client, controller } = parts;
            await withFinishedTurn(parts);
            service.saved.set('chat-1', { chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer')]) });
            service.failOnce.set('send', NOT_OPEN);
            await controller.send('second question');
            const { turnId } = sentInput(service, 2);
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'rF', turnId },
                { type: 'Failed', requestId: 'rF', error: { category: 'Auth', message: 'no key' } });
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done'], ['user', 'second question', 'done'], ['assistant', '', 'failed']]);
            assert.equal(controller.busy, false);
        });

        it('starts a new chat when the backend no longer holds one that never had a message', async () => {
            const { service, controller } = setup();
            await controller.ensureChat();
            service.missing.add('chat-1');
            service.failOnce.set('send', NOT_OPEN);
            await controller.send('hello');
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-1', 'chat-2']);
            assert.equal(await controller.currentChatId(), 'chat-2');
        });

        it('keeps the draft and says why when the backend takes no message though it is reachable', async () => {
            const { service, composer, controller } = setup();
            service.fail.set('send', new Error('Request \'send\' failed'));
            await controller.send('hello');
            assert.deepEqual([controller.transcript.messages, composer.restored], [[], ['hello']]);
            assert.equal(composer.problem, 'The QodeAssist backend could not take the message: Request \'send\' failed');
            assert.equal(await controller.currentChatId(), 'chat-1');
        });

        it('keeps the draft and shows the problem when an attachment cannot go, before any turn begins', async () => {
            const { service, composer, controller } = setup();
            composer.takeError = new Error('"big.png" is 9.0 MB; the chat takes images up to 5.0 MB.');
            await controller.send('look');
            assert.equal(composer.problem, '"big.png" is 9.0 MB; the chat takes images up to 5.0 MB.');
            assert.deepEqual([controller.transcript.messages, service.callsOf('send')], [[], []]);
        });
    });

    describe('session events', () => {
        it('route the events of this chat into the pending answer and ignore other chats\' events', async () => {
            const { client, host, controller } = setup();
            await controller.send('hi');
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'r1', agent: 'claude-chat', model: 'sonnet' }, { type: 'TextDelta', requestId: 'r1', text: 'Hel' });
            await client.push('other-chat', { type: 'TextDelta', requestId: 'r1', text: 'NOT MINE' });
            await client.push('chat-1', { type: 'TextDelta', requestId: 'r1', text: 'lo' });
            const answer = controller.transcript.messages[1];
            assert.deepEqual([textOf(answer), answer.agent, answer.status], ['Hello', 'claude-chat', 'streaming']);
            assert.deepEqual(host.streams, [false, false]);
        });

        it('end a request: the answer is final, waiting prompts go, the counter estimates again and the whole view renders', async () => {
            const { client, composer, host, controller } = setup();
            await controller.send('hi');
            void client.requestPermission('chat-1', { tool: 'edit_file', permission: 'write', arguments: { path: 'a.ts' }, chatId: 'chat-1' });
            assert.equal(controller.permissions.length, 1);
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
            assert.equal(controller.transcript.messages[1].status, 'done');
            assert.deepEqual([controller.permissions, composer.estimatesScheduled, host.streams, controller.busy], [[], 1, [true], false]);
        });

        it('offer the setup again after an Auth, Network or Config failure, not after a Provider failure', async () => {
            for (const [category, checks] of [['Auth', 1], ['Network', 1], ['Config', 1], ['Provider', 0]] as const) {
                const { client, host, controller } = setup();
                await controller.send('hi');
                await client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'Failed', requestId: 'r1', error: { category, message: 'no' } });
                assert.equal(host.setupChecks, checks, category);
                assert.deepEqual(controller.transcript.messages[1].error, { category, message: 'no' });
            }
        });

        it('show a notice about this chat and ignore notices about others', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            await client.notice('other-chat', 'not mine');
            assert.equal(controller.notice, undefined);
            await client.notice('chat-1', 'The chat could not be saved: disk full');
            assert.equal(controller.notice, 'The chat could not be saved: disk full');
        });
    });

    describe('stop', () => {
        it('denies waiting prompts and cancels the request in flight', async () => {
            const { service, client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestPermission('chat-1', { tool: 'execute_terminal_command', permission: 'execute', arguments: { command: 'ls' }, chatId: 'chat-1' });
            await controller.stop();
            assert.equal(await answer, 'deny');
            assert.deepEqual([controller.permissions, service.callsOf('cancel')], [[], [['chat-1']]]);
        });

        it('cancels nothing when no request is in flight', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.stop();
            assert.deepEqual(parts.service.callsOf('cancel'), []);
        });
    });

    describe('permissions', () => {
        it('pass the user\'s answer back to the tool that asked', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestPermission('chat-1', { tool: 'create_file', permission: 'write', arguments: { path: 'b.ts' }, chatId: 'chat-1' });
            controller.answerPermission(controller.permissions[0], 'allow-chat');
            assert.equal(await answer, 'allow-chat');
            assert.deepEqual(controller.permissions, []);
        });

        const agentRequest: AcpPermissionRequest = {
            agent: 'claude-code', sessionId: 's1', options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
            toolCall: { callId: 'c1', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/work/app/a.ts' }], content: [] }
        };
        it('an external agent\'s question shows its own options and answers with the one picked', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestAgentPermission('chat-1', agentRequest);
            const pending = controller.permissions[0];
            assert.deepEqual([pending.agent?.request.options.map(option => option.name), pending.request.permission], [['Allow', 'Reject'], 'write']);
            controller.answerPermission(pending, { optionId: 'no' });
            assert.deepEqual(await answer, { optionId: 'no' });
            assert.deepEqual(controller.permissions, []);
        });

        it('an external agent\'s question still open when the answer ends closes unanswered: nothing is allowed', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestAgentPermission('chat-1', agentRequest);
            assert.equal(controller.permissions.length, 1);
            await client.push('chat-1', { type: 'Cancelled', requestId: 'r1' });
            assert.deepEqual(await answer, { cancelled: true });
            assert.deepEqual(controller.permissions, []);
        });
    });

    describe('summarize', () => {
        it('swaps the chat for the summary: events of the new chat id fill the view, the original is not closed', async () => {
            const parts = setup();
            const { service, client, composer, host, controller } = parts;
            await withFinishedTurn(parts);
            service.summary = {
                version: 1, id: 'chat-2', title: 'Summary of the parser talk', createdAt: '', updatedAt: '', edits: {},
                history: [{ role: 'user', blocks: [{ type: 'text', text: 'Summary: we talked about the parser.' }], compressedFrom: 'chat-1' }]
            };
            await controller.summarize();
            assert.deepEqual(service.callsOf('summarize'), [['chat-1', OPTIONS]]);
            assert.equal(await controller.currentChatId(), 'chat-2');
            assert.deepEqual(controller.savedChat, { chatId: 'chat-2', location: 'workspace' });
            assert.deepEqual(controller.transcript.messages.map(message => [message.role, textOf(message), message.compressedFrom]),
                [['user', 'Summary: we talked about the parser.', 'chat-1']]);
            assert.deepEqual([host.shown.map(opened => opened.chatId), composer.followed.map(opened => opened.chatId)], [['chat-2'], ['chat-2']]);
            assert.deepEqual([controller.summarizing, service.callsOf('closeSession')], [false, []]);
            await controller.send('go on');
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'old' }, { type: 'TextDelta', requestId: 'old', text: 'stale' });
            await client.push('chat-2', { type: 'RequestStarted', requestId: 'r2' }, { type: 'TextDelta', requestId: 'r2', text: 'fresh' });
            assert.equal(textOf(controller.transcript.messages[2]), 'fresh');
            assert.equal(service.callsOf('send')[1][0], 'chat-2');
        });

        it('does nothing for a chat without messages', async () => {
            const { service, controller } = setup();
            await controller.ensureChat();
            await controller.summarize();
            assert.deepEqual(service.callsOf('summarize'), []);
        });

        it('is stopped from the view: the backend is told, the chat stays as it was without a failure notice, and a second summarize works', async () => {
            const parts = setup();
            const { service, controller, host } = parts;
            await withFinishedTurn(parts);
            const release = service.hold('summarize');
            const summarizing = controller.summarize();
            await settle();
            assert.deepEqual([controller.summarizing, controller.busy], [true, true], 'the view shows "Summarizing…" and sends nothing meanwhile');
            await controller.stop();
            assert.deepEqual(service.callsOf('cancelSummary'), [['chat-1']]);
            release(new Error('The request was cancelled.'));
            await summarizing;
            assert.deepEqual([controller.summarizing, controller.notice, await controller.currentChatId(), host.shown], [false, undefined, 'chat-1', []]);
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done']]);
            assert.deepEqual(service.callsOf('cancel'), [], 'Stop cancels the summary, not a request of the chat');
            await controller.summarize();
            assert.deepEqual([service.callsOf('summarize').length, await controller.currentChatId()], [2, 'chat-2']);
        });

        it('keeps the chat and says why when summarizing fails', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.fail.set('summarize', new Error('no compression agent'));
            await parts.controller.summarize();
            assert.equal(parts.controller.notice, 'Summarizing failed: no compression agent');
            assert.deepEqual([await parts.controller.currentChatId(), parts.controller.summarizing], ['chat-1', false]);
        });
    });

    describe('auto-compress', () => {
        const manifest = (estimate: number, limit: number) => ({ estimate, limit }) as ContextManifest;

        it('lets the backend summarize first when the next send would fill more than the allowed percent, then sends into the summary with a notice', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.composer.attachments = [attachment('log.txt')];
            parts.service.manifest = manifest(81, 100);
            parts.service.full = true;
            await parts.controller.send('next question');
            const input = { text: 'next question', attachments: [{ name: 'log.txt' }] };
            assert.deepEqual([parts.service.callsOf('estimate'), parts.service.callsOf('compressIfFull')], [[['chat-1', input, OPTIONS]], [['chat-1', input, OPTIONS, 80]]]);
            assert.deepEqual([parts.service.callsOf('send')[1][0], parts.controller.summarizing], ['chat-2', false]);
            assert.match(parts.controller.notice ?? '', /^The chat filled more than 80% of the agent's context, so it was summarized into this new chat first/);
        });

        it('sends into the same chat, never saying "Summarizing…", at exactly the allowed percent', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(80, 100);
            const updates = parts.host.updates;
            await parts.controller.send('next question');
            assert.deepEqual([parts.service.callsOf('compressIfFull'), parts.service.callsOf('send')[1][0], parts.controller.notice], [[], 'chat-1', undefined]);
            assert.equal(parts.host.updates - updates, 1, 'one render, for the turn: none for a summary state');
        });

        it('sends into the same chat when the backend finds that the send fits after all', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(90, 100);
            await parts.controller.send('next question');
            assert.deepEqual([parts.service.callsOf('compressIfFull').length, parts.service.callsOf('send')[1][0], parts.controller.notice], [1, 'chat-1', undefined]);
        });

        it('keeps the message in the composer and sends nothing when the summary before it is stopped or fails', async () => {
            const parts = setup();
            parts.host.percent = 50;
            await withFinishedTurn(parts);
            parts.composer.attachments = [attachment('log.txt')];
            parts.service.manifest = manifest(99, 100);
            const release = parts.service.hold('compressIfFull');
            const sending = parts.controller.send('too long');
            await settle();
            assert.equal(parts.controller.summarizing, true);
            await parts.controller.stop();
            release(new Error('The request was cancelled.'));
            await sending;
            assert.deepEqual([parts.composer.problem, parts.composer.attachments.length], [undefined, 1], 'stopped: no problem shown, the draft\'s attachment still waits');
            parts.service.failOnce.set('compressIfFull', new Error('no compression agent'));
            await parts.controller.send('too long');
            assert.deepEqual([parts.service.callsOf('cancelSummary'), parts.service.callsOf('send').length, parts.composer.problem], [[['chat-1']], 1, 'no compression agent']);
            assert.deepEqual([await parts.controller.currentChatId(), parts.controller.summarizing], ['chat-1', false]);
        });

        it('asks nothing when it is off or the chat is empty', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(99, 100);
            await parts.controller.send('off');
            const fresh = setup();
            fresh.host.percent = 50;
            fresh.service.manifest = manifest(99, 100);
            await fresh.controller.send('first');
            assert.deepEqual([parts.service.callsOf('estimate'), fresh.service.callsOf('estimate'), parts.service.callsOf('compressIfFull'), fresh.service.callsOf('compressIfFull')], [[], [], [], []]);
        });
    });

    describe('saved chats', () => {
        it('open in a new session seeded with their history; the chat shown before is closed', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.openSaved('saved-7', 'user');
            assert.deepEqual(parts.service.callsOf('closeSession'), [['chat-1']]);
            assert.deepEqual(parts.service.callsOf('openSession')[1], [{ location: 'user', workspacePath: '/work/app' }, 'saved-7']);
            assert.deepEqual([await parts.controller.currentChatId(), parts.controller.savedChat], ['saved-7', { chatId: 'saved-7', location: 'user' }]);
        });

        it('show why a saved chat could not be opened', async () => {
            const { service, controller } = setup();
            service.fail.set('openSession', new Error('chat file is unreadable'));
            await controller.openSaved('broken');
            assert.equal(controller.notice, 'chat file is unreadable');
        });
    });

    describe('edits', () => {
        it('take edits back newest first and tell the backend each one that worked', async () => {
            const parts = setup();
            await parts.controller.send('fix');
            const record = (path: string) => ({ path, absolutePath: `/work/app/${path}`, diff: '', created: false });
            const edit = (callId: string, path: string): ChatEvent[] => [
                { type: 'ToolCallStart', requestId: 'r1', callId, name: 'edit_file' },
                { type: 'ToolResult', requestId: 'r1', callId, name: 'edit_file', content: 'ok', isError: false, fileEdit: record(path) }
            ];
            await parts.client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, ...edit('c1', 'a.ts'), ...edit('c2', 'b.ts'),
                { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
            const answer = parts.controller.transcript.messages[1];
            await parts.controller.setEdit(answer, parts.controller.transcript.editsOf(answer), 'undone');
            assert.deepEqual(parts.undone, ['b.ts', 'a.ts']);
            assert.deepEqual(parts.service.callsOf('setEditState'), [['chat-1', 'c2', 'undone'], ['chat-1', 'c1', 'undone']]);
        });
    });

    describe('backend restart', () => {
        it('opens the shown chat again under its id when the backend is back, and shows it as it is there, a running request included', async () => {
            const parts = setup();
            const { service, client, backend, controller } = parts;
            await withFinishedTurn(parts);
            await controller.send('second question');
            backend.leave();
            service.saved.set('chat-1', {
                chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer'), userMessage('second question')]),
                live: { requestId: 'r2', events: [{ type: 'RequestStarted', requestId: 'r2', agent: 'claude-chat' }, { type: 'TextDelta', requestId: 'r2', text: 'so far' }] }
            });
            await backend.return();
            assert.deepEqual(service.callsOf('openSession').at(-1), [{ location: 'workspace', workspacePath: '/work/app' }, 'chat-1']);
            assert.deepEqual(shape(parts), [
                ['user', 'first question', 'done'], ['assistant', 'first answer', 'done'], ['user', 'second question', 'done'], ['assistant', 'so far', 'streaming']
            ]);
            const answer = controller.transcript.messages[3];
            assert.deepEqual([answer.requestId, answer.agent, answer.stalled], ['r2', 'claude-chat', undefined]);
            await client.push('chat-1', { type: 'TextDelta', requestId: 'r2', text: ' and the rest' }, { type: 'Finished', requestId: 'r2', stopReason: 'end_turn' });
            assert.deepEqual(shape(parts)[3], ['assistant', 'so far and the rest', 'done']);
        });

        it('shows an answer the restart cut off as interrupted, with what had arrived', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.send('second question');
            parts.backend.leave();
            parts.service.saved.set('chat-1', {
                chatId: 'chat-1',
                chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer'), userMessage('second question'), answerMessage('half an', true)])
            });
            await parts.backend.return();
            assert.deepEqual(shape(parts).at(-1), ['assistant', 'half an', 'interrupted']);
            assert.equal(parts.controller.busy, false);
        });

        it('ends the answer here when Stop is pressed while the backend is away, and cancels the request once back if it still runs', async () => {
            const parts = setup();
            const { service, backend, controller } = parts;
            await controller.send('hi');
            backend.leave();
            await controller.stop();
            assert.deepEqual([service.callsOf('cancel'), shape(parts)[1], controller.busy], [[], ['assistant', '', 'cancelled'], false]);
            service.saved.set('chat-1', {
                chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('hi')]), live: { requestId: 'r1', events: [{ type: 'RequestStarted', requestId: 'r1' }] }
            });
            await backend.return();
            assert.deepEqual(service.callsOf('cancel'), [['chat-1']]);
        });

        it('keeps an empty view when the backend has no file of the chat shown (it never had a message); the next message opens a new chat', async () => {
            const { service, backend, controller } = setup();
            await controller.ensureChat();
            backend.leave();
            service.missing.add('chat-1');
            await backend.return();
            assert.deepEqual([await controller.currentChatId(), controller.transcript.messages, controller.notice], [undefined, [], undefined]);
            await controller.send('hello');
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-2']);
        });

        it('says why when a chat with messages cannot be opened again, and keeps it shown', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.backend.leave();
            parts.service.missing.add('chat-1');
            await parts.backend.return();
            assert.equal(parts.controller.notice, 'QodeAssist could not open this chat again: There is no saved chat chat-1.');
            assert.deepEqual([await parts.controller.currentChatId(), shape(parts).length], ['chat-1', 2]);
        });
    });

    describe('other windows', () => {
        it('show the message another window sent, with its answer streaming here', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.client.push('chat-1', { type: 'UserMessage', turnId: 'other-window', message: userMessage('from the other window') },
                { type: 'RequestStarted', requestId: 'r2' }, { type: 'TextDelta', requestId: 'r2', text: 'answer' });
            assert.deepEqual(shape(parts).slice(2), [['user', 'from the other window', 'done'], ['assistant', 'answer', 'streaming']]);
            assert.equal(parts.controller.busy, true);
            assert.ok(parts.host.updates > 0);
        });

        it('leave the message this view sent as it is shown when its UserMessage comes', async () => {
            const parts = setup();
            await parts.controller.send('hi');
            const { turnId } = sentInput(parts.service, 0);
            await parts.client.push('chat-1', { type: 'UserMessage', turnId, message: userMessage('hi') }, { type: 'RequestStarted', requestId: 'r1' },
                { type: 'TextDelta', requestId: 'r1', text: 'hello' });
            assert.deepEqual(shape(parts), [['user', 'hi', 'done'], ['assistant', 'hello', 'streaming']]);
        });

        it('show another window\'s message above this view\'s message waiting to go, which says it is queued until its own turn starts', async () => {
            const parts = setup();
            const { service, client, controller } = parts;
            await controller.ensureChat();
            const release = service.hold('send');
            const sending = controller.send('mine');
            await settle();
            const { turnId } = sentInput(service, 0);
            await client.push('chat-1', { type: 'UserMessage', turnId: 'theirs', message: userMessage('theirs') }, { type: 'RequestStarted', requestId: 'rB' },
                { type: 'TextDelta', requestId: 'rB', text: 'their answer' });
            await client.push('chat-1', { type: 'Queued', turnId });
            assert.deepEqual(shape(parts), [['user', 'theirs', 'done'], ['assistant', 'their answer', 'streaming'], ['user', 'mine', 'done'], ['assistant', '', 'streaming']]);
            assert.deepEqual(controller.transcript.messages.map(message => !!message.queued), [false, false, true, false]);
            await client.push('chat-1', { type: 'Finished', requestId: 'rB', stopReason: 'end_turn' });
            await client.push('chat-1', { type: 'UserMessage', turnId, message: userMessage('mine') }, { type: 'RequestStarted', requestId: 'rA' },
                { type: 'TextDelta', requestId: 'rA', text: 'my answer' });
            release();
            await sending;
            assert.deepEqual(shape(parts), [['user', 'theirs', 'done'], ['assistant', 'their answer', 'done'], ['user', 'mine', 'done'], ['assistant', 'my answer', 'streaming']]);
            assert.equal(controller.transcript.messages[2].queued, false);
        });

        it('Stop on this view\'s message queued behind another window\'s answer withdraws that message only; the other answer goes on', async () => {
            const parts = setup();
            const { service, client, controller } = parts;
            await controller.ensureChat();
            const release = service.hold('send');
            const sending = controller.send('mine');
            await settle();
            const { turnId } = sentInput(service, 0);
            await client.push('chat-1', { type: 'UserMessage', turnId: 'theirs', message: userMessage('theirs') }, { type: 'RequestStarted', requestId: 'rB' });
            await client.push('chat-1', { type: 'Queued', turnId });
            await controller.stop();
            assert.deepEqual(service.callsOf('cancel'), [['chat-1', turnId]], 'withdraws the queued message, not the running answer');
            // The backend ends the withdrawn turn under its id.
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'rW', turnId }, { type: 'Cancelled', requestId: 'rW' });
            release();
            await sending;
            assert.deepEqual(shape(parts), [['user', 'theirs', 'done'], ['assistant', '', 'streaming'], ['user', 'mine', 'done'], ['assistant', '', 'cancelled']]);
        });

        it('follow the chat to its conflict copy: later events under the new id reach the view, and the view remembers the new id', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.client.push('chat-1', { type: 'Moved', chatId: 'chat-1-conflict-x' });
            assert.equal(await parts.controller.currentChatId(), 'chat-1-conflict-x');
            assert.deepEqual(parts.controller.savedChat?.chatId, 'chat-1-conflict-x');
            await parts.client.push('chat-1-conflict-x', { type: 'UserMessage', turnId: 'other', message: userMessage('later') }, { type: 'RequestStarted', requestId: 'r9' },
                { type: 'TextDelta', requestId: 'r9', text: 'still here' });
            assert.deepEqual(shape(parts).slice(-2), [['user', 'later', 'done'], ['assistant', 'still here', 'streaming']]);
            assert.ok(parts.client.handlers.has('chat-1') && parts.client.handlers.has('chat-1-conflict-x'), 'tools of a request under way still ask under the old id');
        });

        it('replace the conversation with the history a History event brings; the retry\'s request that follows fills a new answer', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.client.push('chat-1', { type: 'History', history: [userMessage('first question')], edits: {}, branches: [] },
                { type: 'RequestStarted', requestId: 'r2' }, { type: 'TextDelta', requestId: 'r2', text: 'another answer' });
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'another answer', 'streaming']]);
        });
    });

    describe('retry', () => {
        it('asks the backend again for an interrupted answer, with the composer\'s options', async () => {
            const parts = setup();
            parts.service.saved.set('saved-1', { chatId: 'saved-1', chat: storedChat('saved-1', [userMessage('question'), answerMessage('half', true)]) });
            await parts.controller.openSaved('saved-1');
            await parts.controller.retry(parts.controller.transcript.messages[1]);
            assert.deepEqual([parts.service.callsOf('retry'), parts.service.callsOf('send')], [[['saved-1', OPTIONS]], []]);
            assert.equal(parts.controller.busy, false);
        });

        it('asks the backend again for a failed answer whose message it recorded; sends the question anew when the request never started', async () => {
            const parts = setup();
            const { service, client, composer, controller } = parts;
            await controller.send('hi');
            const { turnId } = sentInput(service, 0);
            await client.push('chat-1', { type: 'UserMessage', turnId, message: userMessage('hi') }, { type: 'RequestStarted', requestId: 'r1' },
                { type: 'Failed', requestId: 'r1', error: { category: 'Provider', message: 'overloaded' } });
            await controller.retry(controller.transcript.messages[1]);
            assert.deepEqual(service.callsOf('retry'), [['chat-1', OPTIONS]]);

            const fresh = setup();
            await fresh.controller.send('hi');
            await fresh.client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'Failed', requestId: 'r1', error: { category: 'Config', message: 'no agent' } });
            fresh.composer.attachments = [attachment('draft.md')];
            await fresh.controller.retry(fresh.controller.transcript.messages[1]);
            assert.deepEqual([fresh.service.callsOf('retry'), fresh.service.callsOf('send').map(([, input]) => (input as ChatInput).text)], [[], ['hi', 'hi']]);
            assert.equal(fresh.composer.attachments.length, 1, 'the draft\'s attachments stay for the draft');
            assert.deepEqual(composer.restored, []);
        });

        it('asks nothing while the backend is away, and says why', async () => {
            const parts = setup();
            parts.service.saved.set('saved-1', { chatId: 'saved-1', chat: storedChat('saved-1', [userMessage('question'), answerMessage('half', true)]) });
            await parts.controller.openSaved('saved-1');
            parts.backend.leave();
            await parts.controller.retry(parts.controller.transcript.messages[1]);
            assert.deepEqual([parts.service.callsOf('retry'), parts.composer.problem], [[], BACKEND_AWAY_PROBLEM]);
        });

        it('opens the chat again and retries once more when the backend no longer holds it', async () => {
            const parts = setup();
            parts.service.saved.set('chat-1', { chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('question'), answerMessage('half', true)]) });
            await parts.controller.openSaved('chat-1');
            parts.service.failOnce.set('retry', NOT_OPEN);
            await parts.controller.retry(parts.controller.transcript.messages[1]);
            assert.deepEqual(parts.service.callsOf('retry').map(([chatId]) => chatId), ['chat-1', 'chat-1']);
            assert.deepEqual(parts.service.callsOf('openSession').map(([, chatId]) => chatId), ['chat-1', 'chat-1']);
            assert.equal(parts.composer.problem, undefined);
        });
    });

    it('denies waiting prompts and closes its session when disposed', async () => {
        const { service, client, controller } = setup();
        await controller.send('hi');
        const answer = client.requestPermission('chat-1', { tool: 'edit_file', permission: 'write', arguments: { path: 'a.ts' }, chatId: 'chat-1' });
        controller.dispose();
        await settle();
        assert.equal(await answer, 'deny');
        assert.deepEqual([service.callsOf('closeSession'), client.handlers.size], [[['chat-1']], 0]);
    });

    describe('versions: edit and resend, reset, bring back', () => {
        it('edits and resends a question: the view drops it and what followed, the backend gets the turn and the new text', async () => {
            const parts = setup();
            const { service, controller, client } = parts;
            await withFinishedTurn(parts);
            await controller.editAndResend(controller.transcript.messages[0], '  better question ');
            const [[chatId, turn, input]] = service.callsOf('editAndSend') as Array<[string, number, ChatInput]>;
            assert.deepEqual([chatId, turn, input.text], ['chat-1', 0, 'better question']);
            assert.deepEqual(shape(parts), [['user', 'better question', 'done'], ['assistant', '', 'streaming']]);
            // The backend tells every window the history before the edit, then the new message and its answer.
            await client.push('chat-1', { type: 'History', history: [], edits: {}, branches: [{ id: 'b1', turn: 0, part: 'question', reason: 'edit', createdAt: '2026-01-01T00:00:00Z', preview: 'first question', messages: 2 }] },
                { type: 'UserMessage', turnId: input.turnId, message: userMessage('better question') }, { type: 'RequestStarted', requestId: 'r2' },
                { type: 'TextDelta', requestId: 'r2', text: 'better answer' }, { type: 'Finished', requestId: 'r2', stopReason: 'end_turn' });
            assert.deepEqual(shape(parts), [['user', 'better question', 'done'], ['assistant', 'better answer', 'done']]);
            assert.deepEqual(controller.transcript.branches.map(branch => branch.id), ['b1']);
        });

        it('puts the question and what followed back when the edit is not taken', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.failOnce.set('editAndSend', new Error('backend said no'));
            await parts.controller.editAndResend(parts.controller.transcript.messages[0], 'other');
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done']]);
        });

        it('resets to an answer by its position, and brings a version back; neither while an answer streams', async () => {
            const parts = setup();
            const { service, controller } = parts;
            await withFinishedTurn(parts);
            await controller.resetTo(controller.transcript.messages[1]);
            await controller.switchVersion('b7');
            assert.deepEqual([service.callsOf('resetTo'), service.callsOf('switchBranch')], [[['chat-1', { turn: 0, part: 'answer' }]], [['chat-1', 'b7']]]);
            await controller.send('streaming now');
            await controller.resetTo(controller.transcript.messages[1]);
            assert.equal(service.callsOf('resetTo').length, 1, 'nothing is reset while an answer is on its way');
        });

        it('shows why a reset did not happen', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.failOnce.set('resetTo', new Error('An answer is being written in this chat; stop it or let it finish, then try again.'));
            await parts.controller.resetTo(parts.controller.transcript.messages[0]);
            assert.match(parts.controller.notice ?? '', /being written/);
        });
    });
});
