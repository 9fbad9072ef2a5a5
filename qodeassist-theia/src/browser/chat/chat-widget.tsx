import type { ErrorInfo } from '@qodeassist/core';
import { CommandService, nls } from '@theia/core';
import { codicon, Message } from '@theia/core/lib/browser';
import { ExtractableWidget } from '@theia/core/lib/browser/widgets/extractable-widget';
import { ReactWidget } from '@theia/core/lib/browser/widgets/react-widget';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import * as React from '@theia/core/shared/react';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { ChatSendOptions, PermissionAnswer, PermissionRequest, QodeAssistChatService } from '../../common/chat-protocol';
import { QodeAssistPreferences } from '../qodeassist-preferences';
import { QodeAssistChatClientImpl } from './chat-client';
import { affordanceFor, ChatErrorAction } from './chat-error-affordance';
import { renderChatMarkdown } from './chat-markdown';
import { ChatMessage, ChatTranscript, ToolActivity } from './chat-transcript';

interface PendingPermission {
    id: number;
    request: PermissionRequest;
    answer(answer: PermissionAnswer): void;
}

const OPEN_PREFERENCES_COMMAND = 'preferences:open';

/** Keeps the newest content in view after every render while the user has not scrolled up. */
function ScrollAnchor({ stick }: { stick: boolean }): React.ReactElement {
    const anchor = React.useRef<HTMLDivElement>(null);
    React.useLayoutEffect(() => {
        if (stick) {
            anchor.current?.scrollIntoView({ block: 'end' });
        }
    });
    return <div ref={anchor} className='qa-scroll-anchor' />;
}

/** One chat, bound to one backend session; a projection of that session's events. */
@injectable()
export class ChatWidget extends ReactWidget implements ExtractableWidget {
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
    @inject(CommandService) protected readonly commands: CommandService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;

    protected readonly transcript = new ChatTranscript();
    protected readonly renderedMarkdown = new Map<number, { text: string; html: string }>();
    protected sessionId: Promise<string> | undefined;
    protected draft = '';
    protected messagesElement: HTMLDivElement | null = null;
    protected inputElement: HTMLTextAreaElement | null = null;
    protected stickToBottom = true;
    protected readonly permissions: PendingPermission[] = [];
    protected nextPermissionId = 1;

    @postConstruct()
    protected init(): void {
        this.id = ChatWidget.ID;
        this.title.label = ChatWidget.LABEL;
        this.title.caption = ChatWidget.LABEL;
        this.title.iconClass = codicon('comment-discussion');
        this.title.closable = true;
        this.addClass('qa-chat');
        this.toDispose.push(this.chatClient.onDidReceiveSessionEvents(async ({ sessionId, events }) => {
            if (!this.sessionId || sessionId !== await this.sessionId) {
                return;
            }
            let changed = false;
            for (const event of events) {
                changed = this.transcript.apply(event) || changed;
            }
            if (changed) {
                this.update();
            }
        }));
        this.toDispose.push({
            dispose: () => {
                const session = this.sessionId;
                this.sessionId = undefined;
                void session?.then(id => this.chatService.closeSession(id)).catch(() => undefined);
            }
        });
        this.update();
    }

    /** Moved to another placement or window: render again so the newest messages are in view there. */
    protected override onAfterAttach(msg: Message): void {
        super.onAfterAttach(msg);
        this.update();
    }

    protected override onActivateRequest(msg: Message): void {
        super.onActivateRequest(msg);
        this.inputElement?.focus();
    }


    protected get busy(): boolean {
        return this.transcript.pending !== undefined;
    }

    protected sendOptions(): ChatSendOptions {
        const root = this.workspace.tryGetRoots()[0];
        return {
            workspacePath: root?.resource.path.fsPath(),
            project: root?.name,
            agent: this.preferences['qodeassist.chat.agent'] || undefined,
            tools: {
                disabled: this.preferences['qodeassist.tools.disabled'],
                allowedCommands: this.preferences['qodeassist.tools.terminal.allowedCommands'],
                commandTimeoutSeconds: this.preferences['qodeassist.tools.terminal.timeoutSeconds'],
                commandOutputLimit: this.preferences['qodeassist.tools.terminal.outputLimit'],
                buildCommand: this.preferences['qodeassist.build.command'],
                allowOutsideWorkspace: this.preferences['qodeassist.tools.allowOutsideWorkspace'],
                useGitignore: this.preferences['qodeassist.tools.useGitignore']
            }
        };
    }

    async send(text: string): Promise<void> {
        const message = text.trim();
        if (!message || this.busy) {
            return;
        }
        this.draft = '';
        this.stickToBottom = true;
        this.transcript.beginTurn(message);
        this.update();
        try {
            this.sessionId ??= this.openSession();
            await this.chatService.send(await this.sessionId, message, this.sendOptions());
        } catch (error) {
            this.sessionId = undefined;
            this.transcript.failPending({
                category: 'Network',
                message: `The QodeAssist backend could not take the message: ${error instanceof Error ? error.message : String(error)}`
            });
            this.update();
        }
    }

    /** Opens the backend session and answers its tools' permission requests in this view. */
    protected async openSession(): Promise<string> {
        const id = await this.chatService.openSession();
        this.toDispose.push(this.chatClient.setPermissionHandler(id, request => new Promise<PermissionAnswer>(resolve => {
            this.permissions.push({ id: this.nextPermissionId++, request, answer: resolve });
            this.stickToBottom = true;
            this.update();
        })));
        return id;
    }

    protected answerPermission(pending: PendingPermission, answer: PermissionAnswer): void {
        this.permissions.splice(this.permissions.indexOf(pending), 1);
        pending.answer(answer);
        this.update();
    }

    async stop(): Promise<void> {
        for (const pending of this.permissions.splice(0)) {
            pending.answer('deny');
        }
        if (this.sessionId) {
            await this.chatService.cancel(await this.sessionId);
        }
    }

    protected render(): React.ReactNode {
        const busy = this.busy;
        return <div className='qa-chat-root'>
            <div className='qa-messages' ref={element => { this.messagesElement = element; }} onScroll={this.onScroll}>
                {this.transcript.messages.length === 0 && this.renderEmptyState()}
                {this.transcript.messages.map(message => this.renderMessage(message))}
                <ScrollAnchor stick={this.stickToBottom} />
            </div>
            <div className='qa-composer'>
                <textarea
                    className='theia-input qa-input'
                    ref={element => { this.inputElement = element; }}
                    placeholder={nls.localize('qodeassist/chat/placeholder', 'Ask QodeAssist…')}
                    rows={3}
                    defaultValue={this.draft}
                    onChange={event => { this.draft = event.target.value; }}
                    onKeyDown={this.onInputKeyDown}
                />
                <div className='qa-composer-actions'>
                    <span className='qa-model'>{this.agentLabel()}</span>
                    {busy
                        ? <button className='theia-button qa-stop' onClick={() => void this.stop()}>
                            <i className={codicon('debug-stop')} /> {nls.localize('qodeassist/chat/stop', 'Stop')}
                        </button>
                        : <button className='theia-button qa-send' onClick={() => void this.sendDraft()}>
                            <i className={codicon('send')} /> {nls.localize('qodeassist/chat/send', 'Send')}
                        </button>}
                </div>
            </div>
        </div>;
    }

    /** The agent of the last answer, or what will answer next. */
    protected agentLabel(): string {
        const last = [...this.transcript.messages].reverse().find(message => message.agent);
        const chosen = this.preferences['qodeassist.chat.agent'];
        if (chosen) {
            return chosen;
        }
        return last ? `${last.agent} · ${last.model ?? ''}` : nls.localize('qodeassist/chat/rosterAgent', 'chat roster agent');
    }

    protected renderEmptyState(): React.ReactNode {
        return <div className='qa-empty'>
            <i className={codicon('comment-discussion')} />
            <p>{nls.localize('qodeassist/chat/empty', 'Ask about your code. Answers stream from the configured provider.')}</p>
        </div>;
    }

    protected renderMessage(message: ChatMessage): React.ReactNode {
        return <div key={message.id} className={`qa-message qa-${message.role}`} data-role={message.role} data-status={message.status}>
            <div className='qa-message-header'>
                <i className={codicon(message.role === 'user' ? 'account' : 'sparkle')} />
                <span>{message.role === 'user' ? nls.localize('qodeassist/chat/you', 'You') : 'QodeAssist'}</span>
                {message.agent && <span className='qa-message-agent' title={message.model}>{message.agent}</span>}
                {message.status === 'streaming' && <i className={`${codicon('loading')} theia-animation-spin qa-spinner`} />}
            </div>
            {message.tools.length > 0 && <div className='qa-tools'>{message.tools.map(tool => this.renderTool(tool))}</div>}
            {message.status === 'streaming' && this.permissions.map(pending => this.renderPermission(pending))}
            {message.role === 'user'
                ? <div className='qa-message-body qa-plain'>{message.text}</div>
                : <div className='qa-message-body qa-markdown' dangerouslySetInnerHTML={{ __html: this.markdownFor(message) }} />}
            {message.status === 'cancelled' && <div className='qa-cancelled'>{nls.localize('qodeassist/chat/cancelled', 'Cancelled')}</div>}
            {message.status === 'failed' && message.error && this.renderError(message.error)}
            {message.usage && message.status === 'done' && <div className='qa-usage'>
                {`${message.usage.inputTokens} in · ${message.usage.outputTokens} out`
                    + (message.usage.cachedTokens ? ` · ${message.usage.cachedTokens} cached` : '')}
            </div>}
        </div>;
    }

    protected renderTool(tool: ToolActivity): React.ReactNode {
        const icon = tool.status === 'running' ? `${codicon('loading')} theia-animation-spin` : tool.status === 'error' ? codicon('error') : codicon('check');
        const args = tool.arguments ? JSON.stringify(tool.arguments) : '';
        return <details key={tool.callId} className='qa-tool' data-tool={tool.name} data-status={tool.status}>
            <summary><i className={icon} /> <span className='qa-tool-name'>{tool.name}</span> <span className='qa-tool-args'>{args.length > 80 ? `${args.slice(0, 80)}…` : args}</span></summary>
            {tool.result !== undefined && <pre className='qa-tool-result'>{tool.result}</pre>}
        </details>;
    }

    protected renderPermission(pending: PendingPermission): React.ReactNode {
        const { request } = pending;
        return <div key={pending.id} className='qa-permission' data-tool={request.tool}>
            <div className='qa-permission-title'>
                <i className={codicon(request.permission === 'execute' ? 'terminal' : 'edit')} />
                {` QodeAssist wants to run ${request.tool} (${request.permission})`}
            </div>
            <pre className='qa-permission-args'>{JSON.stringify(request.arguments, undefined, 2)}</pre>
            <div className='qa-permission-actions'>
                <button className='theia-button' data-answer='allow-once' onClick={() => this.answerPermission(pending, 'allow-once')}>{nls.localize('qodeassist/chat/allowOnce', 'Allow once')}</button>
                <button className='theia-button secondary' data-answer='allow-chat' onClick={() => this.answerPermission(pending, 'allow-chat')}>{nls.localize('qodeassist/chat/allowChat', 'Allow for this chat')}</button>
                <button className='theia-button secondary' data-answer='deny' onClick={() => this.answerPermission(pending, 'deny')}>{nls.localize('qodeassist/chat/deny', 'Deny')}</button>
            </div>
        </div>;
    }

    protected renderError(error: ErrorInfo): React.ReactNode {
        const affordance = affordanceFor(error);
        return <div className='qa-error' data-category={error.category}>
            <div className='qa-error-title'><i className={codicon('error')} /> {affordance.title}</div>
            <div className='qa-error-message'>{error.message}</div>
            {error.providerDetail && <div className='qa-error-detail'>{error.providerDetail}</div>}
            <div className='qa-error-hint'>{affordance.hint}</div>
            <div className='qa-error-actions'>
                {affordance.actions.map(action => <button key={action} className='theia-button secondary' data-action={action}
                    onClick={() => void this.runErrorAction(action)}>{this.actionLabel(action)}</button>)}
            </div>
        </div>;
    }

    protected actionLabel(action: ChatErrorAction): string {
        return action === 'retry' ? nls.localize('qodeassist/chat/retry', 'Retry') : nls.localize('qodeassist/chat/openSettings', 'Open Settings');
    }

    protected async runErrorAction(action: ChatErrorAction): Promise<void> {
        if (action === 'open-settings') {
            await this.commands.executeCommand(OPEN_PREFERENCES_COMMAND, 'qodeassist');
            return;
        }
        const text = this.transcript.lastUserText();
        if (text) {
            await this.send(text);
        }
    }

    protected markdownFor(message: ChatMessage): string {
        const cached = this.renderedMarkdown.get(message.id);
        if (cached && cached.text === message.text) {
            return cached.html;
        }
        const html = renderChatMarkdown(message.text);
        this.renderedMarkdown.set(message.id, { text: message.text, html });
        return html;
    }

    protected readonly onScroll = (): void => {
        const element = this.messagesElement;
        if (element) {
            this.stickToBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
        }
    };

    protected readonly onInputKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>): void => {
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
        const text = this.inputElement?.value ?? this.draft;
        if (this.inputElement) {
            this.inputElement.value = '';
        }
        await this.send(text);
    }
}
