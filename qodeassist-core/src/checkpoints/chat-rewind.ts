import { QodeAssistError } from '../wire/error-info';
import { ChatChanges, RestorePreview, WorkspaceCheckpoints } from './chat-checkpoints';
import { RestoreOutcome } from './checkpoint-types';

/** What "Restore to here" puts back: the workspace's files, the conversation, or both. */
export type RestoreMode = 'files' | 'chat' | 'both';

/** What a restore did, and what "Undo restore" needs to take it back. */
export interface RestoreToResult extends RestoreOutcome {
    turn: number;
    mode: RestoreMode;
    /** The checkpoint of the files just before the restore (modes files and both). */
    restoreId?: string;
    /** The version the removed messages were kept as (modes chat and both). */
    branchId?: string;
}

/** What rewinding needs of the chat: whether an answer is being written, cutting it before a message, bringing a version back. */
export interface ChatRewindPort {
    busy(chatId: string): boolean;
    /** The chat without its `turn`-th question and what followed, kept as a version; the version's id. */
    cutBefore(chatId: string, turn: number): Promise<string | undefined>;
    bringBack(chatId: string, branchId: string): Promise<void>;
}

function validTurn(turn: number): number {
    if (!Number.isInteger(turn) || turn < 0) {
        throw new QodeAssistError({ category: 'Validation', message: `${turn} is not a message of the chat; pick a message to restore to.` });
    }
    return turn;
}

/**
 * "Restore to here", "Undo restore" and the review of what a chat changed, over a workspace's
 * checkpoints and the chat's history. Refused while an answer is being written: its tools would
 * keep writing over what is put back.
 */
export class ChatRewind {
    constructor(private readonly checkpoints: WorkspaceCheckpoints, private readonly chat: ChatRewindPort) {}

    /** The messages (counted from 0) that have a checkpoint before them: they offer "Restore to here". */
    async turns(workspace: string, chatId: string): Promise<number[]> {
        const entries = await this.checkpoints.forChat(workspace, chatId).entries();
        return [...new Set(entries.filter(entry => entry.kind === 'before-turn').map(entry => entry.turn))].sort((a, b) => a - b);
    }

    /** What restoring the files to before the `turn`-th message would change, asked before it is done. */
    preview(workspace: string, chatId: string, turn: number): Promise<RestorePreview> {
        return this.checkpoints.forChat(workspace, chatId).preview(validTurn(turn));
    }

    /** Restores to before the `turn`-th message: its files, its conversation, or both. */
    async restore(workspace: string, chatId: string, turn: number, mode: RestoreMode): Promise<RestoreToResult> {
        validTurn(turn);
        this.idle(chatId);
        const result: RestoreToResult = { turn, mode, changed: [], skipped: [] };
        if (mode !== 'chat') {
            const files = await this.checkpoints.forChat(workspace, chatId).restore(turn);
            Object.assign(result, { restoreId: files.restoreId, changed: files.changed, skipped: files.skipped });
        }
        if (mode !== 'files') {
            const branchId = await this.chat.cutBefore(chatId, turn);
            if (branchId) {
                result.branchId = branchId;
            }
        }
        return result;
    }

    /** Takes a restore back: the files as they were just before it, the removed messages brought back. */
    async undo(workspace: string, chatId: string, restore: { restoreId?: string; branchId?: string }): Promise<RestoreOutcome> {
        this.idle(chatId);
        const outcome = restore.restoreId ? await this.checkpoints.forChat(workspace, chatId).undoRestore(restore.restoreId) : { changed: [], skipped: [] };
        if (restore.branchId) {
            await this.chat.bringBack(chatId, restore.branchId);
        }
        return outcome;
    }

    /** The files the chat changed since it began (or since the `fromTurn`-th message), up to now or to the end of an external agent's `toTurn`. */
    changes(workspace: string, chatId: string, fromTurn?: number, toTurn?: number): Promise<ChatChanges> {
        return this.checkpoints.forChat(workspace, chatId).changes(fromTurn === undefined ? undefined : validTurn(fromTurn), toTurn === undefined ? undefined : validTurn(toTurn));
    }

    /** Keep: the review stops listing the file as it is now. */
    keep(workspace: string, chatId: string, path: string): Promise<void> {
        return this.checkpoints.forChat(workspace, chatId).keep(path);
    }

    /** Revert: one file as the checkpoint before the `turn`-th message holds it (undoable like a restore). */
    async revert(workspace: string, chatId: string, turn: number, path: string): Promise<RestoreToResult> {
        this.idle(chatId);
        const files = await this.checkpoints.forChat(workspace, chatId).revertFile(validTurn(turn), path);
        return { turn, mode: 'files', restoreId: files.restoreId, changed: files.changed, skipped: files.skipped };
    }

    private idle(chatId: string): void {
        if (this.chat.busy(chatId)) {
            throw new QodeAssistError({ category: 'Validation', message: 'An answer is being written in this chat; stop it or let it finish, then restore.' });
        }
    }
}
