import * as assert from 'node:assert/strict';
import type {
    AgentChoice, ChatEvent, ChatInput, ChatSendOptions, ChatStorage, ContentRef, ContextManifest, OpenedChat, PermissionAnswer, PermissionRequest,
    QodeAssistChatService, RoleChoice, SkillChoice, StoredChat
} from '../../common/chat-protocol';
import { ChatComposerPort, ChatController, ChatControllerHost, ChatEventSource, OutgoingAttachment } from './chat-controller';
import { textOf } from './chat-transcript';

type Call = [method: string, ...args: unknown[]];

/** The backend's chat service in memory: records every call, opens chats numbered chat-1, chat-2, …; `fail` makes a method reject. */
class FakeChatService implements QodeAssistChatService {
    readonly calls: Call[] = [];
    readonly fail = new Map<string, Error>();
    manifest: ContextManifest | undefined;
    summary: StoredChat | undefined;
    protected nextChat = 1;

    callsOf(method: string): unknown[][] {
        return this.calls.filter(([name]) => name === method).map(([, ...args]) => args);
    }

    protected async record<T>(method: string, args: unknown[], result: () => T): Promise<T> {
        this.calls.push([method, ...args]);
        const error = this.fail.get(method);
        if (error) {
            throw error;
        }
        return result();
    }

    openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        return this.record('openSession', [storage, chatId], () => ({ chatId: chatId ?? `chat-${this.nextChat++}` }));
    }
    send(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<string> {
        return this.record('send', [chatId, input, options], () => 'request-1');
    }
    cancel(chatId: string): Promise<void> {
        return this.record('cancel', [chatId], () => undefined);
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
    listAgents(): Promise<AgentChoice[]> {
        return this.record('listAgents', [], () => []);
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
    attachments: OutgoingAttachment[] = [];
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

/** Lets the controller's awaited promises and listeners run. */
function settle(): Promise<void> {
    return new Promise(resolve => setImmediate(resolve));
}

function setup() {
    const service = new FakeChatService();
    const client = new FakeEventSource();
    const composer = new FakeComposer();
    const host = new FakeHost();
    const undone: string[] = [];
    const controller = new ChatController({
        service, client, composer, host,
        edits: { undo: async record => { undone.push(record.path); }, reapply: async () => undefined }
    });
    return { service, client, composer, host, controller, undone };
}

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
            assert.deepEqual(service.callsOf('send'), [['chat-1', { text: 'explain this', attachments: [{ name: 'notes.md' }] }, OPTIONS]]);
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

        it('fails the answer it began with a Network error when the backend does not take the message, and opens a new chat next time', async () => {
            const { service, controller } = setup();
            service.fail.set('send', new Error('connection closed'));
            await controller.send('hello');
            const answer = controller.transcript.messages[1];
            assert.equal(answer.status, 'failed');
            assert.deepEqual(answer.error, { category: 'Network', message: 'The QodeAssist backend could not take the message: connection closed' });
            assert.equal(await controller.currentChatId(), undefined);
            service.fail.delete('send');
            await controller.send('again');
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-1', 'chat-2']);
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

        it('summarizes before sending when the estimate of the next send exceeds the allowed percent of the context', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.composer.attachments = [attachment('log.txt')];
            parts.service.manifest = manifest(81, 100);
            await parts.controller.send('next question');
            assert.deepEqual(parts.service.callsOf('estimate'), [['chat-1', { text: 'next question', attachments: [{ name: 'log.txt' }] }, OPTIONS]]);
            assert.deepEqual(parts.service.callsOf('summarize'), [['chat-1', OPTIONS]]);
            assert.equal(parts.service.callsOf('send')[1][0], 'chat-2');
        });

        it('sends without summarizing at exactly the allowed percent', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(80, 100);
            await parts.controller.send('next question');
            assert.deepEqual([parts.service.callsOf('summarize'), parts.service.callsOf('send')[1][0]], [[], 'chat-1']);
        });

        it('asks for no estimate when it is off or the chat is empty', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(99, 100);
            await parts.controller.send('off');
            const fresh = setup();
            fresh.host.percent = 50;
            fresh.service.manifest = manifest(99, 100);
            await fresh.controller.send('first');
            assert.deepEqual([parts.service.callsOf('estimate'), fresh.service.callsOf('estimate'), fresh.service.callsOf('summarize')], [[], [], []]);
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

    it('denies waiting prompts and closes its session when disposed', async () => {
        const { service, client, controller } = setup();
        await controller.send('hi');
        const answer = client.requestPermission('chat-1', { tool: 'edit_file', permission: 'write', arguments: { path: 'a.ts' }, chatId: 'chat-1' });
        controller.dispose();
        await settle();
        assert.equal(await answer, 'deny');
        assert.deepEqual([service.callsOf('closeSession'), client.handlers.size], [[['chat-1']], 0]);
    });
});
