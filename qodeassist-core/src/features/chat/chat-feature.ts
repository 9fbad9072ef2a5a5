import { randomUUID } from 'node:crypto';
import { ConfigurationProvider } from '../../agents/configuration-service';
import { ContextManifest } from '../../context/context-manifest';
import { ContentRef, HistoryMessage } from '../../context/conversation-history';
import { ChatStore, StoredFileEdit } from '../../session/chat-store';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { QodeAssistError, toErrorInfo } from '../../wire/error-info';
import { attachmentRefusal } from './attachment-rules';
import { checkImageFor } from './chat-agents';
import { ChatTurnContext, forwardSessionEvents, invokeRecordedSkill, keptError, prepareTurn, recordableBlocks, turnBlocks } from './chat-turn';
import { branching, branchOff, indexOfTurn, lastQuestion } from './chat-branches';
import { ChatRewrites } from './chat-rewrites';
import {
    ChatEvent, ChatHost, ChatInput, ChatStorage, ChatTurnOptions, OpenedChat, TurnPosition
} from './chat-types';
import { ChatOwners } from './chat-owners';
import { ChatSummaries } from './chat-summaries';
import { openChatIn } from './chat-opening';
import { ChatLibrary, defaultChatStore } from './chat-library';
import { ChatPickers } from './chat-pickers';
import { ChatViewer, OpenChat } from './open-chat';
import { AgentTurnContext, isExternalAgent, sendToAgent, setAgentMode } from './agent-turn';
import { WorkspaceCheckpoints } from '../../checkpoints/chat-checkpoints';
import { ChatRewind } from '../../checkpoints/chat-rewind';
import { mayChangeWorkspace, TurnCheckpoints } from '../../checkpoints/turn-checkpoints';

export interface ChatFeatureOptions {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
    /** The user's home, where `~/.qodeassist/chats` lives when chats are kept per user. */
    userHome: string;
    /** Where a storage's chats are kept; default `.qodeassist/chats` of the workspace or the user's home. */
    storeFor?(storage: ChatStorage): ChatStore;
    /** The chats open in this process, shared by every window's feature; default: this feature's own. */
    owners?: ChatOwners;
    /** Where the workspace is kept before each turn that may change it ("Restore to here", the review); absent: no checkpoints (the bench). */
    checkpoints?: WorkspaceCheckpoints;
}

/**
 * The chat, IDE-free, as one window (or the bench) sees it: open and restore chats, prepare each
 * turn (agent, role, environment, skills, linked files, tools), send, forward the session's events
 * with the ids file edits are kept under, save while an answer streams and after it, summarize
 * into a new chat. The IDE makes one per window connection (its RPC service adapts it), all
 * sharing one `ChatOwners`: a chat open in two windows is one chat, its sends one after another,
 * its events told to both, its file written by its owner only.
 */
export class ChatFeature {
    private host: ChatHost | undefined;
    /** The chats this window shows. */
    private readonly chats = new Map<string, OpenChat>();
    private readonly owners: ChatOwners;
    /** The saved chats: History's list, rename, delete, export and import. */
    readonly library: ChatLibrary;
    /** What the composer offers: agents, roles, skills, files to mention. */
    readonly pickers: ChatPickers;
    private readonly turns: ChatTurnContext;
    private readonly agentTurns: AgentTurnContext;
    /** "Restore to here", "Undo restore" and the review of what the chat changed; undefined without checkpoints. */
    readonly rewind: ChatRewind | undefined;
    private readonly turnCheckpoints: TurnCheckpoints | undefined;
    /** Edits, regenerates, resets and versions brought back. */
    private readonly rewrites: ChatRewrites;
    /** The summaries this window is making: Stop (cancelSummary), closing the chat or the window stops them. */
    private readonly summaries: ChatSummaries;
    /** This window as the chats it shows know it. */
    private readonly viewer: ChatViewer = {
        onEvents: (chatId, events) => this.host?.onEvents(chatId, events),
        onNotice: (chatId, message) => this.host?.onNotice(chatId, message),
        onMoved: (from, to) => {
            // Told under the old id while this window still knows it by that id.
            this.host?.onEvents(from, [{ type: 'Moved', chatId: to }]);
            const chat = this.chats.get(from);
            if (chat) {
                this.chats.delete(from);
                this.chats.set(to, chat);
            }
        }
    };

    /** Stops telling this window's chats that a provider's local server is being started. */
    private readonly stopLaunchStatus: () => void;

    constructor(private readonly options: ChatFeatureOptions) {
        this.owners = options.owners ?? new ChatOwners();
        // "Starting Ollama…": a request of this window waits for a local server QodeAssist starts ([launch]).
        this.stopLaunchStatus = options.runtime.launcher.onStatus(status => {
            for (const chat of this.chats.values()) {
                if (chat.live && chat.sender === this.viewer) {
                    this.host?.onNotice(chat.id, status.message);
                }
            }
        });
        this.library = new ChatLibrary(this.owners, storage => this.storeFor(storage));
        this.summaries = new ChatSummaries(options, {
            viewer: this.viewer, chatFor: chatId => this.chatFor(chatId), estimate: (chatId, input, turn) => this.estimate(chatId, input, turn),
            replace: async (chat, summary) => {
                this.owners.add(summary);
                this.show(summary);
                await this.close(chat.id);
            }
        });
        this.rewrites = new ChatRewrites(this.owners, { chatFor: chatId => this.chatFor(chatId), stillShown: chat => this.stillShown(chat) });
        this.pickers = new ChatPickers(options.configurations, options.runtime);
        this.turns = {
            runtime: options.runtime, configurations: options.configurations, host: () => this.host,
            listener: (chat, agent) => events => forwardSessionEvents(chat, this.owners, agent, events)
        };
        this.agentTurns = {
            configurations: options.configurations, owners: this.owners, logger: options.runtime.logger,
            turnEnded: (chat, requestId) => void this.afterAgentTurn(chat, requestId)
        };
        const checkpoints = options.checkpoints;
        this.turnCheckpoints = checkpoints && new TurnCheckpoints(checkpoints, { notice: (chatId, message) => this.host?.onNotice(chatId, message), logger: options.runtime.logger });
        this.rewind = checkpoints && new ChatRewind(checkpoints, {
            busy: chatId => !!this.chats.get(chatId)?.live || !!this.chats.get(chatId)?.session?.busy,
            cutBefore: (chatId, turn) => this.rewrites.cutBefore(chatId, turn),
            bringBack: (chatId, branchId) => this.switchBranch(chatId, branchId)
        });
    }

    setHost(host: ChatHost | undefined): void {
        this.host = host;
    }

    isOpen(chatId: string): boolean {
        return this.chats.has(chatId);
    }

    /** The conversation so far (the bench reads its answer here). */
    history(chatId: string): readonly HistoryMessage[] {
        return this.chatFor(chatId).history;
    }

    /**
     * A new chat, or a saved one. A chat another window (or this one) has open already is shown
     * as it is now, a running answer included; nothing is cancelled or read again.
     */
    open(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        return openChatIn(this.owners, this.storeFor(storage), chatId, chat => this.show(chat));
    }

    /**
     * Sends the user's message; the events follow on every window showing the chat. While an answer
     * another window asked for is being written, the message waits for its end (the sender is told:
     * `Queued`). A turn that could not start is reported to the sender as a failed request.
     */
    async send(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<string> {
        return this.sendWith(chatId, input, options);
    }

    /**
     * Edit and resend: the chat goes back to just before the `turn`-th message the user wrote
     * (counted from 0), the messages from there on are kept as a version the user can bring back,
     * and `input` is sent in its place. Waits for a running answer like a send.
     */
    async editAndSend(chatId: string, turn: number, input: ChatInput, options: ChatTurnOptions): Promise<string> {
        return this.sendWith(chatId, input, options, chat => {
            const at = indexOfTurn(chat.history, turn);
            if (at === undefined) {
                throw new QodeAssistError({ category: 'Validation', message: `The chat has no message ${turn + 1} to edit; it changed meanwhile. Send the text as a new message.` });
            }
            // The view edits the text: the question's attachments go with it.
            const carried = chat.history[at].blocks.flatMap(block => block.type === 'image' || block.type === 'attachment' ? [block.ref] : []);
            this.rewrites.rewrite(chat, branchOff(branching(chat), at, 'edit'));
            return carried;
        });
    }

    /** A send; `rewrite` (an edit) first cuts the history, before anything that may fail, so a failure is kept where the edit put the message. */
    private async sendWith(chatId: string, input: ChatInput, options: ChatTurnOptions, rewrite?: (chat: OpenChat) => ContentRef[]): Promise<string> {
        const chat = this.chatFor(chatId);
        return chat.exclusive(async () => {
            let sent = input;
            try {
                await this.afterRunning(chat, input.turnId);
                if (input.turnId && chat.withdrawn.delete(input.turnId)) {
                    // Withdrawn by its sender while queued: it ends as cancelled, never sent.
                    return this.endedUnsent(chatId, input.turnId, requestId => ({ type: 'Cancelled', requestId }));
                }
                if (rewrite) {
                    try {
                        this.stillShown(chat);
                        sent = { ...input, attachments: [...rewrite(chat), ...input.attachments] };
                    } catch (error) {
                        // Nothing was changed: nothing is kept either.
                        return this.failedToStart(chat, error);
                    }
                }
                if (isExternalAgent(options.agent)) {
                    // An external agent writes the disk itself: every turn of it may change the workspace.
                    await this.turnCheckpoints?.before(chat, options.workspacePath, true);
                    const requestId = await sendToAgent(this.agentTurns, chat, sent, options, this.window(chat));
                    this.recordChoice(chat, options);
                    return requestId;
                }
                this.closeAgentLink(chat);
                const { session, policy, skills } = await prepareTurn(this.turns, chat, options);
                await this.turnCheckpoints?.before(chat, options.workspacePath, mayChangeWorkspace(policy));
                const blocks = turnBlocks(chat, sent, skills);
                this.stillShown(chat);
                chat.announce = { turnId: input.turnId };
                chat.sender = this.viewer;
                const requestId = await session.send(blocks, policy);
                this.recordChoice(chat, options);
                return requestId;
            } catch (error) {
                return this.failedToStart(chat, error, sent);
            } finally {
                chat.announce = undefined;
            }
        });
    }

    /**
     * Asks again for the answer to the last user message (Retry, Regenerate): what follows it leaves
     * the conversation — a finished answer is kept as a version to bring back —, every window is
     * told (`History`), and the request starts.
     */
    async retry(chatId: string, options: ChatTurnOptions): Promise<string> {
        const chat = this.chatFor(chatId);
        return chat.exclusive(async () => {
            try {
                await this.afterRunning(chat, undefined);
                if (isExternalAgent(options.agent)) {
                    return await this.retryWithAgent(chat, options);
                }
                this.closeAgentLink(chat);
                const { session, policy, skills } = await prepareTurn(this.turns, chat, options);
                await this.turnCheckpoints?.before(chat, options.workspacePath, mayChangeWorkspace(policy), true);
                const last = lastQuestion(session.history);
                this.stillShown(chat);
                chat.sender = this.viewer;
                // A finished answer asked again is kept as a version to bring back; a failed or stopped one is not.
                const cut = branchOff(branching(chat), last + 1, 'regenerate');
                // A message kept when it could not go holds `/skill …` as typed: asked again, the skill is invoked.
                cut.history[last] = invokeRecordedSkill(cut.history[last], skills);
                this.rewrites.rewrite(chat, cut);
                const requestId = await session.send([], policy);
                this.owners.save(chat);
                return requestId;
            } catch (error) {
                return this.failedToStart(chat, error);
            }
        });
    }

    /** What the next send would contain and cost; undefined while busy or when it cannot be prepared (that shows at send). */
    async estimate(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<ContextManifest | undefined> {
        const chat = this.chats.get(chatId);
        // An external agent assembles its own context: QodeAssist cannot say what it will send.
        if (!chat || chat.live || chat.session?.busy || isExternalAgent(options.agent)) {
            return undefined;
        }
        return chat.exclusive(async () => {
            if (chat.live || chat.session?.busy || this.chats.get(chatId) !== chat) {
                return undefined;
            }
            try {
                const { session, policy, skills } = await prepareTurn(this.turns, chat, options);
                return await session.preview(turnBlocks(chat, input, skills), policy);
            } catch {
                return undefined;
            }
        });
    }

    /** Resets the chat to a message, what goes kept as a version (ChatRewrites.resetTo). */
    resetTo(chatId: string, position: TurnPosition): Promise<void> {
        return this.rewrites.resetTo(chatId, position);
    }

    /** Brings back a replaced version of the chat (ChatRewrites.switchBranch). */
    switchBranch(chatId: string, branchId: string): Promise<void> {
        return this.rewrites.switchBranch(chatId, branchId);
    }

    /**
     * Keeps a copy of a file or image beside the chat, within the attachment limits. With the turn's
     * options, an image for an agent that takes none is refused at once (ImagesNotTakenError names the agents that do).
     */
    async attach(chatId: string, name: string, mediaType: string, bytes: Buffer, options?: ChatTurnOptions): Promise<ContentRef> {
        const chat = this.chatFor(chatId);
        if (options) {
            checkImageFor(this.options.configurations.forWorkspace(options.workspacePath).current, options, name, mediaType);
        }
        const refusal = attachmentRefusal(name, mediaType, bytes);
        if (refusal) {
            const image = mediaType.startsWith('image/');
            const advice = refusal.kind === 'binary' ? '; attach text files or images (PNG, JPEG, GIF, WebP).'
                : `. Attach a smaller ${image ? 'image' : 'file, or link it so only the part that fits is sent'}.`;
            throw new QodeAssistError({ category: 'Validation', message: `${refusal.reason}${advice}` });
        }
        return chat.store.storeAttachment(chat.id, name, mediaType, bytes);
    }

    /** Summarizes the chat into a new chat linked to it (ChatSummaries.summarize). */
    summarize(chatId: string, options: ChatTurnOptions): Promise<OpenedChat> {
        return this.summaries.summarize(chatId, options);
    }

    /** Auto-compression before a send that would fill the chat (ChatSummaries.compressIfFull). */
    compressIfFull(chatId: string, input: ChatInput, options: ChatTurnOptions, percent: number): Promise<OpenedChat | undefined> {
        return this.summaries.compressIfFull(chatId, input, options, percent);
    }

    /** Stops this window's summary of the chat, if one is being made: the chat stays as it was. */
    cancelSummary(chatId: string): void {
        this.summaries.stop(chatId);
    }

    /** The user undid or reapplied an edit; the saved chat remembers it. */
    async setEditState(chatId: string, editId: string, state: StoredFileEdit['state']): Promise<void> {
        const chat = this.chatFor(chatId);
        const edit = chat.record.edits[editId];
        if (!edit) {
            throw new QodeAssistError({ category: 'Validation', message: `The chat has no edit ${editId}.` });
        }
        edit.state = state;
        this.owners.save(chat);
        await chat.saving;
    }

    /**
     * Stop: with `turnId` of a message still queued behind another window's answer, only that
     * message is withdrawn (it ends as cancelled, never sent); otherwise the running request is cancelled.
     */
    async cancel(chatId: string, turnId?: string): Promise<void> {
        const chat = this.chats.get(chatId);
        if (turnId && chat?.queued.has(turnId)) {
            chat.withdrawn.add(turnId);
            return;
        }
        chat?.agentLink?.cancel();
        await chat?.session?.cancel();
    }

    /** Switches the mode of the external agent answering in the chat (its session must be open); every window hears the change. */
    async setAgentMode(chatId: string, modeId: string): Promise<void> {
        await setAgentMode(this.chatFor(chatId), modeId);
    }

    /** This window stops showing the chat; when no window shows it any more, what it is doing is cancelled and it is forgotten here (its last save still completes). */
    async close(chatId: string): Promise<void> {
        this.summaries.stop(chatId);
        const chat = this.chats.get(chatId);
        this.chats.delete(chatId);
        if (!chat) {
            return;
        }
        chat.viewers.delete(this.viewer);
        await this.owners.release(chat);
        await chat.saving;
    }

    /** Resolves when every pending save has been written, closed chats' included. */
    async saved(): Promise<void> {
        await this.owners.saved();
    }

    /**
     * The window is gone: it shows nothing any more; a chat no other window shows is cancelled, and so
     * is a request this window sent (its tools would ask a window that is no longer there).
     */
    dispose(): void {
        this.stopLaunchStatus();
        this.summaries.stopAll();
        for (const chat of this.chats.values()) {
            chat.viewers.delete(this.viewer);
            if (chat.live && chat.sender === this.viewer) {
                chat.agentLink?.cancel();
                void chat.session?.cancel();
            }
            chat.tools.delete(this.host);
            void this.owners.release(chat);
        }
        this.chats.clear();
        this.host = undefined;
    }

    private show(chat: OpenChat): void {
        chat.viewers.add(this.viewer);
        this.chats.set(chat.id, chat);
    }

    /** Waits for the answer running in the chat (another window asked for it) to end; the sender is told it waits. */
    private async afterRunning(chat: OpenChat, turnId: string | undefined): Promise<void> {
        if (chat.live) {
            this.host?.onEvents(chat.id, [{ type: 'Queued', turnId }]);
            if (turnId) {
                chat.queued.add(turnId);
            }
            try {
                await chat.idle();
            } finally {
                if (turnId) {
                    chat.queued.delete(turnId);
                }
            }
        }
        this.stillShown(chat);
    }

    /** Whether this window still shows the chat and it is still the one owned (it was not closed meanwhile). */
    private shows(chat: OpenChat): boolean {
        return chat.viewers.has(this.viewer) && this.owners.find(chat.store, chat.id) === chat;
    }

    /** The chat is still shown here and still owned (it was not closed while the turn waited or was prepared). */
    private stillShown(chat: OpenChat): void {
        if (!this.shows(chat)) {
            throw new QodeAssistError({ category: 'Validation', message: 'The chat was closed in this window before the message could go.' });
        }
    }

    /**
     * Nothing was sent: the sender sees it as a failed request, like any other, ending its turn.
     * The message is kept in the chat with the failure, as a failed answer is (Retry asks again).
     */
    private failedToStart(chat: OpenChat, error: unknown, input?: ChatInput): string {
        const info = toErrorInfo(error);
        const requestId = this.endedUnsent(chat.id, input?.turnId, id => ({ type: 'Failed', requestId: id, error: info }));
        const blocks = input ? recordableBlocks(chat, input) : [];
        if (blocks.length > 0 && !chat.live && this.shows(chat)) {
            chat.append({ role: 'user', blocks });
            chat.append({ role: 'assistant', blocks: [], ended: { reason: 'failed', error: keptError(info) } });
            this.owners.broadcast(chat, [chat.historyEvent()]);
            this.owners.save(chat);
        }
        return requestId;
    }

    /** An external agent's turn ended: the checkpoint after it, and what it changed on disk told to every window showing the chat. */
    private async afterAgentTurn(chat: OpenChat, requestId: string): Promise<void> {
        const changes = await this.turnCheckpoints?.after(chat, requestId);
        if (changes) {
            this.owners.broadcast(chat, [changes]);
        }
    }

    /** A turn that never went ends for its sender only: a request of its own, started and ended at once (its turn named, so the view ends that turn). */
    private endedUnsent(chatId: string, turnId: string | undefined, end: (requestId: string) => ChatEvent): string {
        const requestId = randomUUID();
        this.host?.onEvents(chatId, [{ type: 'RequestStarted', requestId, ...(turnId ? { turnId } : {}) }, end(requestId)]);
        return requestId;
    }

    /** Regenerate with an external agent: the last question asked again in a new session told the conversation before it. */
    private async retryWithAgent(chat: OpenChat, options: ChatTurnOptions): Promise<string> {
        const last = lastQuestion(chat.history);
        this.stillShown(chat);
        await this.turnCheckpoints?.before(chat, options.workspacePath, true, true);
        chat.sender = this.viewer;
        this.rewrites.rewrite(chat, branchOff(branching(chat), last + 1, 'regenerate'));
        const requestId = await sendToAgent(this.agentTurns, chat, { text: '', attachments: [] }, options, this.window(chat), chat.history[last]);
        this.owners.save(chat);
        return requestId;
    }

    /** This window as a send to an external agent needs it: where its questions go, and whether it still shows the chat. */
    private window(chat: OpenChat) {
        return { host: this.host, viewer: this.viewer, stillShown: () => this.stillShown(chat) };
    }

    /** A message went to one of QodeAssist's own agents: an external agent's process is no longer needed (its session is kept in the record). */
    private closeAgentLink(chat: OpenChat): void {
        void chat.agentLink?.close();
        chat.agentLink = undefined;
    }

    private recordChoice(chat: OpenChat, options: ChatTurnOptions): void {
        chat.record.agent = options.agent;
        chat.record.role = options.role;
        this.owners.save(chat);
    }

    private storeFor(storage: ChatStorage): ChatStore {
        return this.options.storeFor?.(storage) ?? defaultChatStore(storage, this.options.userHome);
    }

    private chatFor(chatId: string): OpenChat {
        const chat = this.chats.get(chatId);
        if (!chat) {
            throw new QodeAssistError({ category: 'Validation', message: `The chat ${chatId} is not open in this IDE backend (it was closed, or the backend restarted); open it again from the chat history.` });
        }
        return chat;
    }
}

