import { z } from 'zod';
import { HistoryMessage } from '../context/conversation-history';
import { AnyTool, defineTool } from './tool';

const PAGE = 20;

/** Renders one stored message for the model: text, tool calls and results, in order. */
function describe(message: HistoryMessage, index: number): string {
    const parts = message.blocks.map(block => {
        switch (block.type) {
            case 'text': return block.text;
            case 'tool_use': return `[called ${block.name} ${JSON.stringify(block.input)}]`;
            case 'tool_result': return `[${block.name} ${block.isError ? 'failed' : 'returned'}: ${block.content.length > 500 ? `${block.content.slice(0, 500)}…` : block.content}]`;
            case 'image': case 'attachment': return `[attached ${block.ref.name}]`;
            case 'file_edit': return `[edited ${block.path}]`;
            case 'skill_invocation': return `[skill ${block.name}]`;
            default: return '';
        }
    }).filter(Boolean);
    return `#${index + 1} ${message.role}: ${parts.join('\n')}`;
}

/** read_original_history: pages through the chat's history as it was before it was summarized. */
export function createReadOriginalHistoryTool(original: (chatId: string) => readonly HistoryMessage[] | undefined): AnyTool {
    return defineTool({
        name: 'read_original_history',
        description: 'Read the messages this chat had before it was summarized, a page at a time, e.g. to recover an exact detail the summary left out.',
        permission: 'read',
        parameters: z.strictObject({
            start: z.number().int().positive().optional().describe('First message to show (1-based); default 1'),
            query: z.string().optional().describe('Only messages containing this text (case-insensitive)')
        }),
        run: async (args, context) => {
            const messages = original(context.chatId);
            if (!messages || messages.length === 0) {
                return { content: 'This chat has not been summarized, so there is no original history; everything is in the conversation already.' };
            }
            const query = args.query?.toLowerCase();
            const rendered = messages.map(describe).filter(text => !query || text.toLowerCase().includes(query));
            const start = (args.start ?? 1) - 1;
            const page = rendered.slice(start, start + PAGE);
            if (page.length === 0) {
                return { isError: true, content: `No messages from ${start + 1} on (there are ${rendered.length}${query ? ' matching' : ''}).` };
            }
            const more = start + PAGE < rendered.length ? `\n[${rendered.length - start - PAGE} more; call again with start=${start + PAGE + 1}]` : '';
            return { content: `${page.join('\n\n')}${more}` };
        }
    });
}
