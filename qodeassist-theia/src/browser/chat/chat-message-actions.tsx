import type { ChatBranchView } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ChatMessage } from './chat-transcript';
import { versionsAfterEnd } from './chat-versions';


/** What a message's own toolbar can ask of the chat: copy, edit and resend, regenerate, reset, bring back a version. */
export interface VersionActions {
    copy(message: ChatMessage): void;
    /** Edit and resend a question with `text` in its place. */
    edit(message: ChatMessage, text: string): void;
    /** Ask again for the last answer (the one it replaces is kept as a version). */
    regenerate(message: ChatMessage): void;
    /** Reset the chat to this message (confirmed first); what goes is kept as a version. */
    resetTo(message: ChatMessage): void;
    /** Bring back a replaced version. */
    switchVersion(branchId: string): void;
    /** "Restore to here": the workspace's files and/or the chat as they were before this question (asked first). */
    restoreTo(message: ChatMessage): void;
}

interface ToolbarProps {
    message: ChatMessage;
    /** Edit, reset and versions need the message to be in the chat's saved history (not still on its way). */
    recorded: boolean;
    /** The newest answer: only it can be regenerated. */
    last: boolean;
    versions: readonly ChatBranchView[];
    actions: VersionActions;
    onEdit(): void;
    /** A checkpoint of the workspace was kept before this question: it offers "Restore to here". */
    restorable?: boolean;
}

function IconButton({ icon, label, action, onClick }: { icon: string; label: string; action: string; onClick(): void }): React.ReactElement {
    return <button type='button' className='qa-icon-button' data-action={action} aria-label={label} title={label} onClick={onClick}>
        <i className={codicon(icon)} aria-hidden='true' />
    </button>;
}

/** A finished message's own actions, in its header: shown on hover and on keyboard focus. */
export function MessageToolbar({ message, recorded, last, versions, actions, onEdit, restorable }: ToolbarProps): React.ReactElement | null {
    if (message.status === 'streaming') {
        return null;
    }
    const question = message.role === 'user';
    return <span className='qa-message-toolbar' role='toolbar' aria-label={nls.localize('qodeassist/chat/messageActions', 'Message actions')}>
        {versions.length > 0 && <VersionPicker versions={versions} onPick={actions.switchVersion} />}
        <IconButton icon='copy' action='copy' label={nls.localize('qodeassist/chat/copyMessage', 'Copy message')} onClick={() => actions.copy(message)} />
        {question && recorded && <IconButton icon='edit' action='edit-message' label={nls.localize('qodeassist/chat/editMessage', 'Edit and resend')} onClick={onEdit} />}
        {!question && recorded && last && message.status === 'done'
            && <IconButton icon='refresh' action='regenerate' label={nls.localize('qodeassist/chat/regenerate', 'Regenerate answer')} onClick={() => actions.regenerate(message)} />}
        {question && recorded && restorable && <IconButton icon='history' action='restore-to' label={nls.localize('qodeassist/checkpoints/restoreTo', 'Restore to here (files, chat or both)')}
            onClick={() => actions.restoreTo(message)} />}
        {recorded && !last && <IconButton icon='discard' action='reset-to' label={nls.localize('qodeassist/chat/resetTo', 'Reset the chat to this message')}
            onClick={() => actions.resetTo(message)} />}
    </span>;
}

/** The kept versions of a message: pick one to bring it back (the one shown now is kept in turn). */
function VersionPicker({ versions, onPick }: { versions: readonly ChatBranchView[]; onPick(branchId: string): void }): React.ReactElement {
    const label = nls.localize('qodeassist/chat/versions', 'Earlier versions of this message');
    return <select className='qa-versions theia-select' data-action='versions' aria-label={label} title={label} value=''
        onChange={event => event.target.value && onPick(event.target.value)}>
        <option value=''>{nls.localize('qodeassist/chat/versionCount', '{0} earlier version(s)', versions.length)}</option>
        {[...versions].reverse().map(version => <option key={version.id} value={version.id}>
            {new Date(version.createdAt).toLocaleString()} · {version.preview || `${version.messages} message(s)`}
        </option>)}
    </select>;
}

/** Edits a question in place: Enter sends (Shift+Enter a new line), Escape or Cancel leaves it as it was. */
export function QuestionEditor({ initial, onSend, onCancel }: { initial: string; onSend(text: string): void; onCancel(): void }): React.ReactElement {
    const [text, setText] = React.useState(initial);
    const area = React.useRef<HTMLTextAreaElement>(null);
    React.useEffect(() => {
        area.current?.focus();
        area.current?.setSelectionRange(text.length, text.length);
    }, []);
    const send = () => text.trim() && onSend(text);
    return <div className='qa-question-editor'>
        <textarea ref={area} className='theia-input qa-question-input' value={text} rows={Math.min(10, Math.max(2, text.split('\n').length))}
            aria-label={nls.localize('qodeassist/chat/editedMessage', 'Edited message')}
            onChange={event => setText(event.target.value)}
            onKeyDown={event => {
                if (event.key === 'Enter' && !event.shiftKey) {
                    event.preventDefault();
                    send();
                } else if (event.key === 'Escape') {
                    event.preventDefault();
                    onCancel();
                }
            }} />
        <div className='qa-question-editor-buttons'>
            <button type='button' className='theia-button' data-action='send-edit' disabled={!text.trim()} onClick={send}
                title={nls.localize('qodeassist/chat/sendEditTitle', 'Send in place of the original; the original and what followed are kept as a version')}>
                {nls.localize('qodeassist/chat/sendEdit', 'Send')}
            </button>
            <button type='button' className='theia-button secondary' data-action='cancel-edit' onClick={onCancel}>
                {nls.localize('qodeassist/chat/cancelEdit', 'Cancel')}
            </button>
        </div>
    </div>;
}

/** After the last message: what a reset removed, to bring back. */
export function ResetVersions({ branches, messages, onPick }: { branches: readonly ChatBranchView[]; messages: readonly ChatMessage[]; onPick(branchId: string): void }): React.ReactElement | null {
    const removed = versionsAfterEnd(branches, messages);
    if (removed.length === 0) {
        return null;
    }
    const newest = removed[removed.length - 1];
    return <div className='qa-reset-versions' data-state='reset'>
        <i className={codicon('history')} aria-hidden='true' />
        <span>{nls.localize('qodeassist/chat/resetRemoved', '{0} message(s) after this point were removed.', newest.messages)}</span>
        <button type='button' className='theia-button secondary' data-action='bring-back' onClick={() => onPick(newest.id)}
            title={nls.localize('qodeassist/chat/bringBackTitle', 'Bring the removed messages back; the chat as it is now is kept as a version')}>
            {nls.localize('qodeassist/chat/bringBack', 'Bring back')}
        </button>
    </div>;
}
