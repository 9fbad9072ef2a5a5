import type { ChatBranchView, ContextManifest, PermissionAnswer } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ChatErrorAction } from '../shared/error-affordance';
import { ErrorView } from '../shared/error-view';
import { PendingPermission } from '../shared/pending-permission';
import { DiffView, PermissionPrompt } from '../shared/permission-prompt';
import { AgentCallView, AgentPermissionPrompt, PlanView } from './agent-activity-view';
import { MarkdownStream } from './chat-markdown';
import { MessageToolbar, QuestionEditor, VersionActions } from './chat-message-actions';
import { DiskChangesView } from './chat-rewind-view';
import { ChatMessage, MessagePart, partText, ToolActivity, toolsOf } from './chat-transcript';
import { requestLines, usageLine } from './chat-usage';

/** What the messages can ask of the chat; one object per chat, so memoized messages do not re-render for it. */
export interface MessageActions extends VersionActions {
    answerPermission(pending: PendingPermission, answer: PermissionAnswer | { optionId: string }): void;
    setEdit(message: ChatMessage, tools: ToolActivity[], state: 'applied' | 'undone'): void;
    openFile(path: string, line?: number): void;
    /** An action offered with a failed or interrupted answer (`retry` asks for that answer again). */
    runErrorAction(action: ChatErrorAction, message: ChatMessage): void;
    openChat(chatId: string): void;
    /** Puts a file an external agent changed on disk during this answer's turn back as it was before the turn. */
    revertDiskChange(message: ChatMessage, path: string): void;
}

interface MessageViewProps {
    message: ChatMessage;
    revision: number;
    /** Only the streaming answer shows them. */
    permissions: readonly PendingPermission[];
    /** The newest message: only its answer can be asked for again. */
    last: boolean;
    actions: MessageActions;
    /** In the chat's saved history (not a message of this view still on its way): it can be edited, reset to, and has versions. */
    recorded: boolean;
    /** The kept versions of this message (replaced by an edit or a regeneration). */
    versions: readonly ChatBranchView[];
    /** A question with a checkpoint of the workspace before it: "Restore to here". */
    restorable?: boolean;
}

/** One message; re-rendered only when its revision or its permission prompts change. */
export const MessageView = React.memo(function MessageView({ message, permissions, last, actions, recorded, versions, restorable }: MessageViewProps): React.ReactElement {
    const [editing, setEditing] = React.useState(false);
    const edits = toolsOf(message).filter(tool => tool.edit);
    const undoable = edits.filter(tool => tool.edit!.state === 'applied');
    const reappliable = edits.filter(tool => tool.edit!.state === 'undone');
    return <div className={`qa-message qa-${message.role}`} data-role={message.role} data-status={message.status}>
        <div className='qa-message-header'>
            <i className={codicon(message.role === 'user' ? 'account' : 'sparkle')} />
            <span>{message.role === 'user' ? nls.localize('qodeassist/chat/you', 'You') : 'QodeAssist'}</span>
            {message.agent && <span className='qa-message-agent' title={message.model}>{message.agent}</span>}
            {message.status === 'streaming' && !message.stalled && <i className={`${codicon('loading')} theia-animation-spin qa-spinner`} />}
            {!editing && <MessageToolbar message={message} recorded={recorded} last={last} versions={versions} actions={actions} onEdit={() => setEditing(true)} restorable={restorable} />}
        </div>
        {message.queued && <div className='qa-message-state' data-state='queued'>
            <i className={codicon('clock')} /> {nls.localize('qodeassist/chat/queued', 'Queued — waits for the answer asked in another window')}
        </div>}
        {message.status === 'streaming' && message.stalled && <div className='qa-message-state' data-state='stalled'>
            <i className={codicon('debug-disconnect')} /> {nls.localize('qodeassist/chat/stalled', 'Waiting for the IDE backend…')}
        </div>}
        {message.compressedFrom && <div className='qa-summary-note'>
            <i className={codicon('fold')} /> {nls.localize('qodeassist/chat/summaryOf', 'This chat continues from a summary.')}{' '}
            <a href='#' className='qa-open-original' title={nls.localize('qodeassist/chat/openOriginalTitle', 'Open the chat this summary was made from')} onClick={event => { event.preventDefault(); actions.openChat(message.compressedFrom!); }}>
                {nls.localize('qodeassist/chat/openOriginal', 'Open the original chat')}
            </a>
        </div>}
        {message.skill && <div className='qa-skill-badge'><i className={codicon('book')} /> /{message.skill}</div>}
        {message.attachments.length > 0 && <div className='qa-attachment-list'>
            {message.attachments.map((attachment, index) => <span key={index} className='qa-chip' data-attachment={attachment.name}>
                <i className={codicon(attachment.mediaType.startsWith('image/') ? 'file-media' : 'file')} /> {attachment.name}
            </span>)}
        </div>}
        {editing
            ? <QuestionEditor initial={message.parts.map(part => part.kind === 'text' ? partText(part) : '').join('')}
                onSend={text => { setEditing(false); actions.edit(message, text); }} onCancel={() => setEditing(false)} />
            : message.parts.map((part, index) => <PartView key={index} part={part} final={message.status !== 'streaming' || index < message.parts.length - 1}
                role={message.role} actions={actions} message={message} />)}
        {message.status === 'streaming' && permissions.map(pending => pending.agent
            ? <AgentPermissionPrompt key={pending.id} pending={pending} agent={pending.agent.request} onChoose={optionId => actions.answerPermission(pending, { optionId })} openFile={actions.openFile} />
            : <PermissionPrompt key={pending.id} pending={pending} onAnswer={actions.answerPermission} />)}
        {edits.length > 1 && <div className='qa-edit-all'>
            {undoable.length > 0 && <button type='button' className='theia-button secondary' data-action='undo-all'
                title={nls.localize('qodeassist/chat/undoAllTitle', 'Undo every edit of this answer on disk')} onClick={() => actions.setEdit(message, undoable, 'undone')}>
                <i className={codicon('discard')} /> {nls.localize('qodeassist/chat/undoAll', 'Undo all')}
            </button>}
            {reappliable.length > 0 && <button type='button' className='theia-button secondary' data-action='apply-all'
                title={nls.localize('qodeassist/chat/applyAllTitle', 'Write every undone edit of this answer again')} onClick={() => actions.setEdit(message, reappliable, 'applied')}>
                <i className={codicon('check-all')} /> {nls.localize('qodeassist/chat/applyAll', 'Apply all')}
            </button>}
        </div>}
        {message.diskChanges && <DiskChangesView changes={message.diskChanges} revert={path => actions.revertDiskChange(message, path)} />}
        {message.status === 'cancelled' && <div className='qa-cancelled'>{nls.localize('qodeassist/chat/cancelled', 'Cancelled')}</div>}
        {message.status === 'interrupted' && <div className='qa-interrupted'>
            <span><i className={codicon('debug-disconnect')} /> {nls.localize('qodeassist/chat/interrupted', 'Interrupted — the IDE backend stopped before this answer ended')}</span>
            {last && <button type='button' className='theia-button secondary' data-action='retry'
                title={nls.localize('qodeassist/chat/retryTitle', 'Ask for this answer again')} onClick={() => actions.runErrorAction('retry', message)}>
                {nls.localize('qodeassist/chat/retry', 'Retry')}
            </button>}
        </div>}
        {message.status === 'failed' && message.error && <ErrorView error={message.error} except={last ? NO_ACTIONS : OLDER_ANSWER}
            onAction={action => actions.runErrorAction(action, message)} />}
        {message.usage && message.status !== 'streaming' && <div className='qa-usage' data-requests={message.usage.requests}
            title={[...requestLines(message.requests ?? []), ...(message.manifest ? [manifestSummary(message.manifest)] : [])].join('\n') || undefined}>
            {usageLine(message.usage)}
        </div>}
    </div>;
}, (previous, next) => previous.message === next.message && previous.revision === next.revision && previous.permissions === next.permissions
    && previous.last === next.last && previous.recorded === next.recorded && previous.restorable === next.restorable && sameVersions(previous.versions, next.versions));

function sameVersions(a: readonly ChatBranchView[], b: readonly ChatBranchView[]): boolean {
    return a.length === b.length && a.every((version, index) => version.id === b[index].id);
}

const NO_ACTIONS: readonly ChatErrorAction[] = [];
/** Retry asks for the last answer again; an older one stays as it is. */
const OLDER_ANSWER: readonly ChatErrorAction[] = ['retry'];


export function manifestSummary(manifest: ContextManifest): string {
    return `~${manifest.estimate} of ${manifest.limit} tokens`;
}

function PartView({ part, final, role, actions, message }: { part: MessagePart; final: boolean; role: ChatMessage['role']; actions: MessageActions; message: ChatMessage }): React.ReactElement {
    switch (part.kind) {
        case 'text':
            return role === 'user' ? <div className='qa-message-body qa-plain'>{partText(part)}</div> : <MarkdownView chunks={part.chunks} final={final} />;
        case 'thinking':
            return <details className='qa-thinking' data-final={final}>
                <summary>
                    <i className={codicon('lightbulb')} /> {final ? nls.localize('qodeassist/chat/thought', 'Thinking') : nls.localize('qodeassist/chat/thinking', 'Thinking…')}
                </summary>
                <MarkdownView chunks={part.chunks} final={final} />
            </details>;
        case 'tool':
            return <ToolView tool={part.tool} actions={actions} message={message} />;
        case 'agent-call':
            return <AgentCallView call={part.call} openFile={(path, line) => actions.openFile(path, line)} />;
        case 'plan':
            return <PlanView entries={part.entries} />;
    }
}

/** Markdown that grows: finished blocks are rendered once, only the tail again per batch. */
function MarkdownView({ chunks, final }: { chunks: readonly string[]; final: boolean }): React.ReactElement {
    const stream = React.useRef<MarkdownStream>();
    stream.current ??= new MarkdownStream();
    const { blocks, tail } = stream.current.update(chunks, final);
    return <div className='qa-message-body qa-markdown'>
        <StableBlocks blocks={blocks} count={blocks.length} />
        {tail && <div className='qa-md-block qa-md-tail'>{tail}</div>}
    </div>;
}

/** Finished blocks per group: a full group never renders again. */
const BLOCK_GROUP = 16;

/**
 * The finished blocks only grow: re-rendered when one is added, not for every batch of the tail,
 * and then only the last group of them. Rendering every block for each new one would make
 * elements for all of them, hundreds in a long answer, every time.
 */
const StableBlocks = React.memo(function StableBlocks({ blocks, count }: { blocks: readonly React.ReactNode[]; count: number }): React.ReactElement {
    const groups: React.ReactElement[] = [];
    for (let start = 0; start < count; start += BLOCK_GROUP) {
        groups.push(<BlockGroup key={start} blocks={blocks} start={start} end={Math.min(start + BLOCK_GROUP, count)} />);
    }
    return <>{groups}</>;
}, (previous, next) => previous.blocks === next.blocks && previous.count === next.count);

const BlockGroup = React.memo(function BlockGroup({ blocks, start, end }: { blocks: readonly React.ReactNode[]; start: number; end: number }): React.ReactElement {
    const group: React.ReactElement[] = [];
    for (let index = start; index < end; index++) {
        group.push(<div key={index} className='qa-md-block'>{blocks[index]}</div>);
    }
    return <div className='qa-md-group'>{group}</div>;
}, (previous, next) => previous.blocks === next.blocks && previous.start === next.start && previous.end === next.end);

function ToolView({ tool, actions, message }: { tool: ToolActivity; actions: MessageActions; message: ChatMessage }): React.ReactElement {
    const icon = tool.status === 'running' ? `${codicon('loading')} theia-animation-spin` : tool.status === 'error' ? codicon('error') : codicon('check');
    const args = tool.arguments ? JSON.stringify(tool.arguments) : '';
    return <div className='qa-tool-block'>
        <details className='qa-tool' data-tool={tool.name} data-status={tool.status}>
            <summary><i className={icon} /> <span className='qa-tool-name'>{tool.name}</span> <span className='qa-tool-args'>{args.length > 80 ? `${args.slice(0, 80)}…` : args}</span></summary>
            {tool.arguments && <pre className='qa-tool-arguments' tabIndex={0}>{JSON.stringify(tool.arguments, undefined, 2)}</pre>}
            {tool.result !== undefined && <pre className='qa-tool-result' tabIndex={0}>{tool.result}</pre>}
        </details>
        {tool.edit && <FileEditView tool={tool} actions={actions} message={message} />}
    </div>;
}

function FileEditView({ tool, actions, message }: { tool: ToolActivity; actions: MessageActions; message: ChatMessage }): React.ReactElement {
    const edit = tool.edit!;
    const applied = edit.state === 'applied';
    return <div className='qa-file-edit' data-path={edit.record.path} data-state={edit.state}>
        <div className='qa-file-edit-header'>
            <i className={codicon(edit.record.created ? 'new-file' : 'edit')} />
            <a href='#' className='qa-file-link' title={nls.localize('qodeassist/chat/openFileTitle', 'Open {0}', edit.record.path)} onClick={event => { event.preventDefault(); actions.openFile(edit.record.absolutePath); }}>{edit.record.path}</a>
            <span className='qa-file-edit-state'>{applied ? nls.localize('qodeassist/chat/applied', 'applied') : nls.localize('qodeassist/chat/undone', 'undone')}</span>
            <span className='qa-flex' />
            {applied
                ? <button type='button' className='theia-button secondary' data-action='undo' aria-label={nls.localize('qodeassist/chat/undoOf', 'Undo {0}', edit.record.path)}
                    title={nls.localize('qodeassist/chat/undoTitle', 'Put {0} back as it was before this edit', edit.record.path)} onClick={() => actions.setEdit(message, [tool], 'undone')}>
                    <i className={codicon('discard')} /> {nls.localize('qodeassist/chat/undo', 'Undo')}
                </button>
                : <button type='button' className='theia-button secondary' data-action='apply' aria-label={nls.localize('qodeassist/chat/applyOf', 'Apply {0}', edit.record.path)}
                    title={nls.localize('qodeassist/chat/applyTitle', 'Write this edit to {0} again', edit.record.path)} onClick={() => actions.setEdit(message, [tool], 'applied')}>
                    <i className={codicon('check')} /> {nls.localize('qodeassist/chat/apply', 'Apply')}
                </button>}
        </div>
        {edit.problem && <div className='qa-file-edit-problem'><i className={codicon('warning')} /> {edit.problem}</div>}
        <DiffView diff={edit.record.diff} />
    </div>;
}
