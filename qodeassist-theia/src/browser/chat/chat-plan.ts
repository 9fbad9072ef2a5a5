import { todoChecklist } from '@qodeassist/core/protocol';
import { ChatMessage, textOf, toolsOf } from './chat-transcript';

/**
 * The plan a plan-mode conversation ended with, as the user edits it before Act: the last answer's
 * text, then the todo checklist its `todo` calls built (`[ ]` open, `[x]` done).
 */
export function planOf(messages: readonly ChatMessage[]): string {
    const answer = [...messages].reverse().find(message => message.role === 'assistant' && textOf(message).trim());
    const checklist = todoChecklist(messages.flatMap(message => toolsOf(message)).map(tool => ({ name: tool.name, input: tool.arguments ?? {} })));
    return [answer ? textOf(answer).trim() : '', checklist].filter(Boolean).join('\n\n');
}
