import type { ContentRef, ContextManifest } from '@qodeassist/core';
import { CommandService, DisposableCollection, nls } from '@theia/core';
import { codicon, Message, OpenerService, open, StatefulWidget } from '@theia/core/lib/browser';
import { ClipboardService } from '@theia/core/lib/browser/clipboard-service';
import { ExtractableWidget } from '@theia/core/lib/browser/widgets/extractable-widget';
import { ReactWidget } from '@theia/core/lib/browser/widgets/react-widget';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import * as React from '@theia/core/shared/react';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import { FileDialogService } from '@theia/filesystem/lib/browser/file-dialog/file-dialog-service';
import { FileService } from '@theia/filesystem/lib/browser/file-service';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import {
    AgentChoice, ATTACHMENT_LIMITS, ChatInput, ChatSendOptions, ChatStorage, OpenedChat, PermissionAnswer, QodeAssistChatService, RoleChoice, SkillChoice
} from '../../common/chat-protocol';
import { QodeAssistPreferences, skillSettingsOf, toolSettingsOf } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { QodeAssistChatClientImpl } from './chat-client';
import { ChatErrorAction, OPEN_PREFERENCES_COMMAND } from './chat-error-affordance';
import { SetupCard } from './setup-card';
import { QodeAssistProjectTrust } from '../trust/project-trust';
import { ProjectTrustNotice } from '../trust/project-trust-notice';
import { QodeAssistConfigService, SetupState } from '../../common/config-protocol';
import { warmUpMarkdown } from './chat-markdown';
import { manifestSummary, MessageActions, MessageView, PendingPermission } from './chat-message-view';
import { applySuggestion, mentionsIn, rankMentions, SuggestionTrigger, triggerAt } from './chat-suggestions';
import { AttachmentView, ChatMessage, ChatTranscript, ToolActivity } from './chat-transcript';
import { ChatFileEdits } from './file-edits';

const HISTORY_COMMAND = 'qodeassist.chat.history';
const ESTIMATE_DELAY_MS = 300;
const STREAM_RENDER_MS = 50;
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

interface Attachment {
    ref: ContentRef;
    view: AttachmentView;
    /** Kept until sent: when the view switches chats (summarize, open), the copy is made again beside the new one. */
    bytes: Uint8Array;
}

interface Suggestions {
    trigger: SuggestionTrigger;
    items: Array<{ value: string; detail?: string }>;
    index: number;
}

/** What a chat view remembers across reloads: the saved chat it shows. */
interface ChatViewState {
    chatId: string;
    location: ChatStorage['location'];
}

/** Keeps the newest content in view after every render while the user has not scrolled up. */
function ScrollAnchor({ stick }: { stick: () => boolean }): React.ReactElement {
    const anchor = React.useRef<HTMLDivElement>(null);
    React.useLayoutEffect(() => {
        if (stick()) {
            anchor.current?.scrollIntoView({ block: 'end' });
        }
    });
    return <div ref={anchor} className='qa-scroll-anchor' />;
}

/** Tells the message list that the streaming answer changed, without rendering the rest of the view. */
class MessagesChanged {
    private revision = 0;
    private readonly listeners = new Set<() => void>();
    readonly subscribe = (listener: () => void): () => void => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    };
    readonly current = (): number => this.revision;
    fire(): void {
        this.revision++;
        for (const listener of this.listeners) {
            listener();
        }
    }
}

interface MessageListProps {
    messages: readonly ChatMessage[];
    changed: MessagesChanged;
    permissions: readonly PendingPermission[];
    actions: MessageActions;
    stick: () => boolean;
}

/**
 * The chat's messages. While an answer streams only this list renders again, on `changed`: the
 * toolbar and the composer (pickers, chips, buttons) stay as they are, and no React elements are
 * made for them every batch only to be thrown away.
 */
function MessageList({ messages, changed, permissions, actions, stick }: MessageListProps): React.ReactElement {
    React.useSyncExternalStore(changed.subscribe, changed.current);
    return <>
        {messages.map(message => <MessageView key={message.id} message={message} revision={message.revision}
            permissions={message.status === 'streaming' ? permissions : NO_PERMISSIONS} actions={actions} />)}
        <ScrollAnchor stick={stick} />
    </>;
}

function toBase64(bytes: Uint8Array): string {
    let binary = '';
    for (let offset = 0; offset < bytes.length; offset += 0x8000) {
        binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
    }
    return btoa(binary);
}

function mediaTypeOf(name: string, given?: string): string {
    if (given) {
        return given;
    }
    return IMAGE_TYPES[name.split('.').pop()?.toLowerCase() ?? ''] ?? 'text/plain';
}

function formatTokens(tokens: number): string {
    return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}k` : String(tokens);
}

/** One chat, bound to one backend session; a projection of that session's events. */
@injectable()
export class ChatWidget extends ReactWidget implements ExtractableWidget, StatefulWidget {
    static readonly ID = 'qodeassist-chat';
    static readonly LABEL = nls.localize('qodeassist/chat/title', 'QodeAssist Chat');

    /** Chats can move to a separate window (Theia secondary window) and back. */
    readonly isExtractable = true;
    secondaryWindow: Window | undefined;

    /** The n-th chat: 0 is the one the view command opens, the others come from "New Chat". */
    setInstance(instance: number): void {
        this.id = instance ? `${ChatWidget.ID}:${instance}` : ChatWidget.ID;
        this.title.label = instance ? `${ChatWidget.LABEL} ${instance + 1}` : ChatWidget.LABEL;
        this.title.caption = this.title.label;
    }

    @inject(QodeAssistChatService) protected readonly chatService: QodeAssistChatService;
    @inject(QodeAssistChatClientImpl) protected readonly chatClient: QodeAssistChatClientImpl;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(QodeAssistConfigService) protected readonly configService: QodeAssistConfigService;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;
    @inject(CommandService) protected readonly commands: CommandService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(EditorManager) protected readonly editors: EditorManager;
    @inject(FileService) protected readonly files: FileService;
    @inject(FileDialogService) protected readonly fileDialogs: FileDialogService;
    @inject(ClipboardService) protected readonly clipboard: ClipboardService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(ChatFileEdits) protected readonly fileEdits: ChatFileEdits;
    @inject(QodeAssistProjectTrust) protected readonly projectTrust: QodeAssistProjectTrust;

    protected readonly transcript = new ChatTranscript();
    /** The backend chat this view shows; its id is also the saved chat's id. */
    protected chatId: Promise<string> | undefined;
    protected storageLocation: ChatStorage['location'] | undefined;
    protected readonly chatBinding = new DisposableCollection();
    protected draft = '';
    protected messagesElement: HTMLDivElement | null = null;
    protected inputElement: HTMLTextAreaElement | null = null;
    protected stickToBottom = true;
    protected permissions: PendingPermission[] = [];
    protected nextPermissionId = 1;
    protected attachments: Attachment[] = [];
    protected linked: string[] = [];
    protected syncOpenEditors = false;
    protected setup: SetupState | undefined;
    protected agent = '';
    protected role = '';
    protected agents: AgentChoice[] = [];
    protected roles: RoleChoice[] = [];
    protected skills: SkillChoice[] = [];
    protected suggestions: Suggestions | undefined;
    protected estimate: ContextManifest | undefined;
    protected showManifest = false;
    protected composerError: string | undefined;
    protected notice: string | undefined;
    protected summarizing = false;
    protected estimateTimer: ReturnType<typeof setTimeout> | undefined;
    protected estimateGeneration = 0;

    @postConstruct()
    protected init(): void {
        this.id = ChatWidget.ID;
        this.title.label = ChatWidget.LABEL;
        this.title.caption = ChatWidget.LABEL;
        this.title.iconClass = codicon('comment-discussion');
        warmUpMarkdown(work => window.requestIdleCallback(work, { timeout: 2_000 }));
        this.title.closable = true;
        this.addClass('qa-chat');
        this.agent = this.preferences['qodeassist.chat.agent'];
        this.role = this.preferences['qodeassist.chat.role'];
        this.syncOpenEditors = this.preferences['qodeassist.chat.syncOpenEditors'];
        this.toDispose.push(this.chatClient.onDidReceiveSessionEvents(async ({ sessionId, events }) => {
            if (!this.chatId || sessionId !== await this.chatId) {
                return;
            }
            let changed = false;
            let ended = false;
            for (const event of events) {
                changed = this.transcript.apply(event) || changed;
                ended ||= event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled';
            }
            if (ended) {
                this.permissions = [];
                this.scheduleEstimate();
                const failed = events.find(event => event.type === 'Failed');
                if (failed?.type === 'Failed' && ['Auth', 'Network', 'Config'].includes(failed.error.category)) {
                    void this.checkSetup();
                }
            }
            if (changed) {
                this.updateStreaming(ended);
            }
        }));
        this.toDispose.push(this.chatClient.onDidReceiveNotice(async ({ chatId, message }) => {
            if (this.chatId && chatId === await this.chatId) {
                this.notice = message;
                this.update();
            }
        }));
        this.toDispose.push(this.editors.onCreated(() => this.syncOpenEditors && this.scheduleEstimate()));
        this.toDispose.push(this.projectTrust.onDidChange(() => {
            this.update();
            void this.checkSetup();
        }));
        this.toDispose.push(this.chatBinding);
        void this.workspace.ready.then(() => this.checkSetup());
        this.toDispose.push({
            dispose: () => {
                clearTimeout(this.estimateTimer);
                clearTimeout(this.streamRenderTimer);
                // A prompt nobody can answer any more must not hold the backend's tool loop.
                for (const pending of this.permissions) {
                    pending.answer('deny');
                }
                this.permissions = [];
                const chat = this.chatId;
                this.chatId = undefined;
                void chat?.then(id => this.chatService.closeSession(id)).catch(() => undefined);
            }
        });
        this.update();
    }

    /** Shows the Quick Setup card while the chat has no agent it can reach. */
    protected async checkSetup(): Promise<void> {
        const state = await this.configService.setupState(this.workspacePath).catch(() => undefined);
        if (state?.needed !== (this.setup?.needed ?? false)) {
            this.setup = state;
            this.update();
        }
    }

    /**
     * Renders a streaming answer at most every STREAM_RENDER_MS: a provider sends far more
     * batches than anyone can read, and each render costs layout. Only the message list renders
     * while the answer streams; the end renders the whole view, at once.
     */
    protected updateStreaming(ended: boolean): void {
        const wait = this.lastStreamRender + STREAM_RENDER_MS - performance.now();
        if (ended || wait <= 0) {
            this.renderStreaming(ended);
        } else {
            this.streamRenderTimer ??= setTimeout(() => this.renderStreaming(false), wait);
        }
    }

    /** The whole view (the answer ended), or only the message list. */
    protected renderStreaming(whole: boolean): void {
        clearTimeout(this.streamRenderTimer);
        this.streamRenderTimer = undefined;
        this.lastStreamRender = performance.now();
        if (whole) {
            this.update();
        } else {
            this.messagesChanged.fire();
        }
    }

    protected readonly messagesChanged = new MessagesChanged();
    protected readonly isStuckToBottom = (): boolean => this.stickToBottom;

    protected lastStreamRender = 0;
    protected streamRenderTimer: ReturnType<typeof setTimeout> | undefined;

    /** Moved to another placement or window: render again so the newest messages are in view there. */
    protected override onAfterAttach(msg: Message): void {
        super.onAfterAttach(msg);
        void this.loadChoices();
        this.update();
    }

    protected override onActivateRequest(msg: Message): void {
        super.onActivateRequest(msg);
        this.inputElement?.focus();
    }

    storeState(): object | undefined {
        return this.savedChat;
    }

    restoreState(state: object): void {
        const saved = state as Partial<ChatViewState>;
        if (typeof saved.chatId === 'string' && (saved.location === 'workspace' || saved.location === 'user')) {
            void this.workspace.ready.then(() => this.openSaved(saved.chatId!, saved.location));
        }
    }

    /** The saved chat this view shows, once it has one. */
    protected savedChat: ChatViewState | undefined;

    /** The id of the chat shown now, if any. */
    async currentChatId(): Promise<string | undefined> {
        return this.chatId;
    }

    protected get busy(): boolean {
        return this.transcript.pending !== undefined || this.summarizing;
    }

    protected get workspacePath(): string | undefined {
        return this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
    }

    storage(location = this.storageLocation ?? this.preferences['qodeassist.chat.historyLocation']): ChatStorage {
        return { location, workspacePath: this.workspacePath };
    }

    protected sendOptions(): ChatSendOptions {
        const root = this.workspace.tryGetRoots()[0];
        const current = this.editors.currentEditor?.editor.uri;
        return {
            workspacePath: root?.resource.path.fsPath(),
            project: root?.name,
            file: current && root ? root.resource.relative(current)?.toString() : undefined,
            agent: this.agent || undefined,
            role: this.role || undefined,
            linked: this.linkedPaths(),
            tools: toolSettingsOf(this.preferences),
            skills: skillSettingsOf(this.preferences)
        };
    }

    /** Linked files, plus every open editor when synced. */
    protected linkedPaths(): string[] {
        const paths = new Set(this.linked);
        if (this.syncOpenEditors) {
            for (const widget of this.editors.all) {
                if (widget.editor.uri.scheme === 'file') {
                    paths.add(widget.editor.uri.path.fsPath());
                }
            }
        }
        return [...paths];
    }

    protected relativePath(path: string): string {
        const root = this.workspacePath;
        return root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
    }

    async send(text: string): Promise<void> {
        const message = text.trim();
        if ((!message && this.attachments.length === 0) || this.busy) {
            return;
        }
        const off = this.qodeAssistSwitch.offReason;
        if (off) {
            this.composerError = off;
            this.update();
            return;
        }
        this.composerError = undefined;
        try {
            // Summarize first: what is uploaded from here on belongs to the chat that will be sent.
            if (await this.autoCompress(message)) {
                this.update();
            }
            const mentioned = await this.attachMentions(message);
            const attachments = [...this.attachments, ...mentioned];
            this.draft = '';
            if (this.inputElement) {
                this.inputElement.value = '';
            }
            this.attachments = [];
            this.estimate = undefined;
            this.stickToBottom = true;
            const invoked = /^\/([a-z0-9-]{1,64})(?:\s+([\s\S]*))?$/.exec(message);
            const skill = invoked && this.skills.some(candidate => candidate.name === invoked[1]) ? invoked : undefined;
            this.transcript.beginTurn(skill ? skill[2]?.trim() ?? '' : message, attachments.map(attachment => attachment.view), skill?.[1]);
            this.update();
            const input: ChatInput = { text: message, attachments: attachments.map(attachment => attachment.ref) };
            const chatId = await this.ensureChat();
            await this.chatService.send(chatId, input, this.sendOptions());
            this.savedChat = { chatId, location: this.storage().location };
        } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            if (this.transcript.pending) {
                this.chatId = undefined;
                this.transcript.failPending({ category: 'Network', message: `The QodeAssist backend could not take the message: ${reason}` });
            } else {
                this.composerError = reason;
            }
            this.update();
        }
    }

    /** `@path` mentions of workspace files go along as attachments: a copy of the file as it is now. */
    protected async attachMentions(text: string): Promise<Attachment[]> {
        const root = this.workspace.tryGetRoots()[0];
        if (!root) {
            return [];
        }
        const attached: Attachment[] = [];
        for (const path of mentionsIn(text)) {
            const uri = root.resource.resolve(path);
            if (!await this.files.exists(uri)) {
                continue;
            }
            const open = this.editors.all.find(widget => widget.editor.uri.isEqual(uri));
            const content = open ? open.editor.document.getText() : (await this.files.read(uri)).value;
            attached.push(await this.upload(path, 'text/plain', new TextEncoder().encode(content)));
        }
        return attached;
    }

    /** Summarizes first when the next send would fill more of the context than the user allows. */
    protected async autoCompress(text: string): Promise<boolean> {
        const percent = this.preferences['qodeassist.chat.autoCompressPercent'];
        if (!percent || !this.chatId || this.transcript.messages.length === 0) {
            return false;
        }
        const manifest = await this.chatService.estimate(await this.chatId, { text, attachments: this.attachments.map(a => a.ref) }, this.sendOptions());
        if (!manifest || manifest.estimate * 100 <= manifest.limit * percent) {
            return false;
        }
        await this.summarize();
        return true;
    }

    /** The backend chat of this view, opened on first use. */
    protected ensureChat(): Promise<string> {
        if (!this.chatId) {
            const location = this.storage().location;
            this.storageLocation = location;
            this.chatId = this.chatService.openSession(this.storage(location)).then(opened => this.bind(opened.chatId));
            this.chatId.catch(() => { this.chatId = undefined; });
        }
        return this.chatId;
    }

    /** Answers this chat's tool permission requests in this view. */
    protected bind(chatId: string): string {
        this.chatBinding.dispose();
        this.chatBinding.push(this.chatClient.setPermissionHandler(chatId, request => new Promise<PermissionAnswer>(resolve => {
            this.permissions = [...this.permissions, { id: this.nextPermissionId++, request, answer: resolve }];
            this.stickToBottom = true;
            this.update();
        })));
        return chatId;
    }

    /** Shows a saved chat: a new session seeded with its history. */
    async openSaved(chatId: string, location: ChatStorage['location'] = this.storage().location): Promise<void> {
        await this.stop();
        const previous = this.chatId;
        this.chatId = undefined;
        if (previous) {
            await previous.then(async id => {
                if (id !== chatId) {
                    await this.chatService.closeSession(id);
                }
            }).catch(() => undefined);
        }
        try {
            this.storageLocation = location;
            const opened = await this.chatService.openSession(this.storage(location), chatId);
            await this.showChat(opened, location);
        } catch (error) {
            this.notice = error instanceof Error ? error.message : String(error);
            this.update();
        }
    }

    protected async showChat(opened: OpenedChat, location: ChatStorage['location']): Promise<void> {
        this.chatId = Promise.resolve(this.bind(opened.chatId));
        this.savedChat = { chatId: opened.chatId, location };
        this.transcript.restore(opened.chat?.history ?? [], opened.chat?.edits ?? {});
        if (opened.chat?.agent !== undefined) {
            this.agent = opened.chat.agent;
        }
        if (opened.chat?.role !== undefined) {
            this.role = opened.chat.role;
        }
        this.title.caption = opened.chat?.title ?? this.title.label;
        this.stickToBottom = true;
        this.notice = undefined;
        await this.adoptAttachments();
        this.scheduleEstimate();
        this.update();
    }

    /** Attachments waiting in the composer were copied beside the previous chat; the new one gets its own copies. */
    protected async adoptAttachments(): Promise<void> {
        const waiting = this.attachments;
        this.attachments = [];
        for (const attachment of waiting) {
            try {
                this.attachments = [...this.attachments, await this.upload(attachment.view.name, attachment.view.mediaType, attachment.bytes)];
            } catch (error) {
                this.composerError = error instanceof Error ? error.message.replace(/^Request failed: /, '') : String(error);
            }
        }
    }

    /** Replaces the conversation by a summary in a new chat linked to this one; the original stays saved. */
    async summarize(): Promise<void> {
        if (!this.chatId || this.summarizing || this.transcript.messages.length === 0) {
            return;
        }
        this.summarizing = true;
        this.notice = undefined;
        this.update();
        try {
            const opened = await this.chatService.summarize(await this.chatId, this.sendOptions());
            await this.showChat(opened, this.storage().location);
        } catch (error) {
            this.notice = `Summarizing failed: ${error instanceof Error ? error.message : String(error)}`;
        } finally {
            this.summarizing = false;
            this.update();
        }
    }

    async stop(): Promise<void> {
        for (const pending of this.permissions) {
            pending.answer('deny');
        }
        this.permissions = [];
        if (this.chatId && this.transcript.pending) {
            await this.chatService.cancel(await this.chatId);
        }
    }

    // ---- attachments and linked files ----

    protected async upload(name: string, mediaType: string, bytes: Uint8Array): Promise<Attachment> {
        const image = mediaType.startsWith('image/');
        const limit = image ? ATTACHMENT_LIMITS.imageBytes : ATTACHMENT_LIMITS.textBytes;
        if (bytes.length > limit) {
            throw new Error(`"${name}" is ${(bytes.length / 1024 / 1024).toFixed(1)} MB; the chat takes ${image ? 'images' : 'files'} up to ${(limit / 1024 / 1024).toFixed(1)} MB.`);
        }
        const ref = await this.chatService.attach(await this.ensureChat(), name, mediaType, toBase64(bytes));
        return { ref, view: { name, mediaType }, bytes };
    }

    protected async addAttachments(files: Array<{ name: string; mediaType: string; bytes: () => Promise<Uint8Array> }>): Promise<void> {
        this.composerError = undefined;
        for (const file of files) {
            try {
                this.attachments = [...this.attachments, await this.upload(file.name, file.mediaType, await file.bytes())];
            } catch (error) {
                this.composerError = error instanceof Error ? error.message.replace(/^Request failed: /, '') : String(error);
            }
        }
        this.scheduleEstimate();
        this.update();
    }

    protected async attachFromDialog(): Promise<void> {
        const uris = await this.fileDialogs.showOpenDialog({ title: nls.localize('qodeassist/chat/attachTitle', 'Attach files or images'), canSelectFiles: true, canSelectFolders: false, canSelectMany: true });
        if (uris) {
            await this.attachUris(Array.isArray(uris) ? uris : [uris]);
        }
    }

    protected async attachUris(uris: URI[]): Promise<void> {
        await this.addAttachments(uris.map(uri => ({
            name: uri.path.base, mediaType: mediaTypeOf(uri.path.base),
            bytes: async () => (await this.files.readFile(uri)).value.buffer
        })));
    }

    /** Files dropped on the chat are attachments, not files to open in an editor: the shell must not see the drop. */
    protected readonly onDrop = (event: React.DragEvent<HTMLDivElement>): void => {
        event.preventDefault();
        event.stopPropagation();
        this.removeClass('qa-dragging');
        const files = [...event.dataTransfer.files];
        if (files.length > 0) {
            void this.addAttachments(files.map(file => ({ name: file.name, mediaType: mediaTypeOf(file.name, file.type), bytes: async () => new Uint8Array(await file.arrayBuffer()) })));
            return;
        }
        const uris = (event.dataTransfer.getData('text/uri-list') || event.dataTransfer.getData('text/plain'))
            .split(/\r?\n/).map(line => line.trim()).filter(line => line.startsWith('file:')).map(line => new URI(line));
        if (uris.length > 0) {
            void this.attachUris(uris);
        }
    };

    protected readonly onPaste = (event: React.ClipboardEvent<HTMLTextAreaElement>): void => {
        const files = [...event.clipboardData.files];
        if (files.length === 0) {
            return;
        }
        event.preventDefault();
        void this.addAttachments(files.map((file, index) => {
            const name = file.name && file.name !== 'image.png' ? file.name : `pasted-${Date.now()}-${index}.${(file.type.split('/')[1] || 'png')}`;
            return { name, mediaType: mediaTypeOf(name, file.type), bytes: async () => new Uint8Array(await file.arrayBuffer()) };
        }));
    };

    protected linkCurrentFile(): void {
        const uri = this.editors.currentEditor?.editor.uri;
        if (uri?.scheme === 'file' && !this.linked.includes(uri.path.fsPath())) {
            this.linked = [...this.linked, uri.path.fsPath()];
            this.scheduleEstimate();
            this.update();
        }
    }

    // ---- pickers, suggestions and the token counter ----

    protected async loadChoices(): Promise<void> {
        try {
            const workspace = this.workspacePath;
            [this.agents, this.roles, this.skills] = await Promise.all([
                this.chatService.listAgents(workspace), this.chatService.listRoles(workspace), this.chatService.listSkills(workspace, skillSettingsOf(this.preferences))
            ]);
            this.update();
        } catch {
            // The pickers stay as they were; sending reports configuration problems with their fix.
        }
    }

    protected async updateSuggestions(): Promise<void> {
        const input = this.inputElement;
        const trigger = input ? triggerAt(input.value, input.selectionStart ?? input.value.length) : undefined;
        if (!trigger) {
            if (this.suggestions) {
                this.suggestions = undefined;
                this.update();
            }
            return;
        }
        let items: Suggestions['items'];
        if (trigger.kind === 'skill') {
            items = this.skills.filter(skill => skill.name.startsWith(trigger.query)).map(skill => ({ value: skill.name, detail: skill.description }));
        } else {
            const open = this.editors.all.filter(widget => widget.editor.uri.scheme === 'file').map(widget => this.relativePath(widget.editor.uri.path.fsPath()));
            const workspace = this.workspacePath;
            const found = workspace ? await this.chatService.findFiles(workspace, trigger.query, { useGitignore: this.preferences['qodeassist.tools.useGitignore'] }) : [];
            const current = this.inputElement ? triggerAt(this.inputElement.value, this.inputElement.selectionStart ?? 0) : undefined;
            if (current?.query !== trigger.query || current.kind !== trigger.kind) {
                return;
            }
            items = rankMentions(trigger.query, open, found).map(path => ({ value: path, detail: open.includes(path) ? nls.localize('qodeassist/chat/openEditor', 'open editor') : undefined }));
        }
        this.suggestions = items.length > 0 ? { trigger, items, index: 0 } : undefined;
        this.update();
    }

    protected choose(value: string): void {
        const input = this.inputElement;
        if (!input || !this.suggestions) {
            return;
        }
        const next = applySuggestion(input.value, input.selectionStart ?? input.value.length, this.suggestions.trigger, value);
        input.value = next.text;
        this.draft = next.text;
        input.setSelectionRange(next.caret, next.caret);
        input.focus();
        this.suggestions = undefined;
        this.scheduleEstimate();
        this.update();
    }

    protected scheduleEstimate(): void {
        clearTimeout(this.estimateTimer);
        this.estimateTimer = setTimeout(() => void this.refreshEstimate(), ESTIMATE_DELAY_MS);
    }

    protected async refreshEstimate(): Promise<void> {
        if (this.busy || this.isDisposed) {
            return;
        }
        const generation = ++this.estimateGeneration;
        try {
            const chatId = await this.ensureChat();
            const draft = this.inputElement?.value ?? this.draft;
            const estimate = await this.chatService.estimate(chatId, { text: draft, attachments: this.attachments.map(a => a.ref) }, this.sendOptions());
            // An older estimate that answers late must not replace a newer one.
            if (generation === this.estimateGeneration) {
                this.estimate = estimate;
                this.update();
            }
        } catch {
            this.estimate = undefined;
        }
    }

    // ---- edits ----

    protected async setEdit(message: ChatMessage, tools: ToolActivity[], state: 'applied' | 'undone'): Promise<void> {
        const chatId = this.chatId ? await this.chatId : undefined;
        // Edits of one file build on each other: take them back newest first, apply them again oldest first.
        for (const tool of state === 'undone' ? [...tools].reverse() : tools) {
            const edit = tool.edit;
            if (!edit || edit.state === state) {
                continue;
            }
            try {
                await (state === 'undone' ? this.fileEdits.undo(edit.record) : this.fileEdits.reapply(edit.record));
                edit.state = state;
                edit.problem = undefined;
                if (chatId) {
                    await this.chatService.setEditState(chatId, edit.id, state);
                }
            } catch (error) {
                edit.problem = error instanceof Error ? error.message : String(error);
            }
        }
        this.transcript.touch(message);
        this.update();
    }

    protected readonly actions: MessageActions = {
        answerPermission: (pending, answer) => {
            this.permissions = this.permissions.filter(candidate => candidate !== pending);
            pending.answer(answer);
            this.update();
        },
        setEdit: (message, tools, state) => void this.setEdit(message, tools, state),
        openFile: path => void open(this.openers, URI.fromFilePath(path)),
        runErrorAction: action => void this.runErrorAction(action),
        openChat: chatId => void this.commands.executeCommand('qodeassist.chat.openSaved', chatId, this.storage().location)
    };

    protected async runErrorAction(action: ChatErrorAction): Promise<void> {
        if (action === 'open-settings') {
            await this.commands.executeCommand(OPEN_PREFERENCES_COMMAND, 'qodeassist');
        } else if (action === 'summarize') {
            await this.summarize();
        } else {
            const text = this.transcript.lastUserText();
            if (text) {
                await this.send(text);
            }
        }
    }

    // ---- rendering ----

    protected render(): React.ReactNode {
        return <div className='qa-chat-root'>
            {this.renderToolbar()}
            {this.notice && <div className='qa-notice'><i className={codicon('warning')} /> {this.notice}
                <button className='qa-icon-button' title='Dismiss' onClick={() => { this.notice = undefined; this.update(); }}><i className={codicon('close')} /></button>
            </div>}
            <ProjectTrustNotice state={this.projectTrust.state} trust={() => void this.projectTrust.requestTrust()} />
            <div className='qa-messages' ref={element => { this.messagesElement = element; }} onScroll={this.onScroll} onClick={this.onMessagesClick}>
                {this.setup?.needed && <SetupCard state={this.setup} apply={choice => this.configService.applySetup(this.workspacePath, choice)} done={() => {
                    this.setup = undefined;
                    this.notice = nls.localize('qodeassist/setup/done', 'QodeAssist is set up; send your message.');
                    this.scheduleEstimate();
                    this.update();
                }} />}
                {this.transcript.messages.length === 0 && !this.setup?.needed && this.renderEmptyState()}
                <MessageList messages={this.transcript.messages} changed={this.messagesChanged} permissions={this.permissions} actions={this.actions}
                    stick={this.isStuckToBottom} />
            </div>
            {this.renderComposer()}
        </div>;
    }

    protected renderToolbar(): React.ReactNode {
        const canSummarize = this.transcript.messages.length > 0 && !this.busy;
        return <div className='qa-toolbar'>
            <span className='qa-toolbar-title' title={this.title.caption}>{this.title.caption !== this.title.label ? this.title.caption : ''}</span>
            <button className='qa-icon-button' data-action='history' title={nls.localize('qodeassist/chat/history', 'Chat history')}
                onClick={() => void this.commands.executeCommand(HISTORY_COMMAND)}><i className={codicon('history')} /></button>
            <button className='qa-icon-button' data-action='summarize' disabled={!canSummarize}
                title={nls.localize('qodeassist/chat/summarizeTitle', 'Summarize this chat into a new one (the original is kept)')}
                onClick={() => void this.summarize()}>
                <i className={this.summarizing ? `${codicon('loading')} theia-animation-spin` : codicon('note')} />
            </button>
            <button className='qa-icon-button' data-action='new-chat' title={nls.localize('qodeassist/chat/newChat', 'New chat')}
                onClick={() => void this.commands.executeCommand('qodeassist.chat.new')}><i className={codicon('add')} /></button>
        </div>;
    }

    protected renderEmptyState(): React.ReactNode {
        return <div className='qa-empty'>
            <i className={codicon('comment-discussion')} />
            <p>{nls.localize('qodeassist/chat/empty', 'Ask about your code. Answers stream from the configured provider.')}</p>
            <p className='qa-empty-hint'>{nls.localize('qodeassist/chat/emptyHint', 'Type @ to mention a file, / for a skill; drop or paste files and images to attach them.')}</p>
        </div>;
    }

    protected renderComposer(): React.ReactNode {
        const busy = this.busy;
        const linked = this.linkedPaths();
        return <div className='qa-composer' onDragOver={event => { event.preventDefault(); event.stopPropagation(); this.addClass('qa-dragging'); }}
            onDragLeave={() => this.removeClass('qa-dragging')} onDrop={this.onDrop}>
            {(linked.length > 0 || this.attachments.length > 0) && <div className='qa-context-row'>
                {linked.map(path => <span key={path} className='qa-chip qa-linked' data-linked={this.relativePath(path)} title={path}>
                    <i className={codicon('link')} /> {this.relativePath(path)}
                    {this.linked.includes(path) && <button className='qa-chip-remove' title='Unlink' onClick={() => {
                        this.linked = this.linked.filter(candidate => candidate !== path);
                        this.scheduleEstimate();
                        this.update();
                    }}><i className={codicon('close')} /></button>}
                </span>)}
                {this.attachments.map((attachment, index) => <span key={`a${index}`} className='qa-chip qa-attachment' data-attachment={attachment.view.name}>
                    <i className={codicon(attachment.view.mediaType.startsWith('image/') ? 'file-media' : 'file')} /> {attachment.view.name}
                    <button className='qa-chip-remove' title='Remove' onClick={() => {
                        this.attachments = this.attachments.filter(candidate => candidate !== attachment);
                        this.scheduleEstimate();
                        this.update();
                    }}><i className={codicon('close')} /></button>
                </span>)}
            </div>}
            {this.composerError && <div className='qa-composer-error'><i className={codicon('error')} /> {this.composerError}</div>}
            {this.suggestions && <div className='qa-suggestions' role='listbox'>
                {this.suggestions.items.map((item, index) => <div key={item.value} role='option' aria-selected={index === this.suggestions!.index}
                    className={`qa-suggestion${index === this.suggestions!.index ? ' qa-selected' : ''}`} data-value={item.value}
                    onMouseDown={event => { event.preventDefault(); this.choose(item.value); }}>
                    <i className={codicon(this.suggestions!.trigger.kind === 'skill' ? 'book' : 'file')} /> <span>{item.value}</span>
                    {item.detail && <span className='qa-suggestion-detail'>{item.detail}</span>}
                </div>)}
            </div>}
            <textarea
                className='theia-input qa-input'
                ref={element => { this.inputElement = element; }}
                placeholder={nls.localize('qodeassist/chat/placeholder', 'Ask QodeAssist… (@ file, / skill)')}
                rows={3}
                defaultValue={this.draft}
                onChange={event => { this.draft = event.target.value; this.scheduleEstimate(); void this.updateSuggestions(); }}
                onKeyDown={this.onInputKeyDown}
                onPaste={this.onPaste}
                onBlur={() => { if (this.suggestions) { this.suggestions = undefined; this.update(); } }}
            />
            <div className='qa-composer-actions'>
                <button className='qa-icon-button' data-action='attach' title={nls.localize('qodeassist/chat/attach', 'Attach files or images')}
                    onClick={() => void this.attachFromDialog()}><i className={codicon('attach')} /></button>
                <button className='qa-icon-button' data-action='link-file' title={nls.localize('qodeassist/chat/linkFile', 'Link the current editor\'s file (sent with every message)')}
                    onClick={() => this.linkCurrentFile()}><i className={codicon('link')} /></button>
                <label className='qa-sync' title={nls.localize('qodeassist/chat/syncTitle', 'Link every open editor')}>
                    <input type='checkbox' data-action='sync-editors' checked={this.syncOpenEditors}
                        onChange={event => { this.syncOpenEditors = event.target.checked; this.scheduleEstimate(); this.update(); }} />
                    {nls.localize('qodeassist/chat/syncEditors', 'Open editors')}
                </label>
                <select className='theia-select qa-agent-picker' value={this.agent} title={nls.localize('qodeassist/chat/agentPicker', 'Agent')}
                    onFocus={() => void this.loadChoices()}
                    onChange={event => { this.agent = event.target.value; this.scheduleEstimate(); this.update(); }}>
                    <option value=''>{nls.localize('qodeassist/chat/rosterAgent', 'Auto (chat roster)')}</option>
                    {this.agents.map(agent => <option key={agent.name} value={agent.name}>{`${agent.name} · ${agent.model}`}</option>)}
                    {this.agent && !this.agents.some(agent => agent.name === this.agent) && <option value={this.agent}>{this.agent}</option>}
                </select>
                <select className='theia-select qa-role-picker' value={this.role} title={nls.localize('qodeassist/chat/rolePicker', 'Role')}
                    onChange={event => { this.role = event.target.value; this.scheduleEstimate(); this.update(); }}>
                    <option value=''>{nls.localize('qodeassist/chat/noRole', 'No role')}</option>
                    {this.roles.map(role => <option key={role.id} value={role.id} title={role.description}>{role.name}</option>)}
                    {this.role && !this.roles.some(role => role.id === this.role) && <option value={this.role}>{this.role}</option>}
                </select>
                <span className='qa-flex' />
                {this.renderTokenCounter()}
                {busy && !this.summarizing
                    ? <button className='theia-button qa-stop' onClick={() => void this.stop()}>
                        <i className={codicon('debug-stop')} /> {nls.localize('qodeassist/chat/stop', 'Stop')}
                    </button>
                    : <button className='theia-button qa-send' disabled={this.summarizing} onClick={() => void this.sendDraft()}>
                        <i className={codicon('send')} /> {nls.localize('qodeassist/chat/send', 'Send')}
                    </button>}
            </div>
            {this.showManifest && this.estimate && this.renderManifest(this.estimate)}
        </div>;
    }

    protected renderTokenCounter(): React.ReactNode {
        const manifest = this.estimate;
        if (!manifest) {
            return undefined;
        }
        const level = manifest.refusal ? 'refuse' : manifest.warning ? 'warn' : 'ok';
        return <button className='qa-token-counter' data-level={level} title={manifest.refusal ?? manifest.warning ?? manifestSummary(manifest)}
            onClick={() => { this.showManifest = !this.showManifest; this.update(); }}>
            {level !== 'ok' && <i className={codicon('warning')} />} {`${formatTokens(manifest.estimate)} / ${formatTokens(manifest.limit)}`}
        </button>;
    }

    protected renderManifest(manifest: ContextManifest): React.ReactNode {
        const rows: Array<[string, string]> = [
            ...manifest.layers.map((layer): [string, string] => [`system: ${layer.name}`, `~${layer.tokens}`]),
            [`history (${manifest.history.messages} messages, ${manifest.history.toolRounds} tool rounds)`, `~${manifest.history.tokens}`],
            ...manifest.pinned.map((pin): [string, string] => [pin.label, `~${pin.tokens}`]),
            ...(manifest.sections ?? []).map((section): [string, string] => [`${section.name} (at ${section.placement})`, `~${section.tokens}`]),
            [`this message${manifest.task.images ? ` (${manifest.task.images} image${manifest.task.images > 1 ? 's' : ''})` : ''}`, `~${manifest.task.tokens}`],
            [`tools (${manifest.tools.count})`, `~${manifest.tools.tokens}`],
            ...(manifest.budget?.protectedEvidence ? [[`protected evidence (latest build, problems, last writes)`, `~${manifest.budget.protectedEvidence}`] as [string, string]] : []),
            ...manifest.elisions.map((elision): [string, string] => [`elided ${elision.kind}${elision.reason ? ` (${elision.reason})` : ''}: ${elision.detail}`, `−${elision.tokens}`])
        ];
        const repairs = Object.entries(manifest.repairs ?? {});
        return <div className='qa-manifest' role='dialog'>
            <div className='qa-manifest-title'>{nls.localize('qodeassist/chat/manifest', 'Next request')}: {`~${manifest.estimate} of ${manifest.limit} tokens`}</div>
            <table><tbody>{rows.map(([label, tokens], index) => <tr key={index}><td>{label}</td><td>{tokens}</td></tr>)}</tbody></table>
            {manifest.filters.length > 0 && <div className='qa-manifest-note'>{manifest.filters.map(filter => `${filter.kind}: ${filter.detail}`).join('; ')}</div>}
            {repairs.length > 0 && <div className='qa-manifest-note' data-repairs>{nls.localize('qodeassist/chat/repairs', 'Tool-trace repairs')}: {repairs.map(([cause, count]) => `${cause} × ${count}`).join(', ')}</div>}
            {(manifest.refusal ?? manifest.warning) && <div className='qa-manifest-warning'>
                <i className={codicon('warning')} /> {manifest.refusal ?? manifest.warning}{' '}
                <button className='theia-button secondary' data-action='summarize-from-counter' onClick={() => void this.summarize()}>
                    {nls.localize('qodeassist/chat/summarize', 'Summarize')}
                </button>
            </div>}
        </div>;
    }

    protected readonly onMessagesClick = (event: React.MouseEvent<HTMLDivElement>): void => {
        const button = (event.target as HTMLElement).closest<HTMLButtonElement>('[data-copy="code"]');
        const code = button?.closest('.qa-code')?.querySelector('pre code, pre');
        if (button && code) {
            void Promise.resolve(this.clipboard.writeText(code.textContent ?? '')).then(() => {
                button.textContent = nls.localize('qodeassist/chat/copied', 'Copied');
                setTimeout(() => { button.textContent = nls.localize('qodeassist/chat/copy', 'Copy'); }, 1500);
            });
        }
    };

    protected readonly onScroll = (): void => {
        const element = this.messagesElement;
        if (element) {
            this.stickToBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
        }
    };

    protected readonly onInputKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>): void => {
        const suggestions = this.suggestions;
        if (suggestions) {
            if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
                event.preventDefault();
                const step = event.key === 'ArrowDown' ? 1 : -1;
                suggestions.index = (suggestions.index + step + suggestions.items.length) % suggestions.items.length;
                this.update();
                return;
            }
            if (event.key === 'Enter' || event.key === 'Tab') {
                event.preventDefault();
                this.choose(suggestions.items[suggestions.index].value);
                return;
            }
            if (event.key === 'Escape') {
                event.preventDefault();
                this.suggestions = undefined;
                this.update();
                return;
            }
        }
        if (event.key !== 'Enter' || event.nativeEvent.isComposing) {
            return;
        }
        const sendOnEnter = this.preferences['qodeassist.chat.sendOnEnter'];
        const wantsSend = sendOnEnter ? !event.shiftKey : (event.ctrlKey || event.metaKey);
        if (wantsSend) {
            event.preventDefault();
            void this.sendDraft();
        }
    };

    protected async sendDraft(): Promise<void> {
        if (this.busy) {
            return;
        }
        await this.send(this.inputElement?.value ?? this.draft);
    }
}

const NO_PERMISSIONS: readonly PendingPermission[] = [];
