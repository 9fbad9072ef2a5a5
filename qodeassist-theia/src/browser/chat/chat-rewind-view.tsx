import type { FileChangeView, LeftOutFiles, RestoreMode } from '../../common/chat-protocol';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { DiffView } from '../shared/permission-prompt';
import { ChatRewindState } from './chat-rewind';

const KIND_ICON: Record<FileChangeView['kind'], string> = { added: 'diff-added', deleted: 'diff-removed', modified: 'diff-modified' };

function kindLabel(kind: FileChangeView['kind']): string {
    switch (kind) {
        case 'added': return nls.localize('qodeassist/checkpoints/added', 'created');
        case 'deleted': return nls.localize('qodeassist/checkpoints/deleted', 'deleted');
        case 'modified': return nls.localize('qodeassist/checkpoints/modified', 'modified');
    }
}

/** One changed file: its path, how it changed, its diff (folded), and the actions given. */
export function FileChangeRow({ file, children }: { file: FileChangeView; children?: React.ReactNode }): React.ReactElement {
    return <details className='qa-change' data-path={file.path} data-kind={file.kind}>
        <summary>
            <i className={codicon(KIND_ICON[file.kind])} aria-hidden='true' />
            <span className='qa-change-path'>{file.path}</span>
            <span className='qa-change-kind'>{kindLabel(file.kind)}{file.modeChanged ? `, ${nls.localize('qodeassist/checkpoints/mode', 'mode')}` : ''}</span>
            <span className='qa-flex' />
            {children}
        </summary>
        {file.binary ? <div className='qa-change-note'>{nls.localize('qodeassist/checkpoints/binary', 'Binary file')}</div>
            : file.diff ? <DiffView diff={file.diff} /> : <div className='qa-change-note'>{nls.localize('qodeassist/checkpoints/large', 'Too large to show')}</div>}
        {file.truncated && file.diff && <div className='qa-change-note'>{nls.localize('qodeassist/checkpoints/truncated', 'The diff is cut here.')}</div>}
    </details>;
}

function LeftOut({ leftOut }: { leftOut: LeftOutFiles }): React.ReactElement | null {
    const lines = [
        ...leftOut.oversized.map(path => `${path} (${nls.localize('qodeassist/checkpoints/tooLarge', 'too large')})`),
        ...leftOut.ignored.map(path => `${path} (${nls.localize('qodeassist/checkpoints/ignored', 'ignored')})`),
        ...leftOut.nestedRepositories.map(path => `${path} (${nls.localize('qodeassist/checkpoints/nested', 'repository of its own')})`)
    ];
    if (lines.length === 0) {
        return null;
    }
    return <details className='qa-left-out' data-count={lines.length}>
        <summary>{nls.localize('qodeassist/checkpoints/leftOut', '{0} file(s) or folder(s) are not kept in checkpoints and stay as they are', lines.length)}</summary>
        <ul>{lines.map(line => <li key={line}>{line}</li>)}</ul>
    </details>;
}

const MODES: ReadonlyArray<{ mode: RestoreMode; label: () => string }> = [
    { mode: 'both', label: () => nls.localize('qodeassist/checkpoints/both', 'Files and chat') },
    { mode: 'files', label: () => nls.localize('qodeassist/checkpoints/filesOnly', 'Files only') },
    { mode: 'chat', label: () => nls.localize('qodeassist/checkpoints/chatOnly', 'Chat only') }
];

/** "Restore to here", asked first: what to restore, and every file that would change with its diff. */
export function RestoreCard({ rewind }: { rewind: ChatRewindState }): React.ReactElement | null {
    const question = rewind.question;
    if (!question) {
        return null;
    }
    const files = question.mode === 'chat' ? [] : question.preview?.files ?? [];
    return <div className='qa-restore-card' role='dialog' aria-label={nls.localize('qodeassist/checkpoints/restoreTitle', 'Restore to before message {0}', question.turn + 1)}>
        <div className='qa-restore-title'>
            <i className={codicon('history')} aria-hidden='true' /> {nls.localize('qodeassist/checkpoints/restoreTitle', 'Restore to before message {0}', question.turn + 1)}
        </div>
        <div className='qa-restore-modes' role='radiogroup'>
            {MODES.map(({ mode, label }) => <label key={mode}>
                <input type='radio' name='qa-restore-mode' value={mode} data-mode={mode} checked={question.mode === mode} onChange={() => rewind.choose(mode)} /> {label()}
            </label>)}
        </div>
        {question.mode !== 'files' && <div className='qa-change-note'>
            {nls.localize('qodeassist/checkpoints/chatNote', 'The messages from this one on leave the chat; they are kept as a version.')}
        </div>}
        {question.mode !== 'chat' && question.preview && <div className='qa-restore-files' data-count={files.length}>
            {files.length === 0
                ? <div className='qa-change-note'>{nls.localize('qodeassist/checkpoints/noFiles', 'No file differs from that checkpoint.')}</div>
                : files.map(file => <FileChangeRow key={file.path} file={file} />)}
            <LeftOut leftOut={question.preview.leftOut} />
        </div>}
        {question.working && <div className='qa-change-note'><i className={`${codicon('loading')} theia-animation-spin`} /> {nls.localize('qodeassist/checkpoints/working', 'Comparing with the checkpoint…')}</div>}
        {question.problem && <div className='qa-file-edit-problem'><i className={codicon('warning')} /> {question.problem}</div>}
        <div className='qa-restore-buttons'>
            <button type='button' className='theia-button' data-action='confirm-restore' disabled={question.working || (!question.preview && question.mode !== 'chat')}
                onClick={() => void rewind.confirm()}>{nls.localize('qodeassist/checkpoints/restore', 'Restore')}</button>
            <button type='button' className='theia-button secondary' data-action='cancel-restore' onClick={() => rewind.cancel()}>
                {nls.localize('qodeassist/checkpoints/cancel', 'Cancel')}
            </button>
        </div>
    </div>;
}

/** After a restore or a revert: what it did, and "Undo restore". */
export function RestoredBanner({ rewind }: { rewind: ChatRewindState }): React.ReactElement | null {
    const restored = rewind.restored;
    if (!restored) {
        return null;
    }
    const files = restored.changed.length;
    return <div className='qa-notice qa-restored' role='status' data-files={files}>
        <i className={codicon('history')} aria-hidden='true' />
        <span>{restored.mode === 'chat'
            ? nls.localize('qodeassist/checkpoints/restoredChat', 'The chat is back to before message {0}.', restored.turn + 1)
            : nls.localize('qodeassist/checkpoints/restoredFiles', 'Restored to before message {0}: {1} file(s) changed.', restored.turn + 1, files)}
        {restored.skipped.length > 0 && ` ${nls.localize('qodeassist/checkpoints/skipped', 'Left as they are: {0}.', restored.skipped.map(skip => `${skip.path} (${skip.reason})`).join('; '))}`}
        {restored.problem && ` ${restored.problem}`}</span>
        <button type='button' className='theia-button secondary' data-action='undo-restore' disabled={restored.working} onClick={() => void rewind.undo()}
            title={nls.localize('qodeassist/checkpoints/undoTitle', 'Put the files and the chat back as they were just before the restore')}>
            {nls.localize('qodeassist/checkpoints/undo', 'Undo restore')}
        </button>
        <button type='button' className='qa-icon-button' data-action='dismiss-restored' aria-label={nls.localize('qodeassist/chat/dismiss', 'Dismiss')}
            onClick={() => rewind.dismissRestored()}><i className={codicon('close')} aria-hidden='true' /></button>
    </div>;
}

/** What the chat changed in the workspace since it began (or since a message), each file with Keep and Revert. */
export function ReviewPanel({ rewind }: { rewind: ChatRewindState }): React.ReactElement | null {
    const review = rewind.review;
    if (!review) {
        return null;
    }
    const files = review.changes?.files ?? [];
    const since = review.fromTurn ?? '';
    return <div className='qa-review' role='region' aria-label={nls.localize('qodeassist/checkpoints/review', 'Changes made in this chat')}>
        <div className='qa-review-header'>
            <i className={codicon('diff')} aria-hidden='true' />
            <span>{nls.localize('qodeassist/checkpoints/changesSince', 'Changed files since')}</span>
            <select className='theia-select' data-action='review-since' value={since} aria-label={nls.localize('qodeassist/checkpoints/since', 'Changes since')}
                onChange={event => void rewind.openReview(event.target.value === '' ? undefined : Number(event.target.value))}>
                <option value=''>{nls.localize('qodeassist/checkpoints/chatBegan', 'the chat began')}</option>
                {[...rewind.turns].map(turn => <option key={turn} value={turn}>{nls.localize('qodeassist/checkpoints/message', 'message {0}', turn + 1)}</option>)}
            </select>
            <span className='qa-flex' />
            <button type='button' className='qa-icon-button' data-action='refresh-review' aria-label={nls.localize('qodeassist/checkpoints/refresh', 'Refresh')}
                title={nls.localize('qodeassist/checkpoints/refresh', 'Refresh')} onClick={() => void rewind.openReview(review.fromTurn, review.toTurn)}>
                <i className={codicon('refresh')} aria-hidden='true' /></button>
            <button type='button' className='qa-icon-button' data-action='close-review' aria-label={nls.localize('qodeassist/checkpoints/close', 'Close the review')}
                onClick={() => rewind.closeReview()}><i className={codicon('close')} aria-hidden='true' /></button>
        </div>
        {review.loading && <div className='qa-change-note'><i className={`${codicon('loading')} theia-animation-spin`} /> {nls.localize('qodeassist/checkpoints/loading', 'Comparing…')}</div>}
        {review.problem && <div className='qa-file-edit-problem'><i className={codicon('warning')} /> {review.problem}</div>}
        {!review.loading && files.length === 0 && !review.problem && <div className='qa-change-note'>
            {rewind.turns.size === 0
                ? nls.localize('qodeassist/checkpoints/noCheckpoints', 'No checkpoint yet: one is kept before each message whose agent may change files.')
                : nls.localize('qodeassist/checkpoints/noChanges', 'No file changed.')}
        </div>}
        <div className='qa-review-files' data-count={files.length}>
            {files.map(file => <FileChangeRow key={file.path} file={file}>
                <button type='button' className='theia-button secondary' data-action='keep' onClick={event => { event.preventDefault(); void rewind.keep(file.path); }}
                    title={nls.localize('qodeassist/checkpoints/keepTitle', 'Keep {0} as it is; it leaves this list', file.path)}>{nls.localize('qodeassist/checkpoints/keep', 'Keep')}</button>
                <button type='button' className='theia-button secondary' data-action='revert' onClick={event => { event.preventDefault(); void rewind.revert(file.path); }}
                    title={nls.localize('qodeassist/checkpoints/revertTitle', 'Put {0} back as it was at that checkpoint', file.path)}>{nls.localize('qodeassist/checkpoints/revert', 'Revert')}</button>
            </FileChangeRow>)}
        </div>
    </div>;
}

/** On an external agent's answer: the files it changed on disk by itself during its turn, with Revert. */
export function DiskChangesView({ changes, revert }: { changes: { turn: number; files: readonly FileChangeView[] }; revert(path: string): void }): React.ReactElement {
    return <div className='qa-disk-changes' data-count={changes.files.length}>
        <div className='qa-change-note'><i className={codicon('files')} aria-hidden='true' /> {nls.localize('qodeassist/checkpoints/onDisk', 'Changed on disk during this turn')}</div>
        {changes.files.map(file => <FileChangeRow key={file.path} file={file}>
            <button type='button' className='theia-button secondary' data-action='revert' onClick={event => { event.preventDefault(); revert(file.path); }}
                title={nls.localize('qodeassist/checkpoints/revertTurnTitle', 'Put {0} back as it was before this turn', file.path)}>{nls.localize('qodeassist/checkpoints/revert', 'Revert')}</button>
        </FileChangeRow>)}
    </div>;
}
