import type { PermissionAnswer, PermissionRequest } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { PendingPermission } from './pending-permission';

/** A unified diff, coloured by line; the file header lines are left out (the block names the file). */
export function DiffView({ diff }: { diff: string }): React.ReactElement {
    const lines = diff.replace(/\n$/, '').split('\n').filter(line => !line.startsWith('---') && !line.startsWith('+++') && !line.startsWith('Index:') && !line.startsWith('\\'));
    // Focusable: a long diff scrolls, and the keyboard must be able to scroll it.
    return <pre className='qa-diff' tabIndex={0}>{lines.map((line, index) => <div key={index}
        className={line.startsWith('@@') ? 'qa-diff-hunk' : line.startsWith('+') ? 'qa-diff-add' : line.startsWith('-') ? 'qa-diff-del' : 'qa-diff-context'}>{line || ' '}</div>)}</pre>;
}

/** The diff a write tool is about to make, from its arguments, shown before the user allows it. */
function proposedDiff(request: PermissionRequest): string | undefined {
    const args = request.arguments;
    const lines = (text: unknown, sign: string) => typeof text === 'string' ? text.replace(/\n$/, '').split('\n').map(line => `${sign}${line}`) : [];
    if (request.tool === 'edit_file') {
        return ['@@ ' + String(args.path) + ' @@', ...lines(args.old_text, '-'), ...lines(args.new_text, '+')].join('\n');
    }
    if (request.tool === 'create_file') {
        return ['@@ new file ' + String(args.path) + ' @@', ...lines(args.content, '+')].join('\n');
    }
    return undefined;
}

/** A write or execute tool waiting for the user: the exact arguments (a diff for edits) and the answers. */
export function PermissionPrompt({ pending, onAnswer, within = 'chat' }: {
    pending: PendingPermission; onAnswer(pending: PendingPermission, answer: PermissionAnswer): void; within?: 'chat' | 'refactor'
}): React.ReactElement {
    const { request } = pending;
    const diff = proposedDiff(request);
    const write = request.permission === 'write';
    const subject = typeof request.arguments.path === 'string' ? request.arguments.path : request.tool;
    return <div className='qa-permission' data-tool={request.tool} role='group' aria-label={nls.localize('qodeassist/chat/permissionFor', 'Permission for {0}', request.tool)}>
        <div className='qa-permission-title'>
            <i className={codicon(request.permission === 'execute' ? 'terminal' : 'edit')} aria-hidden='true' />
            {write && typeof request.arguments.path === 'string'
                ? ` QodeAssist wants to ${request.tool === 'create_file' ? 'create' : 'change'} ${request.arguments.path}`
                : ` QodeAssist wants to run ${request.tool} (${request.permission})`}
        </div>
        {request.protectedPath !== undefined && <div className='qa-permission-protected'>
            {nls.localize('qodeassist/chat/protectedPath', '{0} holds configuration or ignore rules, so QodeAssist asks every time.', request.protectedPath)}
        </div>}
        {diff ? <DiffView diff={diff} /> : <pre className='qa-permission-args' tabIndex={0}>{JSON.stringify(request.arguments, undefined, 2)}</pre>}
        <div className='qa-permission-actions'>
            <button type='button' className='theia-button' data-answer='allow-once'
                title={write ? nls.localize('qodeassist/chat/applyEditTitle', 'Write this change to {0}', subject) : nls.localize('qodeassist/chat/allowOnceTitle', 'Run {0} this time', subject)} onClick={() => onAnswer(pending, 'allow-once')}>
                {write ? nls.localize('qodeassist/chat/applyEdit', 'Apply') : nls.localize('qodeassist/chat/allowOnce', 'Allow once')}
            </button>
            {request.protectedPath === undefined && <button type='button' className='theia-button secondary' data-answer='allow-chat'
                title={nls.localize('qodeassist/chat/allowChatTitle', 'Do not ask again for {0} until this {1} ends', request.tool, within)} onClick={() => onAnswer(pending, 'allow-chat')}>
                {within === 'refactor'
                    ? write ? nls.localize('qodeassist/refactor/applyAll', 'Apply all in this refactor') : nls.localize('qodeassist/refactor/allowAll', 'Allow for this refactor')
                    : write ? nls.localize('qodeassist/chat/applyAllChat', 'Apply all in this chat') : nls.localize('qodeassist/chat/allowChat', 'Allow for this chat')}
            </button>}
            <button type='button' className='theia-button secondary' data-answer='deny'
                title={write ? nls.localize('qodeassist/chat/rejectTitle', 'Leave {0} as it is', subject) : nls.localize('qodeassist/chat/denyTitle', 'Do not run {0}', subject)} onClick={() => onAnswer(pending, 'deny')}>
                {write ? nls.localize('qodeassist/chat/reject', 'Reject') : nls.localize('qodeassist/chat/deny', 'Deny')}
            </button>
        </div>
    </div>;
}
