import { QodeAssistError } from '../../wire/error-info';
import { branching, branchOff, BranchingChat, cutAfter, indexOfTurn, switchToBranch } from './chat-branches';
import { ChatOwners } from './chat-owners';
import { TurnPosition } from './chat-types';
import { OpenChat } from './open-chat';

/** What a rewrite needs of the window it is asked in. */
export interface RewriteWindow {
    /** The chat open in this window, or a typed error saying it is not. */
    chatFor(chatId: string): OpenChat;
    /** Throws when this window no longer shows the chat (it was closed meanwhile). */
    stillShown(chat: OpenChat): void;
}

/**
 * Replacing a chat's history with a version of it: an edit, a regenerate, a reset to a message, a
 * version brought back, "Restore to here". What is replaced is kept as a version; every window is told.
 */
export class ChatRewrites {
    constructor(private readonly owners: ChatOwners, private readonly window: RewriteWindow) { }

    /** The chat's history, edits and versions replaced; every window is told. An external agent's session no longer matches it: the next message starts a new one. */
    rewrite(chat: OpenChat, next: BranchingChat): void {
        chat.agentLink?.forgetSession();
        chat.record.agentSession = undefined;
        chat.replaceHistory(next.history);
        chat.record.edits = next.edits;
        chat.record.branches = next.branches;
        this.owners.broadcast(chat, [chat.historyEvent()]);
    }

    /**
     * Resets the chat to a message: it ends with that question (its answer goes) or that answer
     * (the later messages go). What goes is kept as a version the user can bring back.
     */
    async resetTo(chatId: string, position: TurnPosition): Promise<void> {
        await this.whileIdle(chatId, chat => branchOff(branching(chat), cutAfter(chat.history, position), 'reset'));
    }

    /** Brings back a replaced version of the chat; what it replaces is kept as a version in turn. */
    async switchBranch(chatId: string, branchId: string): Promise<void> {
        await this.whileIdle(chatId, chat => switchToBranch(branching(chat), branchId));
    }

    /** "Restore to here" with the chat: it goes back to before its `turn`-th question, what goes kept as a version (its id returned, for "Undo restore"). */
    async cutBefore(chatId: string, turn: number): Promise<string | undefined> {
        let branchId: string | undefined;
        await this.whileIdle(chatId, chat => {
            const at = indexOfTurn(chat.history, turn);
            if (at === undefined) {
                throw new QodeAssistError({ category: 'Validation', message: `The chat has no message ${turn + 1} to restore to; it changed meanwhile. Reload the chat.` });
            }
            const earlier = new Set((chat.record.branches ?? []).map(branch => branch.id));
            const next = branchOff(branching(chat), at, 'reset');
            branchId = next.branches.find(branch => !earlier.has(branch.id))?.id;
            return next;
        });
        return branchId;
    }

    /** A rewrite while no answer is being written (one is: stop it first), saved before it resolves. */
    private async whileIdle(chatId: string, next: (chat: OpenChat) => BranchingChat): Promise<void> {
        const chat = this.window.chatFor(chatId);
        await chat.exclusive(async () => {
            if (chat.live || chat.session?.busy) {
                throw new QodeAssistError({ category: 'Validation', message: 'An answer is being written in this chat; stop it or let it finish, then try again.' });
            }
            this.window.stillShown(chat);
            this.rewrite(chat, next(chat));
            this.owners.save(chat);
        });
        await chat.saving;
    }
}
