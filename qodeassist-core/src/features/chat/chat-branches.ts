import { randomUUID } from 'node:crypto';
import { HistoryMessage, isUnfinished, isUserTurn, messageText } from '../../context/conversation-history';
import { ChatBranch, StoredFileEdit } from '../../session/chat-store';
import { QodeAssistError } from '../../wire/error-info';
import { ChatBranchView, editIdOf, TurnPosition } from './chat-types';

/** The history's index of the `turn`-th message the user wrote; undefined when there are fewer. */
export function indexOfTurn(history: readonly HistoryMessage[], turn: number): number | undefined {
    let seen = -1;
    for (let index = 0; index < history.length; index++) {
        if (isUserTurn(history[index]) && ++seen === turn) {
            return index;
        }
    }
    return undefined;
}

/**
 * Where the chat is cut to keep up to a position: after the question (its answer goes), or
 * after the answer (everything from the next question goes).
 */
export function cutAfter(history: readonly HistoryMessage[], position: TurnPosition): number {
    const question = indexOfTurn(history, position.turn);
    if (question === undefined) {
        throw new QodeAssistError({ category: 'Validation', message: `The chat has no message ${position.turn + 1}; it changed meanwhile. Reload the chat and try again.` });
    }
    if (position.part === 'question') {
        return question + 1;
    }
    return indexOfTurn(history, position.turn + 1) ?? history.length;
}

/** The keys the chat keeps the file edits of the messages from `from` on under (counted as editIdOf counts them). */
export function editKeysFrom(history: readonly HistoryMessage[], from: number): string[] {
    const seen = new Map<string, number>();
    const keys: string[] = [];
    history.forEach((message, index) => {
        for (const block of message.blocks) {
            if (block.type === 'tool_result') {
                const earlier = seen.get(block.toolUseId) ?? 0;
                seen.set(block.toolUseId, earlier + 1);
                if (index >= from) {
                    keys.push(editIdOf(block.toolUseId, earlier));
                }
            }
        }
    });
    return keys;
}

/** A chat's conversation and what it keeps beside it: its file edits and its replaced branches. */
export interface BranchingChat {
    history: HistoryMessage[];
    edits: Record<string, StoredFileEdit>;
    branches: ChatBranch[];
}

/**
 * Cuts the history at `at`: the messages from there on, with their file edits, become a branch
 * the user can bring back; the versions made of those messages (they start after `at`) go inside
 * it, since they continue it and not what replaces it. Nothing is kept when all that is cut is
 * answers that did not finish (a failed or stopped answer retried is not a version of it).
 */
export function branchOff(chat: BranchingChat, at: number, reason: ChatBranch['reason'], now = new Date()): BranchingChat {
    const tail = chat.history.slice(at);
    const edits = { ...chat.edits };
    const moved: Record<string, StoredFileEdit> = {};
    for (const key of editKeysFrom(chat.history, at)) {
        if (edits[key]) {
            moved[key] = edits[key];
            delete edits[key];
        }
    }
    const inside = chat.branches.filter(branch => branch.at > at);
    const beside = chat.branches.filter(branch => branch.at <= at);
    const worthKeeping = inside.length > 0 || tail.some(message => !isUnfinished(message));
    const branch: ChatBranch = { id: randomUUID(), at, messages: tail, edits: moved, createdAt: now.toISOString(), reason, ...inside.length > 0 ? { branches: inside } : {} };
    return { history: chat.history.slice(0, at), edits, branches: worthKeeping ? [...beside, branch] : beside };
}

/** Brings a branch back, with the versions kept inside it: the messages it replaces become a branch in turn (nothing is lost either way). */
export function switchToBranch(chat: BranchingChat, branchId: string, now = new Date()): BranchingChat {
    const branch = chat.branches.find(candidate => candidate.id === branchId);
    if (!branch) {
        throw new QodeAssistError({ category: 'Validation', message: 'That version of the chat is no longer kept (it was brought back already, or the chat changed). Reload the chat.' });
    }
    if (branch.at > chat.history.length) {
        throw new QodeAssistError({
            category: 'Validation',
            message: 'That version continues a part of the chat that is not shown now (the chat was reset before it). Bring back the earlier version first.'
        });
    }
    const others = { ...chat, branches: chat.branches.filter(candidate => candidate !== branch) };
    const cut = branchOff(others, branch.at, branch.reason, now);
    return { history: [...cut.history, ...branch.messages], edits: { ...cut.edits, ...branch.edits }, branches: [...cut.branches, ...branch.branches ?? []] };
}

/** Branch bookkeeping's view of an open chat (its history copied; edits and branches as they are). */
export function branching(chat: { history: readonly HistoryMessage[]; record: { edits: Record<string, StoredFileEdit>; branches?: ChatBranch[] } }): BranchingChat {
    return { history: [...chat.history], edits: chat.record.edits, branches: chat.record.branches ?? [] };
}

/** The branches a view can offer on the chat as it is now: those that start within the shown history. */
export function branchViews(history: readonly HistoryMessage[], branches: readonly ChatBranch[]): ChatBranchView[] {
    return branches.flatMap((branch): ChatBranchView[] => {
        if (branch.at > history.length || branch.messages.length === 0) {
            return [];
        }
        const turnsBefore = history.slice(0, branch.at).filter(isUserTurn).length;
        const first = branch.messages[0];
        const question = isUserTurn(first);
        if (!question && turnsBefore === 0) {
            return [];
        }
        const text = messageText(first).trim().replace(/\s+/g, ' ');
        return [{
            id: branch.id, turn: question ? turnsBefore : turnsBefore - 1, part: question ? 'question' : 'answer', reason: branch.reason,
            createdAt: branch.createdAt, preview: text.length > 80 ? `${text.slice(0, 79)}…` : text, messages: branch.messages.length
        }];
    });
}

/** The last message the user wrote (not a tool round's results); refused when there is none. */
export function lastQuestion(history: readonly HistoryMessage[]): number {
    const asked = [...history].reverse().findIndex(message => message.role === 'user' && message.blocks.some(block => block.type !== 'tool_result'));
    if (asked < 0) {
        throw new QodeAssistError({ category: 'Validation', message: 'The chat has no message to answer again; type one.' });
    }
    return history.length - 1 - asked;
}
