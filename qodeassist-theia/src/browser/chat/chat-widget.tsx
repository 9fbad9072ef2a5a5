import { CommandService, nls } from '@theia/core';
import { codicon, ConfirmDialog, Message, OpenerService, open, StatefulWidget } from '@theia/core/lib/browser';
import { ClipboardService } from '@theia/core/lib/browser/clipboard-service';
import { ExtractableWidget } from '@theia/core/lib/browser/widgets/extractable-widget';
import { ReactWidget } from '@theia/core/lib/browser/widgets/react-widget';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import * as React from '@theia/core/shared/react';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { ChatStorage, QodeAssistChatService } from '../../common/chat-protocol';
import { QodeAssistConfigService, SetupState } from '../../common/config-protocol';
import { BackendConnection } from '../connection/backend-connection';
import { QodeAssistPreferences } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { OPEN_CONFIGURATION_COMMAND } from '../shared/configuration-target';
import { ChatErrorAction, settingsTargetFor } from '../shared/error-affordance';
import { ChatFileEdits } from '../shared/file-edits';
import { askingOnProtected } from '../shared/protected-file-edits';
import { McpElicitationForms } from '../mcp/mcp-elicitation-view';
import { McpElicitations } from '../mcp/mcp-elicitations';
import { QodeAssistChatClientImpl } from '../shared/qodeassist-chat-client';
import { QodeAssistProjectTrust } from '../trust/project-trust';
import { ProjectTrustNotice } from '../trust/project-trust-notice';
import { ChatComposerService } from './chat-composer-service';
import { ComposerView } from './chat-composer-view';
import { ChatViewState } from './chat-controller-ports';
import { ChatControllerFactory, ChatControllerService } from './chat-controller-service';
import { warmUpMarkdown } from './chat-markdown';
import { MessageList, MessagesChanged } from './chat-message-list';
import { MessageActions } from './chat-message-view';
import { ChatRewindState } from './chat-rewind';
import { RestoreCard, RestoredBanner, ReviewPanel } from './chat-rewind-view';
import { copyText, positionOf } from './chat-versions';
import { ChatMessage, textOf } from './chat-transcript';
import { planOf } from './chat-plan';
import { chatViewId, ChatViewOptions, chatViewTitle, CHAT_VIEW_ID, titleFromFirstMessage } from './chat-view-identity';
import { SetupCardRenderer } from './setup-card-renderer';

const HISTORY_COMMAND = 'qodeassist.chat.history';
const STREAM_RENDER_MS = 50;

/** What a chat view keeps across a reload: the saved chat it shows, its title (for the tab until the chat is open again), and the draft not sent yet. */
interface StoredChatView extends Partial<ChatViewState> {
    title?: string;
    draft?: string;
}

/**
 * One chat, bound to one backend session: the view. The controller sends and projects the
 * session's events into the transcript; the composer holds the next message; this renders both.
 */
@injectable()
export class ChatWidget extends ReactWidget implements ExtractableWidget, StatefulWidget {
    static readonly ID = CHAT_VIEW_ID;
    static readonly LABEL = nls.localize('qodeassist/chat/title', 'QodeAssist Chat');

    /** Chats can move to a separate window (Theia secondary window) and back. */
    readonly isExtractable = true;
    secondaryWindow: Window | undefined;

    /** The view's id, from the options it was created with (kept by the layout restorer): the main view's, or one no other view ever gets. */
    setViewOptions(options?: ChatViewOptions): void {
        this.id = chatViewId(options);
    }

    @inject(QodeAssistChatService) protected readonly chatService: QodeAssistChatService;
    @inject(QodeAssistChatClientImpl) protected readonly chatClient: QodeAssistChatClientImpl;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(QodeAssistConfigService) protected readonly configService: QodeAssistConfigService;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;
    @inject(CommandService) protected readonly commands: CommandService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(ClipboardService) protected readonly clipboard: ClipboardService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(ChatFileEdits) protected readonly fileEdits: ChatFileEdits;
    @inject(QodeAssistProjectTrust) protected readonly projectTrust: QodeAssistProjectTrust;
    @inject(ChatComposerService) protected readonly composer: ChatComposerService;
    @inject(ChatControllerFactory) protected readonly createController: ChatControllerFactory;
    @inject(SetupCardRenderer) protected readonly setupCard: SetupCardRenderer;
    @inject(BackendConnection) protected readonly backend: BackendConnection;
    @inject(McpElicitations) protected readonly elicitations: McpElicitations;

    protected controller: ChatControllerService;
    /** "Restore to here", "Undo restore" and the review of what the chat changed. */
    protected rewind: ChatRewindState;
    protected messagesElement: HTMLDivElement | null = null;
    protected stickToBottom = true;
    protected setup: SetupState | undefined;
    protected readonly messagesChanged = new MessagesChanged();
    protected lastStreamRender = 0;
    protected streamRenderTimer: ReturnType<typeof setTimeout> | undefined;
    /** The saved chat's title (opened, restored, renamed); a new chat is titled from its first message. */
    protected chatTitle: string | undefined;
    /** The saved chat this view is opening (restoring after a reload, or from History): the view shows it already, for History. */
    protected opening: ChatViewState | undefined;
    protected elicitationChatId: string | undefined;

    @postConstruct()
    protected init(): void {
        this.id = ChatWidget.ID;
        this.title.iconClass = codicon('comment-discussion');
        warmUpMarkdown(work => window.requestIdleCallback(work, { timeout: 2_000 }));
        this.title.closable = true;
        this.addClass('qa-chat');
        this.controller = this.createController({
            service: this.chatService,
            backend: this.backend,
            client: this.chatClient,
            edits: askingOnProtected(this.fileEdits, {
                protectedLocation: async path => this.workspacePath === undefined ? undefined : this.chatService.protectedLocation(this.workspacePath, path),
                confirm: (protectedPath, action) => this.confirmProtectedEdit(protectedPath, action)
            }),
            composer: this.composer,
            host: {
                historyLocation: () => this.preferences['qodeassist.chat.historyLocation'],
                workspacePath: () => this.workspacePath,
                autoCompressPercent: () => this.preferences['qodeassist.chat.autoCompressPercent'],
                offReason: () => this.qodeAssistSwitch.offReason,
                update: reveal => {
                    this.stickToBottom ||= !!reveal;
                    this.update();
                },
                streamed: ended => this.updateStreaming(ended),
                checkSetup: () => void this.checkSetup(),
                chatShown: opened => {
                    this.elicitationChatId = opened.chatId;
                    this.elicitations.showing(this, opened.chatId);
                    this.chatTitle = opened.chat?.title;
                    this.showTitle();
                    this.rewind?.reset();
                }
            }
        });
        this.composer.connect(this.controller, () => this.update());
        this.rewind = new ChatRewindState({
            service: this.chatService, chatId: () => this.controller.currentChatId(), workspacePath: () => this.workspacePath,
            onEvents: listener => this.chatClient.onDidReceiveSessionEvents(listener), update: () => this.update()
        });
        this.showTitle();
        this.toDispose.push(this.backend.onDidChange(() => this.update()));
        this.toDispose.push(this.elicitations.onDidChange(async () => {
            // The chat whose MCP questions this view shows, as of the question's arrival.
            this.elicitationChatId = await this.controller.currentChatId();
            this.elicitations.showing(this, this.elicitationChatId);
            this.stickToBottom = true;
            this.update();
        }));
        this.toDispose.push(this.projectTrust.onDidChange(() => {
            this.update();
            void this.checkSetup();
        }));
        void this.workspace.ready.then(() => this.checkSetup());
        this.toDispose.push({
            dispose: () => {
                clearTimeout(this.streamRenderTimer);
                this.rewind.dispose();
                this.composer.dispose();
                this.controller.dispose();
                this.elicitations.showing(this, undefined);
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

    protected readonly isStuckToBottom = (): boolean => this.stickToBottom;

    /** Moved to another placement or window: render again so the newest messages are in view there. */
    protected override onAfterAttach(msg: Message): void {
        super.onAfterAttach(msg);
        void this.composer.loadChoices();
        this.update();
    }

    protected override onActivateRequest(msg: Message): void {
        super.onActivateRequest(msg);
        this.composer.focus();
    }

    /** The draft goes with the stored state: a reload (what the banner advises when the backend stays away) brings it back. */
    storeState(): object | undefined {
        const draft = this.composer.text();
        // A view still opening its chat is stored with that chat, not as an empty view.
        const shown = this.opening ?? this.controller.savedChat;
        const state: StoredChatView = {
            ...(shown ? { chatId: shown.chatId, location: shown.location, title: this.title.caption } : {}),
            ...(draft.trim() ? { draft } : {})
        };
        return Object.keys(state).length > 0 ? state : undefined;
    }

    restoreState(state: object): void {
        const saved = state as StoredChatView;
        if (typeof saved.draft === 'string' && !this.composer.text()) {
            this.composer.setDraft(saved.draft);
        }
        if (typeof saved.chatId === 'string' && (saved.location === 'workspace' || saved.location === 'user')) {
            const { chatId, location } = saved;
            if (typeof saved.title === 'string') {
                this.chatTitle = saved.title;
                this.showTitle();
            }
            void this.showSaved({ chatId, location }, async () => {
                await this.workspace.ready;
                await this.controller.openSaved(chatId, location);
            });
        }
    }

    /** The id of the chat shown now, if any; while the view opens a saved chat, that chat's. */
    currentChatId(): Promise<string | undefined> {
        return this.opening ? Promise.resolve(this.opening.chatId) : this.controller.currentChatId();
    }

    /** Shows a saved chat: a new session seeded with its history. */
    openSaved(chatId: string, location: ChatStorage['location'] = this.storage().location): Promise<void> {
        return this.showSaved({ chatId, location }, () => this.controller.openSaved(chatId, location));
    }

    /** The user renamed the chat this view shows (from History): the tab follows. */
    renamed(title: string): void {
        this.chatTitle = title;
        this.showTitle();
    }

    /** Opens a saved chat; until it is shown, the view counts as showing it already (History focuses it rather than opening it twice). */
    protected async showSaved(chat: ChatViewState, open: () => Promise<void>): Promise<void> {
        this.opening = chat;
        try {
            await open();
        } finally {
            if (this.opening === chat) {
                this.opening = undefined;
            }
        }
    }

    /** The tab and the sidebar show the chat's title: the saved one, else the first message's, else "New chat". */
    protected showTitle(): void {
        const first = this.controller.transcript.messages.find(message => message.role === 'user');
        const { label, caption } = chatViewTitle(this.chatTitle ?? titleFromFirstMessage(first && textOf(first)));
        this.title.label = label;
        this.title.caption = caption;
    }

    /** A first message or another chat may have changed the title: render it with the view. */
    protected override onUpdateRequest(msg: Message): void {
        this.showTitle();
        super.onUpdateRequest(msg);
    }

    /** Replaces the conversation by a summary in a new chat linked to this one; the original stays saved. */
    summarize(): Promise<void> {
        return this.controller.summarize();
    }

    storage(location?: ChatStorage['location']): ChatStorage {
        return this.controller.storage(location);
    }

    protected get workspacePath(): string | undefined {
        return this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
    }

    protected readonly actions: MessageActions = {
        answerPermission: (pending, answer) => this.controller.answerPermission(pending, answer),
        setEdit: (message, tools, state) => void this.controller.setEdit(message, tools, state),
        openFile: (path, line) => void open(this.openers, URI.fromFilePath(path), line ? { selection: { start: { line: line - 1, character: 0 } } } : undefined),
        runErrorAction: (action, message) => void this.runErrorAction(action, message),
        openChat: chatId => void this.commands.executeCommand('qodeassist.chat.openSaved', chatId, this.storage().location),
        copy: message => void this.clipboard.writeText(copyText(message)),
        edit: (message, text) => void this.controller.editAndResend(message, text),
        regenerate: message => void this.controller.retry(message),
        resetTo: message => void this.confirmReset(message),
        switchVersion: branchId => void this.controller.switchVersion(branchId),
        restoreTo: message => {
            const position = positionOf(this.controller.transcript.messages, message);
            if (position) {
                void this.rewind.ask(position.turn);
            }
        },
        revertDiskChange: (message, path) => void this.rewind.revert(path, message.diskChanges?.turn)
    };

    /** Undo and Apply write files like a tool: a configuration or ignore file is asked about every time. */
    protected async confirmProtectedEdit(protectedPath: string, action: 'undo' | 'reapply'): Promise<boolean> {
        return !!await new ConfirmDialog({
            title: action === 'undo'
                ? nls.localize('qodeassist/chat/protectedUndoTitle', 'Undo writes a configuration file')
                : nls.localize('qodeassist/chat/protectedApplyTitle', 'Apply writes a configuration file'),
            msg: nls.localize('qodeassist/chat/protectedEditMessage', '{0} is a configuration or ignore file: changing it can change what runs or what QodeAssist may read. Write it?', protectedPath),
            ok: nls.localize('qodeassist/chat/protectedEditOk', 'Write it')
        }).open();
    }

    /** A reset removes messages from view: asked first, and undone with "Bring back". */
    protected async confirmReset(message: ChatMessage): Promise<void> {
        const confirmed = await new ConfirmDialog({
            title: nls.localize('qodeassist/chat/resetTitle', 'Reset the chat to this message?'),
            msg: nls.localize('qodeassist/chat/resetMessage', 'The messages after it are removed from the chat; they are kept, and "Bring back" at the end of the chat restores them.'),
            ok: nls.localize('qodeassist/chat/resetOk', 'Reset')
        }).open();
        if (confirmed) {
            await this.controller.resetTo(message);
        }
    }

    protected async runErrorAction(action: ChatErrorAction, message: ChatMessage): Promise<void> {
        if (action === 'open-settings') {
            // Keys and provider files are set in QodeAssist's configuration view, not in Theia's preferences.
            await this.commands.executeCommand(OPEN_CONFIGURATION_COMMAND, message.error ? settingsTargetFor(message.error) : undefined);
        } else if (action === 'summarize') {
            await this.controller.summarize();
        } else {
            await this.controller.retry(message);
        }
    }

    // ---- rendering ----

    protected render(): React.ReactNode {
        const { controller } = this;
        return <div className='qa-chat-root'>
            {this.renderToolbar()}
            {this.backend.away && this.renderBackendAway()}
            {controller.notice && <div className='qa-notice'><i className={codicon('warning')} /> {controller.notice}
                <button type='button' className='qa-icon-button' data-action='dismiss-notice' aria-label={nls.localize('qodeassist/chat/dismiss', 'Dismiss')}
                    title={nls.localize('qodeassist/chat/dismiss', 'Dismiss')} onClick={() => { controller.notice = undefined; this.update(); }}><i className={codicon('close')} aria-hidden='true' /></button>
            </div>}
            <ProjectTrustNotice state={this.projectTrust.state} trust={() => void this.projectTrust.requestTrust()} />
            <div className='qa-messages' ref={element => { this.messagesElement = element; }} onScroll={this.onScroll} onClick={this.onMessagesClick}>
                {this.setup?.needed && this.renderSetup(this.setup)}
                {controller.transcript.messages.length === 0 && !this.setup?.needed && this.renderEmptyState()}
                <MessageList messages={controller.transcript.messages} changed={this.messagesChanged} permissions={controller.permissions} actions={this.actions}
                    stick={this.isStuckToBottom} transcript={controller.transcript} restorable={this.rewind.turns} />
                <McpElicitationForms elicitations={this.elicitations} chatId={this.elicitationChatId} />
            </div>
            <ReviewPanel rewind={this.rewind} />
            <RestoreCard rewind={this.rewind} />
            <RestoredBanner rewind={this.rewind} />
            {controller.summarizing && this.renderSummarizing()}
            <ComposerView composer={this.composer} busy={controller.busy} summarizing={controller.summarizing}
                send={this.sendDraft} stop={this.stop} summarize={this.summarizeNow} setDragging={this.setDragging}
                planText={() => planOf(this.controller.transcript.messages)} sendAct={this.sendAct} />
        </div>;
    }

    /** The Quick Setup card (a product may bring its own); once a provider answers, the chat says it may go on. */
    protected renderSetup(state: SetupState): React.ReactNode {
        return this.setupCard.render({
            state,
            apply: choice => this.configService.applySetup(this.workspacePath, choice),
            done: () => {
                this.setup = undefined;
                this.controller.notice = nls.localize('qodeassist/setup/done', 'QodeAssist is set up; send your message.');
                this.composer.scheduleEstimate();
                this.update();
            }
        });
    }

    protected renderToolbar(): React.ReactNode {
        const canSummarize = this.controller.transcript.messages.length > 0 && !this.controller.busy;
        return <div className='qa-toolbar'>
            <span className='qa-toolbar-title' title={this.title.caption}>{this.title.caption !== this.title.label ? this.title.caption : ''}</span>
            <button type='button' className='qa-icon-button' data-action='history' aria-label={nls.localize('qodeassist/chat/history', 'Chat history')}
                title={nls.localize('qodeassist/chat/historyTitle', 'Chat history: open, rename or delete saved chats')}
                onClick={() => void this.commands.executeCommand(HISTORY_COMMAND)}><i className={codicon('history')} aria-hidden='true' /></button>
            {this.controller.summarizing
                ? <button className='qa-icon-button' data-action='stop-summary' aria-label={nls.localize('qodeassist/chat/stopSummary', 'Stop summarizing')}
                    title={nls.localize('qodeassist/chat/stopSummaryTitle', 'Stop summarizing (the chat stays as it was)')} onClick={this.stopSummary}>
                    <i className={codicon('debug-stop')} />
                </button>
                : <button type='button' className='qa-icon-button' data-action='summarize' disabled={!canSummarize} aria-label={nls.localize('qodeassist/chat/summarizeName', 'Summarize chat')}
                    title={nls.localize('qodeassist/chat/summarizeTitle', 'Summarize this chat into a new one (the original is kept)')}
                    onClick={this.summarizeNow}>
                    <i className={codicon('note')} aria-hidden='true' />
                </button>}
            <button type='button' className='qa-icon-button' data-action='review-changes' aria-label={nls.localize('qodeassist/checkpoints/reviewName', 'Review changes')}
                title={nls.localize('qodeassist/checkpoints/reviewTitle', 'Review the files this chat changed, with Keep and Revert')}
                onClick={() => this.rewind.review ? this.rewind.closeReview() : void this.rewind.openReview()}><i className={codicon('diff')} aria-hidden='true' /></button>
            <button type='button' className='qa-icon-button' data-action='new-chat' aria-label={nls.localize('qodeassist/chat/newChat', 'New chat')}
                title={nls.localize('qodeassist/chat/newChatTitle', 'New chat (this one stays in the history)')}
                onClick={() => void this.commands.executeCommand('qodeassist.chat.new')}><i className={codicon('add')} aria-hidden='true' /></button>
        </div>;
    }

    /** A summary is being made (by the button, or before a send that would fill the context); Stop leaves the chat as it was. */
    protected renderSummarizing(): React.ReactNode {
        return <div className='qa-summarizing' role='status'>
            <i className={`${codicon('loading')} theia-animation-spin`} />
            <span>{nls.localize('qodeassist/chat/summarizing', 'Summarizing the chat… Stop leaves it as it is.')}</span>
            <button type='button' className='theia-button secondary' data-action='stop-summarizing'
                title={nls.localize('qodeassist/chat/stopSummaryTitle', 'Stop summarizing (the chat stays as it was)')} onClick={this.stopSummary}>
                <i className={codicon('debug-stop')} /> {nls.localize('qodeassist/chat/stop', 'Stop')}
            </button>
        </div>;
    }

    /** The backend cannot be reached: the chat waits for it and keeps the draft; after a while, a reload may be what it takes. */
    protected renderBackendAway(): React.ReactNode {
        return <div className='qa-notice qa-backend-away' role='status' data-long={this.backend.awayLong}>
            <i className={codicon('debug-disconnect')} />
            <span>{this.backend.awayLong
                ? nls.localize('qodeassist/chat/backendAwayLong',
                    'QodeAssist: the IDE backend is still not reachable. Once it runs again, reload the page if the chat does not come back by itself — your draft is kept.')
                : nls.localize('qodeassist/chat/backendAway', 'QodeAssist: the IDE backend is not reachable — reconnecting… Your draft is kept.')}</span>
            {this.backend.awayLong && <button className='theia-button secondary' data-action='reload' onClick={() => window.location.reload()}>
                {nls.localize('qodeassist/chat/reload', 'Reload')}
            </button>}
        </div>;
    }

    protected renderEmptyState(): React.ReactNode {
        return <div className='qa-empty'>
            <i className={codicon('comment-discussion')} />
            <p>{nls.localize('qodeassist/chat/empty', 'Ask about your code. Answers stream from the configured provider.')}</p>
            <p className='qa-empty-hint'>{nls.localize('qodeassist/chat/emptyHint', 'Type @ to mention a file, / for a skill; drop or paste files and images to attach them.')}</p>
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

    /** The controller sends nothing while an answer streams, and says why when the backend is away. */
    protected readonly sendDraft = (): void => {
        void this.controller.send(this.composer.text());
    };

    /** Act on the edited plan: what the user typed goes with it, else a plain go-ahead. */
    protected readonly sendAct = (): void => {
        void this.controller.send(this.composer.text().trim() || nls.localize('qodeassist/chat/actMessage', 'Carry out the plan.'));
    };

    protected readonly stop = (): void => void this.controller.stop();

    protected readonly summarizeNow = (): void => void this.controller.summarize();

    protected readonly stopSummary = (): void => void this.controller.stopSummary();

    protected readonly setDragging = (dragging: boolean): void => {
        if (dragging) {
            this.addClass('qa-dragging');
        } else {
            this.removeClass('qa-dragging');
        }
    };
}
