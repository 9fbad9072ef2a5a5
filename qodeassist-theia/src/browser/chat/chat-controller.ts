import { skillInvocation } from '@qodeassist/core/protocol';
import type { ErrorInfo } from '@qodeassist/core';
import type { AcpPermissionAnswer, ChatEvent, ChatInput, ChatStorage, OpenedChat, PermissionAnswer } from '../../common/chat-protocol';
import { agentPermission, PendingPermission } from '../shared/pending-permission';
import { BACKEND_AWAY_PROBLEM, ChatReconnect, isChatNotOpen, reasonOf } from './chat-reconnect';
import { ChatSummarizing } from './chat-summarizing';
import type { ChatControllerDeps, ChatViewState, Disposable, OutgoingAttachment } from './chat-controller-ports';
import type { ChatControllerService } from './chat-controller-service';
import { AttachmentView, ChatMessage, ChatTranscript, ToolActivity } from './chat-transcript';
import { positionOf } from './chat-versions';

// The composer and the specs import these from here, where they were first declared.
export type { ChatComposerPort, ChatControllerDeps, ChatControllerHost, ChatEventSource, ChatViewState, OutgoingAttachment } from './chat-controller-ports';

/** Failures that mean the chat may have no reachable agent: the view offers the Quick Setup again. */
const SETUP_CATEGORIES: ReadonlyArray<ErrorInfo['category']> = ['Auth', 'Network', 'Config'];

/** An id no other send of any window picks; not `crypto.randomUUID`, which a page served over plain http (no secure context) lacks. */
function newTurnId(): string {
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), byte => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * One chat, bound to one backend session: sends, stops, summarizes, and turns the chat's events
 * (this window's requests and other windows') into the transcript; ChatReconnect keeps it going
 * across a backend restart. Plain TypeScript over the chat service; the view renders what it holds.
 */
export class ChatController implements ChatControllerService, Disposable {
    readonly transcript = new ChatTranscript();
    /** Tool permission requests waiting for the user; the streaming answer shows them. */
    permissions: readonly PendingPermission[] = [];
    /** Something about the chat that is not a request's outcome (could not be saved, summarizing failed). */
    notice: string | undefined;
    /** The saved chat shown, once it has one. */
    savedChat: ChatViewState | undefined;

    /** The backend chat shown; its id is also the saved chat's id. */
    protected chatId: Promise<string> | undefined;
    protected storageLocation: ChatStorage['location'] | undefined;
    protected nextPermissionId = 1;
    /** A retry is on its way to the backend. */
    protected retrying = false;
    protected readonly summaries: ChatSummarizing;
    /** The composer says that the backend is away; it stops saying so when the backend is back. */
    protected awayProblemShown = false;
    protected readonly chatBinding: Disposable[] = [];
    protected readonly subscriptions: Disposable[] = [];
    protected readonly reconnect: ChatReconnect;

    constructor(protected readonly deps: ChatControllerDeps) {
        this.summaries = new ChatSummarizing({
            service: deps.service, composer: deps.composer, autoCompressPercent: () => deps.host.autoCompressPercent(),
            chat: () => this.chatId, hasMessages: () => this.transcript.messages.length > 0,
            show: opened => this.showChat(opened, this.storage().location), notice: message => { this.notice = message; }, update: () => deps.host.update()
        });
        this.reconnect = new ChatReconnect({
            service: deps.service, backend: deps.backend, transcript: this.transcript,
            chat: () => this.chatId,
            storage: () => this.storage(),
            reopened: (opened, storage) => {
                this.savedChat = opened.chat ? { chatId: opened.chatId, location: storage.location } : this.savedChat;
                // Prompts of a request that no longer runs have nobody to answer.
                if (!opened.live) {
                    this.denyPermissions();
                }
            },
            forget: () => {
                this.chatId = undefined;
                this.savedChat = undefined;
            },
            notice: message => { this.notice = message; },
            update: () => deps.host.update(true)
        });
        this.subscriptions.push(
            deps.client.onDidReceiveSessionEvents(({ sessionId, events }) => this.onSessionEvents(sessionId, events)),
            deps.client.onDidReceiveNotice(({ chatId, message }) => this.onNotice(chatId, message)),
            deps.backend.onDidChange(away => this.onBackendChange(away)),
            deps.backend.onDidReconnect(() => void this.reconnect.reopen())
        );
    }

    /** An answer streams (whichever window asked for it), a retry is on its way or a summary is being made: nothing else is sent meanwhile. */
    get busy(): boolean {
        return this.transcript.pending !== undefined || this.summarizing || this.retrying;
    }

    /** The id of the chat shown now, if any. */
    async currentChatId(): Promise<string | undefined> {
        return this.chatId;
    }

    storage(location = this.storageLocation ?? this.deps.host.historyLocation()): ChatStorage {
        return { location, workspacePath: this.deps.host.workspacePath() };
    }

    /** The backend chat of this view, opened on first use. */
    ensureChat(): Promise<string> {
        if (!this.chatId) {
            const location = this.storage().location;
            this.storageLocation = location;
            this.chatId = this.deps.service.openSession(this.storage(location)).then(opened => this.bind(opened.chatId));
            this.chatId.catch(() => { this.chatId = undefined; });
        }
        return this.chatId;
    }

    /** Sends `text` with what the composer holds; a message the backend did not take goes back into the composer. */
    async send(text: string): Promise<void> {
        const { composer, host } = this.deps;
        const message = text.trim();
        if (!message && !composer.hasAttachments()) {
            return;
        }
        // Said even while an answer waits for the backend: the user must know why Send does nothing.
        const off = host.offReason() ?? (this.deps.backend.away ? BACKEND_AWAY_PROBLEM : undefined);
        if (off) {
            this.showProblem(off);
            host.update();
            return;
        }
        if (this.busy) {
            return;
        }
        this.showProblem(undefined);
        let attachments: OutgoingAttachment[];
        try {
            // Summarize first: what is uploaded from here on belongs to the chat that will be sent.
            const compressed = await this.summaries.beforeSend(message);
            if (compressed === 'stopped') {
                // Stopped before it went: the message waits in the composer, the chat is as it was.
                return;
            }
            if (compressed === 'compressed') {
                host.update();
            }
            attachments = await composer.take(message);
        } catch (error) {
            this.showProblem(reasonOf(error));
            host.update();
            return;
        }
        await this.deliver(message, attachments, true);
    }

    /**
     * Edit and resend: `text` goes in place of the question; the question and what followed leave the
     * view at once (the backend keeps them as a version to bring back). Not taken, they come back.
     */
    async editAndResend(question: ChatMessage, text: string): Promise<void> {
        const position = positionOf(this.transcript.messages, question);
        if (!position || !text.trim() || this.busy || !this.chatId || !this.transcript.isRecorded(question)) {
            return;
        }
        const removed = this.transcript.cutFrom(question);
        await this.deliver(text.trim(), [], false, {
            send: (chatId, input) => this.deps.service.editAndSend(chatId, position.turn, input, this.deps.composer.sendOptions()),
            notTaken: () => this.transcript.putBack(removed),
            // The backend sends the question's attachments with the edited text.
            shown: question.attachments
        });
    }

    /** Resets the chat to a question or an answer (the view asked first); the backend keeps what goes as a version. */
    async resetTo(message: ChatMessage): Promise<void> {
        const position = positionOf(this.transcript.messages, message);
        if (position) {
            await this.rewrite(chatId => this.deps.service.resetTo(chatId, position));
        }
    }

    /** Brings back a kept version of the chat; the one shown now is kept in turn. */
    switchVersion(branchId: string): Promise<void> {
        return this.rewrite(chatId => this.deps.service.switchBranch(chatId, branchId));
    }

    /** A change of the chat's history in the backend; every window shows it from the `History` event that follows. */
    protected async rewrite(work: (chatId: string) => Promise<void>): Promise<void> {
        if (this.busy || !this.chatId) {
            return;
        }
        try {
            await this.reconnect.withOpenChat(() => this.ensureChat(), work);
        } catch (error) {
            this.notice = this.deps.backend.away || isChatNotOpen(error) ? BACKEND_AWAY_PROBLEM : reasonOf(error);
            this.deps.host.update();
        }
    }

    /**
     * Shows the turn and sends it under a new turn id. A send the backend did not take (the
     * connection dropped, the backend restarted) takes the turn back, and the text goes back into
     * the composer when it came from there; the chat stays the same.
     */
    protected async deliver(
        message: string, attachments: OutgoingAttachment[], fromComposer: boolean,
        via?: { send(chatId: string, input: ChatInput): Promise<unknown>; notTaken(): void; shown: AttachmentView[] }
    ): Promise<void> {
        const { service, composer, host } = this.deps;
        const invoked = skillInvocation(message);
        const skill = invoked && composer.skills().some(candidate => candidate.name === invoked.name) ? invoked : undefined;
        const turnId = newTurnId();
        this.transcript.beginTurn(skill ? skill.rest : message, via?.shown ?? attachments.map(attachment => attachment.view), skill?.name, turnId);
        host.update(true);
        const input: ChatInput = { text: message, attachments: attachments.map(attachment => attachment.ref), turnId };
        try {
            const chatId = await this.reconnect.withOpenChat(() => this.ensureChat(), async id => {
                await (via ? via.send(id, input) : service.send(id, input, composer.sendOptions()));
                return id;
            });
            this.transcript.taken(turnId);
            this.savedChat = { chatId, location: this.storage().location };
        } catch (error) {
            if (this.transcript.messages.some(candidate => candidate.turnId === turnId && candidate.recorded)) {
                // Its UserMessage came: the backend holds the message, only the send's reply was lost.
                this.transcript.taken(turnId);
                return;
            }
            this.transcript.dropTurn(turnId);
            via?.notTaken();
            if (fromComposer) {
                composer.restoreDraft(message);
            }
            this.showProblem(this.deps.backend.away || isChatNotOpen(error)
                ? BACKEND_AWAY_PROBLEM : `The QodeAssist backend could not take the message: ${reasonOf(error)}`);
            host.update();
        }
    }

    /**
     * Asks again for a failed or interrupted answer. The backend asks the question again when it
     * holds it and nothing followed; otherwise (the request never started) the question is sent anew.
     */
    async retry(answer: ChatMessage): Promise<void> {
        const { service, composer, host } = this.deps;
        if (this.busy) {
            return;
        }
        if (this.deps.backend.away) {
            this.showProblem(BACKEND_AWAY_PROBLEM);
            host.update();
            return;
        }
        const messages = this.transcript.messages;
        if (!answer.recorded || messages[messages.length - 1] !== answer || !this.chatId) {
            const question = this.transcript.questionOf(answer);
            if (question) {
                await this.deliver(question, [], false);
            }
            return;
        }
        this.showProblem(undefined);
        this.retrying = true;
        host.update();
        try {
            await this.reconnect.withOpenChat(() => this.ensureChat(), chatId => service.retry(chatId, composer.sendOptions()));
        } catch (error) {
            this.showProblem(this.deps.backend.away || isChatNotOpen(error) ? BACKEND_AWAY_PROBLEM : `Retrying failed: ${reasonOf(error)}`);
        } finally {
            this.retrying = false;
            host.update();
        }
    }

    /** Denies what waits for permission and cancels the request in flight; while the backend is away, the answer stops here and the request is cancelled once it is back. */
    async stop(): Promise<void> {
        if (this.summarizing) {
            return this.summaries.stop();
        }
        this.denyPermissions();
        if (!this.transcript.pending) {
            return;
        }
        if (this.deps.backend.away) {
            this.reconnect.stopWhileAway();
        } else if (this.chatId) {
            // A message of this view still queued behind another window's answer is withdrawn; that answer goes on.
            const queued = this.transcript.queuedTurn();
            await (queued ? this.deps.service.cancel(await this.chatId, queued) : this.deps.service.cancel(await this.chatId));
        }
    }

    /** A summary is being made (the Summarize button, or before a send that would fill the context): the view says so and offers Stop. */
    get summarizing(): boolean {
        return this.summaries.active;
    }

    /** Replaces the conversation by a summary in a new chat linked to this one; the original stays saved. Stopped or failed, the chat stays as it was. */
    summarize(): Promise<void> {
        return this.summaries.summarize();
    }

    /** Stops the summary being made; the chat stays as it was. */
    stopSummary(): Promise<void> {
        return this.summaries.stop();
    }

    /** Shows a saved chat: a new session seeded with its history. */
    async openSaved(chatId: string, location: ChatStorage['location'] = this.storage().location): Promise<void> {
        await this.stop();
        const previous = this.chatId;
        this.chatId = undefined;
        if (previous) {
            await previous.then(async id => {
                if (id !== chatId) {
                    await this.deps.service.closeSession(id);
                }
            }).catch(() => undefined);
        }
        try {
            this.storageLocation = location;
            const opened = await this.deps.service.openSession(this.storage(location), chatId);
            await this.showChat(opened, location);
        } catch (error) {
            this.notice = reasonOf(error);
            this.deps.host.update();
        }
    }

    answerPermission(pending: PendingPermission, answer: PermissionAnswer | { optionId: string }): void {
        this.permissions = this.permissions.filter(candidate => candidate !== pending);
        if (typeof answer === 'object') {
            pending.agent?.choose(answer.optionId);
        } else {
            pending.answer(answer);
        }
        this.deps.host.update();
    }

    /** Undoes or applies again the edits of a message's tools; the saved chat remembers each that worked. */
    async setEdit(message: ChatMessage, tools: ToolActivity[], state: 'applied' | 'undone'): Promise<void> {
        const chatId = this.chatId ? await this.chatId : undefined;
        // Edits of one file build on each other: take them back newest first, apply them again oldest first.
        for (const tool of state === 'undone' ? [...tools].reverse() : tools) {
            const edit = tool.edit;
            if (!edit || edit.state === state) {
                continue;
            }
            try {
                await (state === 'undone' ? this.deps.edits.undo(edit.record) : this.deps.edits.reapply(edit.record));
                edit.state = state;
                edit.problem = undefined;
                if (chatId) {
                    await this.deps.service.setEditState(chatId, edit.id, state);
                }
            } catch (error) {
                edit.problem = reasonOf(error);
            }
        }
        this.transcript.touch(message);
        this.deps.host.update();
    }

    dispose(): void {
        // A prompt nobody can answer any more must not hold the backend's tool loop.
        this.denyPermissions();
        for (const disposable of [...this.subscriptions.splice(0), ...this.chatBinding.splice(0)]) {
            disposable.dispose();
        }
        const chat = this.chatId;
        this.chatId = undefined;
        void chat?.then(id => this.deps.service.closeSession(id)).catch(() => undefined);
    }

    protected async onSessionEvents(sessionId: string, events: readonly ChatEvent[]): Promise<void> {
        if (!this.chatId || sessionId !== await this.chatId.catch(() => undefined)) {
            return;
        }
        const moved = events.find(event => event.type === 'Moved');
        if (moved?.type === 'Moved') {
            this.follow(moved.chatId);
        }
        let changed = false;
        let ended = false;
        for (const event of events) {
            changed = this.transcript.apply(event) || changed;
            ended ||= event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled';
        }
        this.deps.composer.followAgent(events);
        if (ended && this.permissions.some(pending => pending.agent)) {
            // An external agent's question outlives nothing: its turn ended, so it closes unanswered.
            this.permissions.filter(pending => pending.agent).forEach(pending => pending.answer('deny'));
            this.permissions = this.permissions.filter(pending => !pending.agent);
        }
        // Another window's message, a replaced history or a queued message change more than the streaming answer.
        const whole = events.some(event => event.type === 'UserMessage' || event.type === 'History' || event.type === 'Queued');
        if (ended) {
            this.permissions = [];
            this.deps.composer.scheduleEstimate();
            const failed = events.find(event => event.type === 'Failed');
            if (failed?.type === 'Failed' && SETUP_CATEGORIES.includes(failed.error.category)) {
                this.deps.host.checkSetup();
            }
        }
        if (whole) {
            this.deps.host.update(true);
        } else if (changed) {
            this.deps.host.streamed(ended);
        }
    }

    /** Answers that stream say they wait for the backend while it is away; the composer stops saying it is away once it is back. */
    protected onBackendChange(away: boolean): void {
        const stalled = this.transcript.stall(away);
        if (!away && this.awayProblemShown) {
            this.showProblem(undefined);
        }
        if (stalled || !away) {
            this.deps.host.update();
        }
    }

    protected showProblem(reason: string | undefined): void {
        this.deps.composer.showProblem(reason);
        this.awayProblemShown = reason === BACKEND_AWAY_PROBLEM;
    }

    protected async onNotice(chatId: string, message: string): Promise<void> {
        if (this.chatId && chatId === await this.chatId.catch(() => undefined)) {
            this.notice = message;
            this.deps.host.update();
        }
    }

    /** Answers this chat's tool permission requests here. */
    protected bind(chatId: string): string {
        for (const disposable of this.chatBinding.splice(0)) {
            disposable.dispose();
        }
        this.answerPermissionsOf(chatId);
        return chatId;
    }

    /**
     * The chat goes on under another id (its file changed elsewhere; this chat continues as its
     * conflict copy): this view follows it. Tools of a request under way still ask under the old id, so both are answered here.
     */
    protected follow(chatId: string): void {
        this.chatId = Promise.resolve(chatId);
        this.answerPermissionsOf(chatId);
        this.savedChat = { chatId, location: this.storage().location };
        this.deps.host.update();
    }

    protected answerPermissionsOf(chatId: string): void {
        this.chatBinding.push(this.deps.client.setPermissionHandler(chatId, request => new Promise<PermissionAnswer>(resolve => {
            this.permissions = [...this.permissions, { id: this.nextPermissionId++, request, answer: resolve }];
            this.deps.host.update(true);
        })));
        this.chatBinding.push(this.deps.client.setAgentPermissionHandler(chatId, request => new Promise<AcpPermissionAnswer>(resolve => {
            this.permissions = [...this.permissions, agentPermission(this.nextPermissionId++, chatId, request, resolve)];
            this.deps.host.update(true);
        })));
    }

    protected async showChat(opened: OpenedChat, location: ChatStorage['location']): Promise<void> {
        this.chatId = Promise.resolve(this.bind(opened.chatId));
        this.savedChat = { chatId: opened.chatId, location };
        this.transcript.restore(opened.chat?.history ?? [], opened.chat?.edits ?? {}, opened.live?.events, opened.branches);
        this.notice = undefined;
        this.deps.host.chatShown(opened);
        await this.deps.composer.follow(opened);
        this.deps.host.update(true);
    }

    protected denyPermissions(): void {
        for (const pending of this.permissions) {
            pending.answer('deny');
        }
        this.permissions = [];
    }
}
