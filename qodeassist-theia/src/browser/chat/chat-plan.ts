import { ChatMessage, textOf, toolsOf } from './chat-transcript';

/**
 * The plan a plan-mode conversation ended with, as the user edits it before Act: the last answer's
 * text, then the todo checklist its `todo` calls built (`[ ]` open, `[x]` done).
 */
export function planOf(messages: readonly ChatMessage[]): string {
    const answer = [...messages].reverse().find(message => message.role === 'assistant' && textOf(message).trim());
    const items: Array<{ text: string; done: boolean }> = [];
    for (const tool of messages.flatMap(message => toolsOf(message)).filter(tool => tool.name === 'todo')) {
        const args = tool.arguments ?? {};
        if (args.action === 'add' && typeof args.text === 'string') {
            items.push({ text: args.text, done: false });
        } else if (args.action === 'complete' && typeof args.id === 'number' && items[args.id - 1]) {
            items[args.id - 1].done = true;
        }
    }
    const checklist = items.map((item, index) => `${item.done ? '[x]' : '[ ]'} ${index + 1}. ${item.text}`).join('\n');
    return [answer ? textOf(answer).trim() : '', checklist].filter(Boolean).join('\n\n');
}
