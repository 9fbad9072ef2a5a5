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
import { OpenChat } from './open-chat';

export interface ChatFeatureOptions {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
    /** The user's home, where `~/.qodeassist/chats` lives when chats are kept per user. */
    userHome: string;
    /** Where a storage's chats are kept; default `.qodeassist/chats` of the workspace or the user's home. */
    storeFor?(storage: ChatStorage): ChatStore;
}

/**
 * The chat, IDE-free: open and restore chats, prepare each turn (agent, role, environment,
 * skills, linked files, tools), send, forward the session's events with the ids file edits are
 * kept under, save after every answer, summarize into a new chat. One per host: the IDE makes
 * one per window connection (its RPC service adapts it), the bench one per run.
 */
export class ChatFeature {
    private host: ChatHost | undefined;
    private readonly chats = new Map<string, OpenChat>();
    /** Saves under way, also of chats closed meanwhile. */
    private readonly writing = new Set<Promise<void>>();
    private readonly turns: ChatTurnContext;

    constructor(private readonly options: ChatFeatureOptions) {
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

    async open(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        const store = this.storeFor(storage);
        if (!chatId) {
            const id = randomUUID();
            this.chats.set(id, new OpenChat(id, store, { createdAt: new Date().toISOString(), edits: {} }));
            return { chatId: id };
        }
        if (this.chats.has(chatId)) {
            await this.close(chatId);
        }
        const stored = await store.load(chatId);
        const original = stored.compressedFrom ? await store.load(stored.compressedFrom).then(chat => chat.history, () => undefined) : undefined;
        this.chats.set(chatId, OpenChat.fromStored(store, stored, original));
        return { chatId, chat: stored };
    }

    /** Sends the user's message; the events follow on the host. A turn that could not start is reported as a failed request. */
    async send(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<string> {
        const chat = this.chatFor(chatId);
        return chat.exclusive(async () => {
            try {
                const { session, tools, skills } = await prepareTurn(this.turns, chat, options);
                const requestId = await session.send(turnBlocks(chat, input, skills), tools ? { tools: tools.definitions(), executor: tools } : {});
                chat.record.agent = options.agent;
                chat.record.role = options.role;
                this.save(chat);
                return requestId;
            } catch (error) {
                // Nothing was sent: report it as a failed request so the chat shows it like any other.
                const requestId = randomUUID();
                this.host?.onEvents(chatId, [{ type: 'RequestStarted', requestId }, { type: 'Failed', requestId, error: toErrorInfo(error) }]);
                return requestId;
            }
        });
    }

    /** What the next send would contain and cost; undefined while busy or when it cannot be prepared (that shows at send). */
    async estimate(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<ContextManifest | undefined> {
        const chat = this.chats.get(chatId);
        if (!chat || chat.session?.busy) {
            return undefined;
        }
        return chat.exclusive(async () => {
            if (chat.session?.busy || this.chats.get(chatId) !== chat) {
                return undefined;
            }
            try {
                const { session, tools, skills } = await prepareTurn(this.turns, chat, options);
                return await session.preview(turnBlocks(chat, input, skills), tools ? { tools: tools.definitions(), executor: tools } : {});
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
        return chat.store.storeAttachment(chatId, name, mediaType, bytes);
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
        await chat.store.save(stored);
        this.chats.set(id, OpenChat.fromStored(chat.store, stored, [...history]));
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
        this.save(chat);
        await chat.saving;
    }

    async cancel(chatId: string): Promise<void> {
        await this.chats.get(chatId)?.session?.cancel();
    }

    /** Cancels what the chat is doing and forgets it here; its last save still completes. */
    async close(chatId: string): Promise<void> {
        const chat = this.chats.get(chatId);
        this.chats.delete(chatId);
        await chat?.session?.cancel();
        await chat?.saving;
    }

    list(storage: ChatStorage): ReturnType<ChatStore['list']> {
        return this.storeFor(storage).list();
    }

    async rename(storage: ChatStorage, chatId: string, title: string): Promise<void> {
        const store = this.storeFor(storage);
        const open = this.chats.get(chatId);
        if (open?.store.directory !== store.directory) {
            await store.rename(chatId, title);
            return;
        }
        // An open chat is saved only through its queue, so a save under way cannot undo the rename.
        open.record.title = chatTitle(title);
        this.save(open);
        await open.saving;
    }

    async delete(storage: ChatStorage, chatId: string): Promise<void> {
        if (this.chats.has(chatId)) {
            throw new QodeAssistError({ category: 'Validation', message: 'This chat is open; close its view before deleting it.' });
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
        await Promise.all([...this.writing]);
    }

    dispose(): void {
        for (const chat of this.chats.values()) {
            void chat.session?.cancel();
        }
        this.chats.clear();
        this.host = undefined;
    }

    private forward(chat: OpenChat, agent: ResolvedAgent, events: readonly SessionEvent[]): void {
        const forwarded = events.map((event): ChatEvent => {
            if (event.type !== 'ToolResult' || !event.fileEdit) {
                return explainAuthFailure(agent, event);
            }
            // The round's results join the history after this event: count the earlier ones with this id.
            const earlier = chat.history.reduce((sum, message) => sum + message.blocks.filter(block => block.type === 'tool_result' && block.toolUseId === event.callId).length, 0);
            const editId = editIdOf(event.callId, earlier);
            chat.record.edits[editId] = { ...event.fileEdit, state: 'applied' };
            return { ...event, editId };
        });
        // A chat closed meanwhile has no view left to tell.
        if (this.chats.get(chat.id) === chat) {
            this.host?.onEvents(chat.id, forwarded);
        }
        if (events.some(isTerminal)) {
            this.save(chat);
        }
    }

    /** Saves the chat in the background, one save after another; a failure is told to the user, nothing is lost. */
    private save(chat: OpenChat): void {
        const snapshot = chat.snapshot();
        if (!snapshot) {
            return;
        }
        const saving = chat.saving.then(() => chat.store.save(snapshot)).catch(error => {
            this.host?.onNotice(chat.id, `The chat could not be saved to ${chat.store.directory}: ${error instanceof Error ? error.message : String(error)}. It stays open here; check the folder's permissions or change qodeassist.chat.historyLocation.`);
        });
        chat.saving = saving;
        this.writing.add(saving);
        void saving.finally(() => this.writing.delete(saving));
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
            throw new QodeAssistError({ category: 'Validation', message: `No QodeAssist chat ${chatId} is open here; it was closed or the backend restarted. Open it again from the chat history.` });
        }
        return chat;
    }
}

function formatBytes(bytes: number): string {
    return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
