import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ResolvedAgent } from '../../agents/agent-factory';
import { ConfigurationProvider, isProjectLayerLoaded } from '../../agents/configuration-service';
import { compressWithRoster } from '../../agents/roster-compression';
import { ContextManifest } from '../../context/context-manifest';
import { ContentRef, HistoryMessage } from '../../context/conversation-history';
import { ChatStore, chatTitle, chatToMarkdown, CHAT_FILE_VERSION, StoredChat, StoredFileEdit, titleOf } from '../../session/chat-store';
import { isTerminal, SessionEvent } from '../../session/session-events';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { findFiles } from '../../tools/file-tools';
import { WorkspaceFiles } from '../../tools/workspace-files';
import { QodeAssistError, toErrorInfo } from '../../wire/error-info';
import { agentChoices } from './chat-agents';
import { ChatTurnContext, explainAuthFailure, prepareTurn, turnBlocks } from './chat-turn';
import {
    AgentChoice, ATTACHMENT_LIMITS, ChatEvent, ChatHost, ChatInput, ChatStorage, ChatTurnOptions, editIdOf, OpenedChat, RoleChoice, SkillChoice
} from './chat-types';
import { ChatOwners } from './chat-owners';
import { ChatViewer, OpenChat } from './open-chat';

export interface ChatFeatureOptions {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
    /** The user's home, where `~/.qodeassist/chats` lives when chats are kept per user. */
    userHome: string;
    /** Where a storage's chats are kept; default `.qodeassist/chats` of the workspace or the user's home. */
    storeFor?(storage: ChatStorage): ChatStore;
    /** The chats open in this process, shared by every window's feature; default: this feature's own. */
    owners?: ChatOwners;
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
    private readonly turns: ChatTurnContext;
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
        this.turns = {
            runtime: options.runtime, configurations: options.configurations, host: () => this.host,
            listener: (chat, agent) => events => this.forward(chat, agent, events)
        };
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
    async open(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        const store = this.storeFor(storage);
        if (!chatId) {
            const chat = new OpenChat(randomUUID(), store, { createdAt: new Date().toISOString(), edits: {} });
            this.owners.add(chat);
            this.show(chat);
            return { chatId: chat.id };
        }
        const owned = () => {
            const chat = this.owners.find(store, chatId);
            if (chat) {
                this.show(chat);
                return { chatId, ...chat.view() };
            }
            return undefined;
        };
        const shown = owned();
        if (shown) {
            return shown;
        }
        const { chat: stored, state } = await store.open(chatId);
        const original = stored.compressedFrom ? await store.load(stored.compressedFrom).then(chat => chat.history, () => undefined) : undefined;
        // Another window may have opened it while the file was read: there is one owner.
        const shownMeanwhile = owned();
        if (shownMeanwhile) {
            return shownMeanwhile;
        }
        const chat = OpenChat.fromStored(store, stored, original, state);
        this.owners.add(chat);
        this.show(chat);
        return { chatId, chat: stored };
    }

    /**
     * Sends the user's message; the events follow on every window showing the chat. While an answer
     * another window asked for is being written, the message waits for its end (the sender is told:
     * `Queued`). A turn that could not start is reported to the sender as a failed request.
     */
    async send(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<string> {
        const chat = this.chatFor(chatId);
        return chat.exclusive(async () => {
            try {
                await this.afterRunning(chat, input.turnId);
                if (input.turnId && chat.withdrawn.delete(input.turnId)) {
                    // Withdrawn by its sender while queued: it ends as cancelled, never sent.
                    return this.endedUnsent(chatId, input.turnId, requestId => ({ type: 'Cancelled', requestId }));
                }
                const { session, policy, skills } = await prepareTurn(this.turns, chat, options);
                const blocks = turnBlocks(chat, input, skills);
                this.stillShown(chat);
                chat.announce = { turnId: input.turnId };
                chat.sender = this.viewer;
                const requestId = await session.send(blocks, policy);
                chat.record.agent = options.agent;
                chat.record.role = options.role;
                this.owners.save(chat);
                return requestId;
            } catch (error) {
                return this.failedToStart(chatId, error, input.turnId);
            } finally {
                chat.announce = undefined;
            }
        });
    }

    /**
     * Asks again for the answer to the last user message: what follows it (an interrupted, failed
     * or finished answer) leaves the conversation, every window is told (`History`), and the request starts.
     */
    async retry(chatId: string, options: ChatTurnOptions): Promise<string> {
        const chat = this.chatFor(chatId);
        return chat.exclusive(async () => {
            try {
                await this.afterRunning(chat, undefined);
                const { session, policy } = await prepareTurn(this.turns, chat, options);
                const history = session.history;
                const asked = [...history].reverse().findIndex(message => message.role === 'user' && message.blocks.some(block => block.type !== 'tool_result'));
                const last = asked < 0 ? -1 : history.length - 1 - asked;
                if (last < 0) {
                    throw new QodeAssistError({ category: 'Validation', message: 'The chat has no message to answer again; type one.' });
                }
                this.stillShown(chat);
                chat.sender = this.viewer;
                session.restore(history.slice(0, last + 1));
                this.owners.broadcast(chat, [{ type: 'History', history: [...session.history], edits: structuredClone(chat.record.edits) }]);
                const requestId = await session.send([], policy);
                this.owners.save(chat);
                return requestId;
            } catch (error) {
                return this.failedToStart(chatId, error);
            }
        });
    }

    /** What the next send would contain and cost; undefined while busy or when it cannot be prepared (that shows at send). */
    async estimate(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<ContextManifest | undefined> {
        const chat = this.chats.get(chatId);
        if (!chat || chat.live || chat.session?.busy) {
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

    /** Keeps a copy of a file or image beside the chat, within the attachment limits. */
    async attach(chatId: string, name: string, mediaType: string, bytes: Buffer): Promise<ContentRef> {
        const chat = this.chatFor(chatId);
        const image = mediaType.startsWith('image/');
        const limit = image ? ATTACHMENT_LIMITS.imageBytes : ATTACHMENT_LIMITS.textBytes;
        if (bytes.length > limit) {
            throw new QodeAssistError({
                category: 'Validation',
                message: `"${name}" is ${formatBytes(bytes.length)}; the chat takes ${image ? 'images' : 'files'} up to ${formatBytes(limit)}. Attach a smaller ${image ? 'image' : 'file, or link it so only the part that fits is sent'}.`
            });
        }
        if (!image && bytes.subarray(0, 8_000).includes(0)) {
            throw new QodeAssistError({ category: 'Validation', message: `"${name}" is a binary file; attach text files or images (PNG, JPEG, GIF, WebP).` });
        }
        return chat.store.storeAttachment(chat.id, name, mediaType, bytes);
    }

    /** Summarizes the chat through the compression roster into a new chat linked to this one; the original is kept. */
    async summarize(chatId: string, options: ChatTurnOptions): Promise<OpenedChat> {
        const chat = this.chatFor(chatId);
        const history = chat.history;
        const configurationService = this.options.configurations.forWorkspace(options.workspacePath);
        await chat.session?.cancel();
        await chat.saving;
        const result = await compressWithRoster(history, {
            configuration: configurationService.current, sessions: this.options.runtime.sessions(configurationService), estimator: this.options.runtime.estimator,
            compressedFrom: chatId, routing: { file: options.file, project: options.project }
        });
        const id = randomUUID();
        const now = new Date().toISOString();
        const stored: StoredChat = {
            version: CHAT_FILE_VERSION, id, title: `Summary: ${chat.record.title ?? titleOf(history)}`, createdAt: now, updatedAt: now,
            agent: chat.record.agent, role: chat.record.role, history: result.history, edits: {}, compressedFrom: chatId
        };
        const outcome = await chat.store.saveOver(stored, { revision: 0 });
        if ('conflict' in outcome) {
            throw new QodeAssistError({ category: 'Config', message: `The summary could not be saved: ${outcome.conflict}.` });
        }
        const summary = OpenChat.fromStored(chat.store, stored, [...history], outcome.saved);
        this.owners.add(summary);
        this.show(summary);
        await this.close(chatId);
        return { chatId: id, chat: stored };
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
        await chat?.session?.cancel();
    }

    /** This window stops showing the chat; when no window shows it any more, what it is doing is cancelled and it is forgotten here (its last save still completes). */
    async close(chatId: string): Promise<void> {
        const chat = this.chats.get(chatId);
        this.chats.delete(chatId);
        if (!chat) {
            return;
        }
        chat.viewers.delete(this.viewer);
        await this.owners.release(chat);
        await chat.saving;
    }

    list(storage: ChatStorage): ReturnType<ChatStore['list']> {
        return this.storeFor(storage).list();
    }

    async rename(storage: ChatStorage, chatId: string, title: string): Promise<void> {
        const store = this.storeFor(storage);
        const open = this.owners.find(store, chatId);
        if (!open) {
            await store.rename(chatId, title);
            return;
        }
        // An open chat is saved only by its owner, so a save under way cannot undo the rename.
        open.record.title = chatTitle(title);
        this.owners.save(open);
        await open.saving;
    }

    async delete(storage: ChatStorage, chatId: string): Promise<void> {
        if (this.owners.find(this.storeFor(storage), chatId)) {
            throw new QodeAssistError({ category: 'Validation', message: 'This chat is open in a window; close its view before deleting it.' });
        }
        await this.storeFor(storage).delete(chatId);
    }

    async exportMarkdown(storage: ChatStorage, chatId: string): Promise<string> {
        return chatToMarkdown(await this.storeFor(storage).load(chatId));
    }

    /** The chat picker's agents: the chat roster in order, then the agents marked for chat. */
    agents(workspacePath: string | undefined): AgentChoice[] {
        return agentChoices(this.options.configurations.forWorkspace(workspacePath).current, 'chat');
    }

    roles(workspacePath: string | undefined): RoleChoice[] {
        const configuration = this.options.configurations.forWorkspace(workspacePath).current;
        return [...configuration.roles.values()].map(role => ({ id: role.id, name: role.name, description: role.description ?? '' }));
    }

    skills(workspacePath: string | undefined, settings?: ChatTurnOptions['skills']): SkillChoice[] {
        const engine = this.options.runtime.skillsFor(workspacePath, settings, isProjectLayerLoaded(this.options.configurations, workspacePath));
        return (engine?.all ?? []).map(skill => ({ name: skill.name, description: skill.description }));
    }

    /** Workspace files matching an @-mention query (ignore rules applied), workspace-relative. */
    async findFiles(workspacePath: string, query: string, options: { useGitignore: boolean }): Promise<string[]> {
        const files = new WorkspaceFiles([workspacePath], { useGitignore: options.useGitignore });
        return (await findFiles({ files }, query, 30)).map(file => file.relative);
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
        for (const chat of this.chats.values()) {
            chat.viewers.delete(this.viewer);
            if (chat.live && chat.sender === this.viewer) {
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

    /** The chat is still shown here and still owned (it was not closed while the turn waited or was prepared). */
    private stillShown(chat: OpenChat): void {
        if (!chat.viewers.has(this.viewer) || this.owners.find(chat.store, chat.id) !== chat) {
            throw new QodeAssistError({ category: 'Validation', message: 'The chat was closed in this window before the message could go.' });
        }
    }

    /** Nothing was sent: the sender sees it as a failed request, like any other, ending its turn. */
    private failedToStart(chatId: string, error: unknown, turnId?: string): string {
        return this.endedUnsent(chatId, turnId, requestId => ({ type: 'Failed', requestId, error: toErrorInfo(error) }));
    }

    /** A turn that never went ends for its sender only: a request of its own, started and ended at once (its turn named, so the view ends that turn). */
    private endedUnsent(chatId: string, turnId: string | undefined, end: (requestId: string) => ChatEvent): string {
        const requestId = randomUUID();
        this.host?.onEvents(chatId, [{ type: 'RequestStarted', requestId, ...(turnId ? { turnId } : {}) }, end(requestId)]);
        return requestId;
    }

    /** The session's events to every window showing the chat: a new request is announced with its user message, edits get their ids, the answer is saved as it streams and when it ends. */
    private forward(chat: OpenChat, agent: ResolvedAgent, events: readonly SessionEvent[]): void {
        const told: ChatEvent[] = [];
        const kept: ChatEvent[] = [];
        for (const event of events) {
            if (event.type === 'RequestStarted') {
                chat.begin(event.requestId);
                const message = chat.history.at(-1);
                if (chat.announce && message?.role === 'user') {
                    told.push({ type: 'UserMessage', ...(chat.announce.turnId ? { turnId: chat.announce.turnId } : {}), message });
                }
                chat.announce = undefined;
            }
            const forwarded = this.numbered(chat, agent, event);
            told.push(forwarded);
            kept.push(forwarded);
        }
        const terminal = events.some(isTerminal);
        try {
            chat.keep(kept);
            this.owners.broadcast(chat, told);
        } finally {
            // Whatever a window did with the events, a request that ended lets the next one go.
            if (terminal) {
                chat.end();
                this.owners.save(chat);
            } else if (chat.live) {
                this.owners.saveSoon(chat);
            }
        }
    }

    /** A file edit's result names the key the chat keeps it under; an Auth failure where the key comes from. */
    private numbered(chat: OpenChat, agent: ResolvedAgent, event: SessionEvent): ChatEvent {
        if (event.type !== 'ToolResult' || !event.fileEdit) {
            return explainAuthFailure(agent, event);
        }
        // The round's results join the history after this event: count the earlier ones with this id.
        const earlier = chat.history.reduce((sum, message) => sum + message.blocks.filter(block => block.type === 'tool_result' && block.toolUseId === event.callId).length, 0);
        const editId = editIdOf(event.callId, earlier);
        chat.record.edits[editId] = { ...event.fileEdit, state: 'applied' };
        return { ...event, editId };
    }

    private storeFor(storage: ChatStorage): ChatStore {
        if (this.options.storeFor) {
            return this.options.storeFor(storage);
        }
        const root = storage.location === 'workspace' && storage.workspacePath ? storage.workspacePath : this.options.userHome;
        return new ChatStore(join(root, '.qodeassist', 'chats'));
    }

    private chatFor(chatId: string): OpenChat {
        const chat = this.chats.get(chatId);
        if (!chat) {
            throw new QodeAssistError({ category: 'Validation', message: `The chat ${chatId} is not open in this IDE backend (it was closed, or the backend restarted); open it again from the chat history.` });
        }
        return chat;
    }
}

function formatBytes(bytes: number): string {
    return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
