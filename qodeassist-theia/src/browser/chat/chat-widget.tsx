import { CommandService, nls } from '@theia/core';
import { codicon, Message, OpenerService, open, StatefulWidget } from '@theia/core/lib/browser';
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
import { ChatErrorAction, OPEN_PREFERENCES_COMMAND } from '../shared/error-affordance';
import { ChatFileEdits } from '../shared/file-edits';
import { PendingPermission } from '../shared/pending-permission';
import { QodeAssistChatClientImpl } from '../shared/tool-host-client';
import { QodeAssistProjectTrust } from '../trust/project-trust';
import { ProjectTrustNotice } from '../trust/project-trust-notice';
import { ChatComposer } from './chat-composer';
import { ComposerView } from './chat-composer-view';
import { ChatController, ChatViewState } from './chat-controller';
import { warmUpMarkdown } from './chat-markdown';
import { MessageActions, MessageView } from './chat-message-view';
import { ChatMessage } from './chat-transcript';
import { SetupCard } from './setup-card';

const HISTORY_COMMAND = 'qodeassist.chat.history';
const STREAM_RENDER_MS = 50;

/** What a chat view keeps across a reload: the saved chat it shows, and the draft not sent yet. */
interface StoredChatView extends Partial<ChatViewState> {
    draft?: string;
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
        {messages.map((message, index) => <MessageView key={message.id} message={message} revision={message.revision}
            permissions={message.status === 'streaming' ? permissions : NO_PERMISSIONS} last={index === messages.length - 1} actions={actions} />)}
        <ScrollAnchor stick={stick} />
    </>;
}

/**
 * One chat, bound to one backend session: the view. The controller sends and projects the
 * session's events into the transcript; the composer holds the next message; this renders both.
 */
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
    @inject(ClipboardService) protected readonly clipboard: ClipboardService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(ChatFileEdits) protected readonly fileEdits: ChatFileEdits;
    @inject(QodeAssistProjectTrust) protected readonly projectTrust: QodeAssistProjectTrust;
    @inject(ChatComposer) protected readonly composer: ChatComposer;
    @inject(BackendConnection) protected readonly backend: BackendConnection;

    protected controller: ChatController;
    protected messagesElement: HTMLDivElement | null = null;
    protected stickToBottom = true;
    protected setup: SetupState | undefined;
    protected readonly messagesChanged = new MessagesChanged();
    protected lastStreamRender = 0;
    protected streamRenderTimer: ReturnType<typeof setTimeout> | undefined;

    @postConstruct()
    protected init(): void {
        this.id = ChatWidget.ID;
        this.title.label = ChatWidget.LABEL;
        this.title.caption = ChatWidget.LABEL;
        this.title.iconClass = codicon('comment-discussion');
        warmUpMarkdown(work => window.requestIdleCallback(work, { timeout: 2_000 }));
        this.title.closable = true;
        this.addClass('qa-chat');
        this.controller = new ChatController({
            service: this.chatService,
            backend: this.backend,
            client: this.chatClient,
            edits: this.fileEdits,
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
                chatShown: opened => { this.title.caption = opened.chat?.title ?? this.title.label; }
            }
        });
        this.composer.connect(this.controller, () => this.update());
        this.toDispose.push(this.backend.onDidChange(() => this.update()));
        this.toDispose.push(this.projectTrust.onDidChange(() => {
            this.update();
            void this.checkSetup();
        }));
        void this.workspace.ready.then(() => this.checkSetup());
        this.toDispose.push({
            dispose: () => {
                clearTimeout(this.streamRenderTimer);
                this.composer.dispose();
                this.controller.dispose();
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
        const state: StoredChatView = { ...this.controller.savedChat, ...(draft.trim() ? { draft } : {}) };
        return Object.keys(state).length > 0 ? state : undefined;
    }

    restoreState(state: object): void {
        const saved = state as StoredChatView;
        if (typeof saved.draft === 'string' && !this.composer.text()) {
            this.composer.setDraft(saved.draft);
        }
        if (typeof saved.chatId === 'string' && (saved.location === 'workspace' || saved.location === 'user')) {
            void this.workspace.ready.then(() => this.openSaved(saved.chatId!, saved.location));
        }
    }

    /** The id of the chat shown now, if any. */
    currentChatId(): Promise<string | undefined> {
        return this.controller.currentChatId();
    }

    /** Shows a saved chat: a new session seeded with its history. */
    openSaved(chatId: string, location?: ChatStorage['location']): Promise<void> {
        return this.controller.openSaved(chatId, location);
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
        openFile: path => void open(this.openers, URI.fromFilePath(path)),
        runErrorAction: (action, message) => void this.runErrorAction(action, message),
        openChat: chatId => void this.commands.executeCommand('qodeassist.chat.openSaved', chatId, this.storage().location)
    };

    protected async runErrorAction(action: ChatErrorAction, message: ChatMessage): Promise<void> {
        if (action === 'open-settings') {
            await this.commands.executeCommand(OPEN_PREFERENCES_COMMAND, 'qodeassist');
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
                <button className='qa-icon-button' title='Dismiss' onClick={() => { controller.notice = undefined; this.update(); }}><i className={codicon('close')} /></button>
            </div>}
            <ProjectTrustNotice state={this.projectTrust.state} trust={() => void this.projectTrust.requestTrust()} />
            <div className='qa-messages' ref={element => { this.messagesElement = element; }} onScroll={this.onScroll} onClick={this.onMessagesClick}>
                {this.setup?.needed && <SetupCard state={this.setup} apply={choice => this.configService.applySetup(this.workspacePath, choice)} done={() => {
                    this.setup = undefined;
                    controller.notice = nls.localize('qodeassist/setup/done', 'QodeAssist is set up; send your message.');
                    this.composer.scheduleEstimate();
                    this.update();
                }} />}
                {controller.transcript.messages.length === 0 && !this.setup?.needed && this.renderEmptyState()}
                <MessageList messages={controller.transcript.messages} changed={this.messagesChanged} permissions={controller.permissions} actions={this.actions}
                    stick={this.isStuckToBottom} />
            </div>
            <ComposerView composer={this.composer} busy={controller.busy} summarizing={controller.summarizing}
                send={this.sendDraft} stop={this.stop} summarize={this.summarizeNow} setDragging={this.setDragging} />
        </div>;
    }

    protected renderToolbar(): React.ReactNode {
        const canSummarize = this.controller.transcript.messages.length > 0 && !this.controller.busy;
        return <div className='qa-toolbar'>
            <span className='qa-toolbar-title' title={this.title.caption}>{this.title.caption !== this.title.label ? this.title.caption : ''}</span>
            <button className='qa-icon-button' data-action='history' title={nls.localize('qodeassist/chat/history', 'Chat history')}
                onClick={() => void this.commands.executeCommand(HISTORY_COMMAND)}><i className={codicon('history')} /></button>
            <button className='qa-icon-button' data-action='summarize' disabled={!canSummarize}
                title={nls.localize('qodeassist/chat/summarizeTitle', 'Summarize this chat into a new one (the original is kept)')}
                onClick={this.summarizeNow}>
                <i className={this.controller.summarizing ? `${codicon('loading')} theia-animation-spin` : codicon('note')} />
            </button>
            <button className='qa-icon-button' data-action='new-chat' title={nls.localize('qodeassist/chat/newChat', 'New chat')}
                onClick={() => void this.commands.executeCommand('qodeassist.chat.new')}><i className={codicon('add')} /></button>
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

    protected readonly stop = (): void => void this.controller.stop();

    protected readonly summarizeNow = (): void => void this.controller.summarize();

    protected readonly setDragging = (dragging: boolean): void => {
        if (dragging) {
            this.addClass('qa-dragging');
        } else {
            this.removeClass('qa-dragging');
        }
    };
}

const NO_PERMISSIONS: readonly PendingPermission[] = [];
