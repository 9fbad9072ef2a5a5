import type { ChatBranchView } from '@qodeassist/core';
import { ChatMessage } from './chat-transcript';

/** The position of a message in the chat as the backend counts it: the `turn`-th question (from 0), or its answer. */
export function positionOf(messages: readonly ChatMessage[], message: ChatMessage): { turn: number; part: 'question' | 'answer' } | undefined {
    let turn = -1;
    for (const candidate of messages) {
        if (candidate.role === 'user') {
            turn++;
        }
        if (candidate === message) {
            return turn < 0 ? undefined : { turn, part: message.role === 'user' ? 'question' : 'answer' };
        }
    }
    return undefined;
}

/** The versions kept for a position of the chat. */
export function versionsAt(branches: readonly ChatBranchView[], position: { turn: number; part: 'question' | 'answer' } | undefined): ChatBranchView[] {
    return position ? branches.filter(branch => branch.turn === position.turn && branch.part === position.part) : [];
}

/**
 * The versions that continue after the last message shown (what a reset removed): their position
 * is the next question, or the answer to a last question that has none.
 */
export function versionsAfterEnd(branches: readonly ChatBranchView[], messages: readonly ChatMessage[]): ChatBranchView[] {
    const turns = messages.filter(message => message.role === 'user').length;
    const endsWithQuestion = messages[messages.length - 1]?.role === 'user';
    return branches.filter(branch => branch.part === 'question' ? branch.turn >= turns : branch.turn >= turns || (endsWithQuestion && branch.turn === turns - 1));
}

/** What Copy puts on the clipboard: a question's text (with its skill), an answer's Markdown without its thinking and tool calls. */
export function copyText(message: ChatMessage): string {
    const text = message.parts.map(part => part.kind === 'text' ? part.chunks.join('') : '').join('');
    return message.skill ? `/${message.skill} ${text}`.trim() : text;
}
