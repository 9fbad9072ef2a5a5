import { z } from 'zod';
import { AnyTool, defineTool } from './tool';

interface TodoItem {
    id: number;
    text: string;
    done: boolean;
}

const TODO_PARAMETERS = z.discriminatedUnion('action', [
    z.strictObject({ action: z.literal('add'), text: z.string().min(1) }),
    z.strictObject({ action: z.literal('complete'), id: z.number().int().positive() }),
    z.strictObject({ action: z.literal('list') })
]);

/** A per-chat task list the model keeps for itself; it touches nothing in the workspace. */
export function createTodoTool(): AnyTool {
    const lists = new Map<string, TodoItem[]>();
    const render = (items: TodoItem[]) => items.length
        ? items.map(item => `${item.done ? '[x]' : '[ ]'} ${item.id}. ${item.text}`).join('\n') : 'The todo list is empty.';
    return defineTool({
        name: 'todo',
        description: 'Keep a todo list for this chat: add an item, complete one by id, or list them.',
        permission: 'read',
        parameters: TODO_PARAMETERS,
        run: async (args, context) => {
            const items = lists.get(context.chatId) ?? [];
            lists.set(context.chatId, items);
            if (args.action === 'add') {
                items.push({ id: items.length + 1, text: args.text, done: false });
            } else if (args.action === 'complete') {
                const item = items.find(candidate => candidate.id === args.id);
                if (!item) {
                    return { isError: true, content: `There is no todo item ${args.id}.\n${render(items)}` };
                }
                item.done = true;
            }
            return { content: render(items) };
        }
    });
}
