import type { ContentRef, ContextManifest } from '@qodeassist/core';
import { DisposableCollection, nls, QuickInputService } from '@theia/core';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import { FileDialogService } from '@theia/filesystem/lib/browser/file-dialog/file-dialog-service';
import { FileService } from '@theia/filesystem/lib/browser/file-service';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import type { ChatMode } from '@qodeassist/core';
import {
    ACP_AGENT_PREFIX, AgentChoice, AgentSessionState, ATTACHMENT_LIMITS, ChatEvent, ChatSendOptions, OpenedChat, QodeAssistChatService, RoleChoice, SkillChoice
} from '../../common/chat-protocol';
import { QodeAssistPreferences, rulesSettingsOf, skillSettingsOf, toolSettingsOf } from '../qodeassist-preferences';
import { ChatComposerPort, OutgoingAttachment } from './chat-controller';
import { Attachment, AttachmentSource, mediaTypeOf, toBase64 } from './chat-attachment';
import { mentionsIn } from './chat-suggestions';
import { partBytes } from './chat-mcp-offers';
import { QodeAssistMcpFeaturesService } from '../../common/mcp-features-protocol';
import { McpClientImpl } from '../mcp/mcp-client';
import { nextAgentState } from './agent-session-state';
import { ComposerSuggestions, Suggestions } from './chat-composer-suggestions';
import { HeldImage, holdImage, ImageNotice, imagesNotTakenOf, localImageRefusal, noticeForAttached } from './chat-image-notice';
import { chatCosts, ChatCosts, RequestUsage } from './chat-usage';

const ESTIMATE_DELAY_MS = 300;

export type { Attachment, AttachmentSource, Suggestions };
export { mediaTypeOf };

/** What the composer needs of its chat: whether a request is in flight, and the backend chat to copy attachments beside. */
export interface ComposerChat {
    readonly busy: boolean;
    ensureChat(): Promise<string>;
    /** The chat's answers as shown, for what its turns cost (the token counter's popover). */
    readonly transcript?: { readonly messages: ReadonlyArray<{ role: string; requests?: readonly RequestUsage[] }> };
}

/**
 * The next message of one chat as the user composes it: the draft text, attachments, linked
 * files, @-mention and /skill suggestions, the agent and role pickers and the token counter's estimate.
 */
@injectable()
export class ChatComposer implements ChatComposerPort {
    @inject(QodeAssistChatService) protected readonly chatService: QodeAssistChatService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(EditorManager) protected readonly editors: EditorManager;
    @inject(FileService) protected readonly files: FileService;
    @inject(FileDialogService) protected readonly fileDialogs: FileDialogService;
    @inject(QodeAssistMcpFeaturesService) protected readonly mcpFeatures: QodeAssistMcpFeaturesService;
    @inject(McpClientImpl) protected readonly mcpClient: McpClientImpl;
    @inject(QuickInputService) protected readonly quickInput: QuickInputService;

    draft = '';
    inputElement: HTMLTextAreaElement | null = null;
    attachments: Attachment[] = [];
    linked: string[] = [];
    syncOpenEditors = false;
    agent = '';
    role = '';
    mode: ChatMode = 'act';
    /** The plan being edited before Act (shown as the plan editor), or undefined. */
    planDraft: string | undefined;
    /** The edited plan the next send pins in place of the plan-mode answer; moved to `planSent` by `take`. */
    protected plan: string | undefined;
    protected planSent: string | undefined;
    agents: AgentChoice[] = [];
    roles: RoleChoice[] = [];
    protected skillChoices: SkillChoice[] = [];
    /** `@` and `/`: the suggestion list, MCP resources and prompts, and a prompt's argument form. */
    suggest: ComposerSuggestions;
    /** The external agent's modes and commands in this chat now, as its events told them. */
    agentSession: AgentSessionState | undefined;
    /** What the external agent last reported of its context window (it reports no per-request counts). */
    agentUsage: { used: number; size: number; cost?: { amount: number; currency: string } } | undefined;
    estimate: ContextManifest | undefined;
    showManifest = false;
    /** Why the last message or attachment did not go. */
    error: string | undefined;
    /** Images the agent takes none of: held back, or attached for another agent; the view offers the agents that take them. */
    imageNotice: ImageNotice | undefined;
    /** What the last `take` emptied, for `restoreDraft`: the attachments, without the copies of @-mentioned files (made again at the next send). */
    protected taken: Attachment[] = [];

    protected chat: ComposerChat | undefined;
    protected update: () => void = () => undefined;
    protected estimateTimer: ReturnType<typeof setTimeout> | undefined;
    protected estimateGeneration = 0;
    protected readonly toDispose = new DisposableCollection();
    protected disposed = false;

    @postConstruct()
    protected init(): void {
        this.agent = this.preferences['qodeassist.chat.agent'];
        this.role = this.preferences['qodeassist.chat.role'];
        this.syncOpenEditors = this.preferences['qodeassist.chat.syncOpenEditors'];
        this.toDispose.push(this.editors.onCreated(() => this.syncOpenEditors && this.scheduleEstimate()));
        this.toDispose.push({ dispose: () => clearTimeout(this.estimateTimer) });
        this.suggest = new ComposerSuggestions({
            composer: this, skills: () => this.skillChoices, update: () => this.update(),
            attach: part => this.attachOne({ name: part.name, mediaType: part.mediaType, bytes: partBytes(part) }),
            chatService: this.chatService, mcpFeatures: this.mcpFeatures, editors: this.editors, preferences: this.preferences, quickInput: this.quickInput
        });
        this.toDispose.push(this.mcpClient.onDidChange(() => void this.suggest.loadMcpOffers()));
    }

    get suggestions(): Suggestions | undefined {
        return this.suggest.suggestions;
    }

    /** Joins the composer to its chat and its view (which renders on `update`). */
    connect(chat: ComposerChat, update: () => void): void {
        this.chat = chat;
        this.update = update;
    }

    dispose(): void {
        this.disposed = true;
        this.toDispose.dispose();
    }

    /** The draft as typed: the text area when it is shown. */
    text(): string {
        return this.inputElement?.value ?? this.draft;
    }

    focus(): void {
        this.inputElement?.focus();
    }

    sendOnEnter(): boolean {
        return this.preferences['qodeassist.chat.sendOnEnter'];
    }

    get workspacePath(): string | undefined {
        return this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
    }

    // ---- what the controller asks ----

    sendOptions(): ChatSendOptions {
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
            skills: skillSettingsOf(this.preferences),
            rules: rulesSettingsOf(this.preferences),
            mode: this.mode,
            ...(this.planSent ?? this.plan) !== undefined ? { plan: this.planSent ?? this.plan } : {}
        };
    }

    skills(): readonly SkillChoice[] {
        // An external agent's `/command` is its own, sent as typed.
        return this.externalAgent() ? [] : this.skillChoices;
    }

    externalAgent(): boolean {
        return this.agent.startsWith(ACP_AGENT_PREFIX);
    }

    /** The chat's events: an external agent's modes and commands follow them. */
    followAgent(events: readonly ChatEvent[]): void {
        const next = events.reduce(nextAgentState, this.agentSession);
        const usage = [...events].reverse().find(event => event.type === 'AcpUsage');
        if (next !== this.agentSession || usage) {
            this.agentSession = next;
            this.agentUsage = usage?.type === 'AcpUsage' ? { used: usage.used, size: usage.size, ...(usage.cost ? { cost: usage.cost } : {}) } : this.agentUsage;
            this.update();
        }
    }

    /** Switches the external agent's mode (its session must be open: after the first message). */
    async setAgentMode(modeId: string): Promise<void> {
        const chat = this.chat;
        await chat?.ensureChat().then(chatId => this.chatService.setAgentMode(chatId, modeId)).catch(error => this.showProblem(error instanceof Error ? error.message : String(error)));
    }

    hasAttachments(): boolean {
        return this.attachments.length > 0;
    }

    attachmentRefs(): ContentRef[] {
        return this.attachments.map(attachment => attachment.ref);
    }

    async take(text: string): Promise<OutgoingAttachment[]> {
        const mentioned = await this.attachMentions(text);
        const attachments = [...this.attachments, ...mentioned];
        this.taken = this.attachments;
        this.planSent = this.plan;
        this.plan = undefined;
        this.setDraft('');
        this.attachments = [];
        this.imageNotice = this.imageNotice?.held.length ? { ...this.imageNotice, attached: [] } : undefined;
        this.estimate = undefined;
        return attachments.map(({ ref, view }) => ({ ref, view }));
    }

    restoreDraft(text: string): void {
        const typed = this.text().trim();
        this.setDraft(typed && typed !== text ? `${text}\n\n${typed}` : text);
        this.attachments = [...this.taken, ...this.attachments];
        this.taken = [];
        this.plan ??= this.planSent;
        this.scheduleEstimate();
        this.update();
    }

    /** Sets the draft, in the text area too when it is shown. */
    setDraft(text: string): void {
        this.draft = text;
        if (this.inputElement) {
            this.inputElement.value = text;
        }
    }

    showProblem(reason: string | undefined): void {
        this.error = reason;
    }

    async follow(opened: OpenedChat): Promise<void> {
        this.agentSession = opened.agentSession;
        if (opened.chat?.agent !== undefined) {
            this.agent = opened.chat.agent;
        }
        if (opened.chat?.role !== undefined) {
            this.role = opened.chat.role;
        }
        await this.adoptAttachments();
        this.scheduleEstimate();
    }

    // ---- attachments and linked files ----

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

    /** Attachments waiting in the composer were copied beside the previous chat; the new one gets its own copies. */
    protected async adoptAttachments(): Promise<void> {
        const waiting = this.attachments;
        this.attachments = [];
        for (const attachment of waiting) {
            await this.attachOne({ name: attachment.view.name, mediaType: attachment.view.mediaType, bytes: attachment.bytes });
        }
    }

    /**
     * Copies a file beside the chat for the agent the next send goes to: an image for an agent that
     * takes none is refused before anything is uploaded (the picker's agent) or by the backend (the roster's).
     */
    protected async upload(name: string, mediaType: string, bytes: Uint8Array): Promise<Attachment> {
        const image = mediaType.startsWith('image/');
        const limit = image ? ATTACHMENT_LIMITS.imageBytes : ATTACHMENT_LIMITS.textBytes;
        if (bytes.length > limit) {
            throw new Error(`"${name}" is ${(bytes.length / 1024 / 1024).toFixed(1)} MB; the chat takes ${image ? 'images' : 'files'} up to ${(limit / 1024 / 1024).toFixed(1)} MB.`);
        }
        const refusal = localImageRefusal(this.agents, this.agent, name, mediaType);
        if (refusal) {
            throw refusal;
        }
        const ref = await this.chatService.attach(await this.requireChat().ensureChat(), name, mediaType, toBase64(bytes), this.sendOptions());
        return { ref, view: { name, mediaType }, bytes };
    }

    /** Attaches one file; an image the agent takes none of is held in the notice, which offers the agents that take it. */
    protected async attachOne(file: HeldImage): Promise<void> {
        try {
            this.attachments = [...this.attachments, await this.upload(file.name, file.mediaType, file.bytes)];
        } catch (error) {
            const refused = imagesNotTakenOf(error);
            if (refused) {
                this.imageNotice = holdImage(this.imageNotice, refused, file);
            } else {
                this.error = error instanceof Error ? error.message.replace(/^Request failed: /, '') : String(error);
            }
        }
    }

    async addAttachments(files: AttachmentSource[]): Promise<void> {
        this.error = undefined;
        for (const file of files) {
            try {
                await this.attachOne({ name: file.name, mediaType: file.mediaType, bytes: await file.bytes() });
            } catch (error) {
                this.error = error instanceof Error ? error.message : String(error);
            }
        }
        this.scheduleEstimate();
        this.update();
    }

    /** The notice's images that were attached for another agent, or none. */
    protected attachedImages(): string[] {
        return this.attachments.filter(attachment => attachment.view.mediaType.startsWith('image/')).map(attachment => attachment.view.name);
    }

    dismissImageNotice(): void {
        this.imageNotice = undefined;
        this.update();
    }

    /** What the chat's last turn and the whole chat cost (from the answers shown), for the token counter's popover. */
    costs(): ChatCosts {
        return chatCosts(this.chat?.transcript?.messages ?? []);
    }

    async attachFromDialog(): Promise<void> {
        const uris = await this.fileDialogs.showOpenDialog({ title: nls.localize('qodeassist/chat/attachTitle', 'Attach files or images'), canSelectFiles: true, canSelectFolders: false, canSelectMany: true });
        if (uris) {
            await this.attachUris(Array.isArray(uris) ? uris : [uris]);
        }
    }

    async attachUris(uris: URI[]): Promise<void> {
        await this.addAttachments(uris.map(uri => ({
            name: uri.path.base, mediaType: mediaTypeOf(uri.path.base),
            bytes: async () => (await this.files.readFile(uri)).value.buffer
        })));
    }

    removeAttachment(attachment: Attachment): void {
        this.attachments = this.attachments.filter(candidate => candidate !== attachment);
        if (this.imageNotice && this.imageNotice.held.length === 0) {
            this.imageNotice = noticeForAttached(this.agents, this.agent, this.attachedImages());
        }
        this.scheduleEstimate();
        this.update();
    }

    linkCurrentFile(): void {
        const uri = this.editors.currentEditor?.editor.uri;
        if (uri?.scheme === 'file' && !this.linked.includes(uri.path.fsPath())) {
            this.linked = [...this.linked, uri.path.fsPath()];
            this.scheduleEstimate();
            this.update();
        }
    }

    unlink(path: string): void {
        this.linked = this.linked.filter(candidate => candidate !== path);
        this.scheduleEstimate();
        this.update();
    }

    /** Linked files, plus every open editor when synced. */
    linkedPaths(): string[] {
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

    relativePath(path: string): string {
        const root = this.workspacePath;
        return root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
    }

    // ---- pickers, suggestions and the token counter ----

    /** The user typed: the counter follows, and an @ or / offers what it could complete to. */
    draftChanged(text: string): void {
        this.draft = text;
        this.scheduleEstimate();
        void this.suggest.update();
    }

    setSyncOpenEditors(sync: boolean): void {
        this.syncOpenEditors = sync;
        this.scheduleEstimate();
        this.update();
    }

    /**
     * Another agent: images it takes none of are said so at once; images held back for the previous one
     * are attached again for it (refused again, they stay held).
     */
    setAgent(agent: string): void {
        this.agent = agent;
        const held = this.imageNotice?.held ?? [];
        this.imageNotice = noticeForAttached(this.agents, agent, this.attachedImages());
        this.scheduleEstimate();
        this.update();
        if (held.length > 0) {
            void this.addAttachments(held.map(image => ({ ...image, bytes: async () => image.bytes })));
        }
    }

    /** Plan (read-only tools, a plan asked for) or Act; the mode stays until the user switches it. */
    setMode(mode: ChatMode): void {
        this.mode = mode;
        this.scheduleEstimate();
        this.update();
    }

    /** Opens the plan editor with the plan as it stands, or closes it (undefined). */
    editPlan(draft: string | undefined): void {
        this.planDraft = draft;
        this.update();
    }

    /** Act on the edited plan: the mode turns to Act and the next send pins this text as the plan. */
    actOn(plan: string): void {
        this.plan = plan;
        this.planDraft = undefined;
        this.setMode('act');
    }

    setRole(role: string): void {
        this.role = role;
        this.scheduleEstimate();
        this.update();
    }

    async loadChoices(): Promise<void> {
        try {
            const workspace = this.workspacePath;
            [this.agents, this.roles, this.skillChoices] = await Promise.all([
                this.chatService.listAgents(workspace), this.chatService.listRoles(workspace), this.chatService.listSkills(workspace, skillSettingsOf(this.preferences))
            ]);
            this.update();
        } catch {
            // The pickers stay as they were; sending reports configuration problems with their fix.
        }
        await this.suggest.loadMcpOffers();
    }

    toggleManifest(): void {
        this.showManifest = !this.showManifest;
        this.update();
    }

    scheduleEstimate(): void {
        clearTimeout(this.estimateTimer);
        this.estimateTimer = setTimeout(() => void this.refreshEstimate(), ESTIMATE_DELAY_MS);
    }

    protected async refreshEstimate(): Promise<void> {
        if (!this.chat || this.chat.busy || this.disposed) {
            return;
        }
        const generation = ++this.estimateGeneration;
        try {
            const chatId = await this.chat.ensureChat();
            const estimate = await this.chatService.estimate(chatId, { text: this.text(), attachments: this.attachmentRefs() }, this.sendOptions());
            // An older estimate that answers late must not replace a newer one.
            if (generation === this.estimateGeneration) {
                this.estimate = estimate;
                this.update();
            }
        } catch {
            this.estimate = undefined;
        }
    }

    protected requireChat(): ComposerChat {
        if (!this.chat) {
            throw new Error('The composer is not connected to a chat.');
        }
        return this.chat;
    }
}
