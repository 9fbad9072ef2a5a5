import {
    ChatStore, chatTitle, chatToMarkdown, CHAT_FILE_VERSION, compressWithRoster, ConfigurationService, ContentRef, ContextManifest,
    findFiles, HistoryBlock, HistoryMessage, isTerminal, explainAuthError, pickAgent, QodeAssistError, ResolvedAgent, SecretsStore, Session, SessionEvent,
    SkillsEngine, StoredChat, StoredFileEdit, titleOf, toErrorInfo, ToolKitExecutor, WorkspaceFiles
} from '@qodeassist/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { ConfigurationProvider, isProjectLayerLoaded, QodeAssistConfiguration, QodeAssistSecretsStore, QodeAssistUserHome } from './backend-symbols';
import { EventCoalescer } from './event-coalescer';
import { McpHubs } from './mcp-service-impl';
import { SessionPools } from './session-pools';
import { TheiaHostModels } from './theia-host-models';
import { ConnectionLog } from './connection-log';
import { agentChoices, createToolExecutor, skillRootsFor } from './tool-host';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import {
    AgentChoice, ATTACHMENT_LIMITS, ChatEvent, ChatInput, ChatSendOptions, ChatSkillSettings, ChatStorage, ChatToolSettings, OpenedChat, QodeAssistChatClient, QodeAssistChatService,
    editIdOf, RoleChoice, SkillChoice
} from '../common/chat-protocol';

/** Where a chat is saved, and what the saved file holds besides the session's history. */
interface ChatRecord {
    title?: string;
    createdAt: string;
    agent?: string;
    role?: string;
    edits: Record<string, StoredFileEdit>;
    compressedFrom?: string;
}

interface Chat {
    id: string;
    store: ChatStore;
    record: ChatRecord;
    /** The history before a session exists (a restored chat); the session owns it afterwards. */
    seed: HistoryMessage[];
    /** The history of the chat this one summarizes, for read_original_history. */
    original?: HistoryMessage[];
    session?: Session;
    linked: Set<string>;
    /** The chat's tools, created for its workspace and settings; remembers "allow for this chat". */
    tools?: { key: string; executor: ToolKitExecutor };
    /** Saves run one after another, newest last. */
    saving: Promise<void>;
}

/** The chat sessions of one frontend connection; everything is cancelled when the connection closes. */
@injectable()
export class QodeAssistChatServiceImpl implements QodeAssistChatService {
    private client: QodeAssistChatClient | undefined;
    private readonly chats = new Map<string, Chat>();
    private readonly pools: SessionPools;
    private readonly skills = new Map<string, SkillsEngine>();
    /** Each chat's events on their way to the browser, deltas joined per interval. */
    private readonly outboxes = new Map<string, EventCoalescer<ChatEvent>>();
    /** Saves under way, also of chats closed meanwhile. */
    private readonly writing = new Set<Promise<void>>();

    constructor(
        @inject(QodeAssistSecretsStore) secrets: SecretsStore,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider,
        @inject(QodeAssistUserHome) private readonly userHome: string,
        @inject(McpHubs) @optional() private readonly mcp?: McpHubs,
        @inject(TheiaHostModels) @optional() hostModels?: TheiaHostModels,
        @inject(ConnectionLog) @optional() log?: ConnectionLog
    ) {
        this.pools = new SessionPools(secrets, hostModels, log);
    }

    setClient(client: QodeAssistChatClient | undefined): void {
        this.client = client;
    }

    async openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat> {
        const store = this.storeFor(storage);
        if (!chatId) {
            const id = randomUUID();
            this.chats.set(id, { id, store, record: { createdAt: new Date().toISOString(), edits: {} }, seed: [], linked: new Set(), saving: Promise.resolve() });
            return { chatId: id };
        }
        const open = this.chats.get(chatId);
        if (open) {
            await this.closeSession(chatId);
        }
        const stored = await store.load(chatId);
        const original = stored.compressedFrom ? await store.load(stored.compressedFrom).then(chat => chat.history, () => undefined) : undefined;
        this.chats.set(chatId, {
            id: chatId, store, seed: stored.history, original, linked: new Set(), saving: Promise.resolve(),
            record: { title: stored.title, createdAt: stored.createdAt, agent: stored.agent, role: stored.role, edits: stored.edits, compressedFrom: stored.compressedFrom }
        });
        return { chatId, chat: stored };
    }

    async send(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<string> {
        const chat = this.chatFor(chatId);
        try {
            const { session, tools } = await this.prepare(chat, options);
            const requestId = await session.send(this.blocksOf(chat, input, options), tools ? { tools: tools.definitions(), executor: tools } : {});
            chat.record.agent = options.agent;
            chat.record.role = options.role;
            this.save(chat);
            return requestId;
        } catch (error) {
            // Nothing was sent: report it as a failed request so the chat shows it like any other.
            const requestId = randomUUID();
            this.client?.onSessionEvents(chatId, [{ type: 'RequestStarted', requestId }, { type: 'Failed', requestId, error: toErrorInfo(error) }]);
            return requestId;
        }
    }

    async estimate(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<ContextManifest | undefined> {
        const chat = this.chats.get(chatId);
        if (!chat || chat.session?.busy) {
            return undefined;
        }
        try {
            const { session, tools } = await this.prepare(chat, options);
            return await session.preview(this.blocksOf(chat, input, options), tools ? { tools: tools.definitions(), executor: tools } : {});
        } catch {
            // A missing key or a broken configuration shows when the user sends; the counter just has nothing to say.
            return undefined;
        }
    }

    async attach(chatId: string, name: string, mediaType: string, base64: string): Promise<ContentRef> {
        const chat = this.chatFor(chatId);
        const bytes = Buffer.from(base64, 'base64');
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

    async summarize(chatId: string, options: ChatSendOptions): Promise<OpenedChat> {
        const chat = this.chatFor(chatId);
        const history = chat.session?.history ?? chat.seed;
        const configurationService = this.configurations.forWorkspace(options.workspacePath);
        await chat.session?.cancel();
        await chat.saving;
        const result = await compressWithRoster(history, {
            configuration: configurationService.current, sessions: this.pools.for(configurationService), estimator: this.pools.estimator,
            compressedFrom: chatId, routing: { file: options.file, project: options.project }
        });
        const id = randomUUID();
        const now = new Date().toISOString();
        const stored: StoredChat = {
            version: CHAT_FILE_VERSION, id, title: `Summary: ${chat.record.title ?? titleOf(history)}`, createdAt: now, updatedAt: now,
            agent: chat.record.agent, role: chat.record.role, history: result.history, edits: {}, compressedFrom: chatId
        };
        await chat.store.save(stored);
        this.chats.set(id, {
            id, store: chat.store, seed: result.history, original: [...history], linked: new Set(), saving: Promise.resolve(),
            record: { title: stored.title, createdAt: now, agent: stored.agent, role: stored.role, edits: {}, compressedFrom: chatId }
        });
        await this.closeSession(chatId);
        return { chatId: id, chat: stored };
    }

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

    async closeSession(chatId: string): Promise<void> {
        const chat = this.chats.get(chatId);
        this.chats.delete(chatId);
        await chat?.session?.cancel();
        this.outboxes.get(chatId)?.dispose();
        this.outboxes.delete(chatId);
        await chat?.saving;
    }

    async listChats(storage: ChatStorage): Promise<{ chats: Awaited<ReturnType<ChatStore['list']>>['chats']; unreadable: Awaited<ReturnType<ChatStore['list']>>['unreadable'] }> {
        return this.storeFor(storage).list();
    }

    async renameChat(storage: ChatStorage, chatId: string, title: string): Promise<void> {
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

    async deleteChat(storage: ChatStorage, chatId: string): Promise<void> {
        if (this.chats.has(chatId)) {
            throw new QodeAssistError({ category: 'Validation', message: 'This chat is open; close its view before deleting it.' });
        }
        await this.storeFor(storage).delete(chatId);
    }

    async exportChat(storage: ChatStorage, chatId: string): Promise<string> {
        return chatToMarkdown(await this.storeFor(storage).load(chatId));
    }

    async listAgents(workspacePath: string | undefined): Promise<AgentChoice[]> {
        const configuration = this.configurations.forWorkspace(workspacePath).current;
        return agentChoices(configuration, configuration.rosters.chat);
    }

    async listRoles(workspacePath: string | undefined): Promise<RoleChoice[]> {
        const configuration = this.configurations.forWorkspace(workspacePath).current;
        return [...configuration.roles.values()].map(role => ({ id: role.id, name: role.name, description: role.description ?? '' }));
    }

    async listSkills(workspacePath: string | undefined, settings?: ChatSkillSettings): Promise<SkillChoice[]> {
        return (this.skillsFor(workspacePath, settings)?.all ?? []).map(skill => ({ name: skill.name, description: skill.description }));
    }

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
        for (const outbox of this.outboxes.values()) {
            outbox.dispose();
        }
        this.outboxes.clear();
        this.pools.dispose();
        for (const engine of this.skills.values()) {
            engine.dispose();
        }
        this.skills.clear();
        this.client = undefined;
    }

    /** The chat's session for the agent this send goes to, with its role, skills, linked files and tools set. */
    private async prepare(chat: Chat, options: ChatSendOptions): Promise<{ session: Session; tools?: ToolKitExecutor }> {
        const configurationService = this.configurations.forWorkspace(options.workspacePath);
        const configuration = configurationService.current;
        const agent = this.agentFor(configurationService, options);
        if (chat.session?.agent.name !== agent.name) {
            // Another agent answers from now on: the conversation moves with the chat. Acquire first, so a
            // failure (a missing key) leaves the chat and its history as they were.
            const session = await this.pools.for(configurationService).acquire(agent.name, events => this.forward(chat, agent, events));
            const previous = chat.session;
            session.restore(previous?.history ?? chat.seed);
            chat.session = session;
            chat.linked.clear();
            if (previous) {
                await this.pools.for(configurationService).release(previous);
            }
        }
        const session = chat.session;
        const role = options.role ? configuration.roles.get(options.role) : undefined;
        if (options.role && !role) {
            throw new QodeAssistError({ category: 'Config', message: `There is no role "${options.role}". Pick another role, or add roles/${options.role}.json to .qodeassist.` });
        }
        if (role) {
            session.setLayer('agent.role', role.systemPrompt);
        } else {
            session.removeLayer('agent.role');
        }
        this.link(chat, session, options);
        const skills = this.skillsFor(options.workspacePath, options.skills);
        const tools = agent.enableTools && options.workspacePath ? this.toolsFor(chat, options.workspacePath, options.tools, skills, options.skills) : undefined;
        session.setLayer('skills.catalog', skills ? [skills.alwaysOnText(), tools ? skills.catalog() : ''].filter(Boolean).join('\n\n') : '');
        return { session, tools };
    }

    /** The user's blocks: attachments (checked to be this chat's own copies), then a skill invocation or the text. */
    private blocksOf(chat: Chat, input: ChatInput, options: ChatSendOptions): HistoryBlock[] {
        const attached = input.attachments.map((ref): HistoryBlock => {
            if (!chat.store.ownsAttachment(chat.id, ref.path)) {
                throw new QodeAssistError({ category: 'Validation', message: `The attachment ${ref.name} is not one of this chat's; attach it again.` });
            }
            return ref.mediaType.startsWith('image/') ? { type: 'image', ref } : { type: 'attachment', ref };
        });
        const text = input.text.trim();
        const typed = !text ? [] : this.skillsFor(options.workspacePath, options.skills)?.invoke(text) ?? [{ type: 'text' as const, text }];
        return [...attached, ...typed];
    }

    /** Linked files become pinned context, read again at every send: the editor's text first, else the disk. */
    private link(chat: Chat, session: Session, options: ChatSendOptions): void {
        const wanted = new Set(options.linked ?? []);
        for (const path of chat.linked) {
            if (!wanted.has(path)) {
                session.unpinContext(`linked:${path}`);
                chat.linked.delete(path);
            }
        }
        for (const path of wanted) {
            if (chat.linked.has(path) || !isAbsolute(path)) {
                continue;
            }
            const label = options.workspacePath ? relative(options.workspacePath, path) : path;
            session.pinContext(`linked:${path}`, async () => {
                const text = await this.client?.readOpenDocument(path) ?? await readFile(path, 'utf8').catch(() => undefined);
                return text === undefined
                    ? { id: `linked:${path}`, label: `Linked file ${label}`, text: `[linked file ${label} could not be read]` }
                    : { id: `linked:${path}`, label: `Linked file ${label}`, text: `Linked file ${label}:\n\`\`\`\n${text}\n\`\`\`` };
            });
            chat.linked.add(path);
        }
    }

    /** The built-in tools for a chat, confined to its workspace folder; write and execute ask the user in that chat. */
    private toolsFor(chat: Chat, workspace: string, settings: ChatToolSettings | undefined, skills: SkillsEngine | undefined, skillSettings: ChatSkillSettings | undefined): ToolKitExecutor {
        const projectTrusted = isProjectLayerLoaded(this.configurations, workspace);
        // Granting or withdrawing trust changes the tools offered and the skills' roots.
        const key = JSON.stringify([workspace, settings ?? null, chat.original !== undefined, skillSettings ?? null, projectTrusted]);
        if (chat.tools?.key !== key) {
            const original = chat.original;
            const executor = createToolExecutor({
                host: this.client, ownerId: chat.id, workspace, projectTrusted, settings, skills, originalHistory: original ? () => original : undefined,
                extraTools: this.mcp?.toolsFor(workspace)
            });
            chat.tools = { key, executor };
        }
        return chat.tools.executor;
    }

    /** Skills of a workspace (and the user's, and the extra folders), watched; undefined when the user turned skills off. */
    private skillsFor(workspace: string | undefined, settings?: ChatSkillSettings): SkillsEngine | undefined {
        const roots = skillRootsFor(workspace, settings, isProjectLayerLoaded(this.configurations, workspace));
        if (!roots) {
            return undefined;
        }
        const key = JSON.stringify([workspace ?? '', roots]);
        let engine = this.skills.get(key);
        if (!engine) {
            engine = new SkillsEngine(roots, { workspace }).start();
            this.skills.set(key, engine);
        }
        return engine;
    }

    private forward(chat: Chat, agent: ResolvedAgent, events: readonly SessionEvent[]): void {
        const forwarded = events.map((event): ChatEvent => {
            if (event.type !== 'ToolResult' || !event.fileEdit) {
                return explainAuthFailure(agent, event);
            }
            // The round's results join the history after this event: count the earlier ones with this id.
            const history = chat.session?.history ?? [];
            const earlier = history.reduce((sum, message) => sum + message.blocks.filter(block => block.type === 'tool_result' && block.toolUseId === event.callId).length, 0);
            const editId = editIdOf(event.callId, earlier);
            chat.record.edits[editId] = { ...event.fileEdit, state: 'applied' };
            return { ...event, editId };
        });
        let outbox = this.outboxes.get(chat.id);
        if (!outbox && this.chats.get(chat.id) === chat) {
            outbox = new EventCoalescer(batch => this.client?.onSessionEvents(chat.id, batch));
            this.outboxes.set(chat.id, outbox);
        }
        // A chat closed meanwhile has no view left to tell.
        outbox?.push(forwarded);
        if (events.some(isTerminal)) {
            this.save(chat);
        }
    }

    /** Saves the chat in the background, one save after another; a failure is told to the user, nothing is lost. */
    private save(chat: Chat): void {
        const history = [...chat.session?.history ?? chat.seed];
        if (history.length === 0) {
            return;
        }
        const snapshot: StoredChat = {
            version: CHAT_FILE_VERSION, id: chat.id, title: chat.record.title ?? titleOf(history), createdAt: chat.record.createdAt,
            updatedAt: new Date().toISOString(), history, edits: structuredClone(chat.record.edits),
            ...(chat.record.agent ? { agent: chat.record.agent } : {}), ...(chat.record.role ? { role: chat.record.role } : {}),
            ...(chat.record.compressedFrom ? { compressedFrom: chat.record.compressedFrom } : {})
        };
        const saving = chat.saving.then(() => chat.store.save(snapshot)).catch(error => {
            this.client?.onChatNotice(chat.id, `The chat could not be saved to ${chat.store.directory}: ${error instanceof Error ? error.message : String(error)}. It stays open here; check the folder's permissions or change qodeassist.chat.historyLocation.`);
        });
        chat.saving = saving;
        this.writing.add(saving);
        void saving.finally(() => this.writing.delete(saving));
    }

    private storeFor(storage: ChatStorage): ChatStore {
        const root = storage.location === 'workspace' && storage.workspacePath ? storage.workspacePath : this.userHome;
        return new ChatStore(join(root, '.qodeassist', 'chats'));
    }

    /** The agent the user chose, or the chat roster's first that fits. */
    private agentFor(configurationService: ConfigurationService, options: ChatSendOptions): ResolvedAgent {
        const configuration = configurationService.current;
        const agent = options.agent
            ? configuration.agents.get(options.agent)
            : pickAgent(configuration, 'chat', { file: options.file, project: options.project });
        if (agent) {
            return agent;
        }
        const errors = configuration.issues.filter(issue => issue.severity === 'error').length;
        throw new QodeAssistError({
            category: 'Config',
            message: options.agent
                ? `There is no agent named "${options.agent}". Pick another in the chat's agent picker or the QodeAssist settings (qodeassist.chat.agent).`
                : `No chat agent is available: the chat roster is empty or none of its agents fits this file.${errors ? ` The configuration has ${errors} error(s); fix them first.` : ''} Add an agent to [chat] in .qodeassist/agents/rosters.toml.`
        });
    }

    private chatFor(chatId: string): Chat {
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

/** A failure as the chat shows it: an Auth error names where the key is read from. */
function explainAuthFailure(agent: ResolvedAgent, event: SessionEvent): SessionEvent {
    return event.type === 'Failed' ? { ...event, error: explainAuthError(agent, event.error) } : event;
}

export function defaultUserHome(): string {
    return homedir();
}
