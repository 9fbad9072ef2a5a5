import { z } from 'zod';
import { describeAgentPlan, describeAgentToolCall } from '../context/agent-activity';
import { HistoryMessage } from '../context/conversation-history';
import { capHead } from './output-cap';
import { AnyTool, defineTool } from './tool';

/** Messages one call shows at most. */
const PAGE = 20;
/** Characters one call shows at most: a page ends early rather than pass this, and one message longer than this is cut. */
export const MAX_HISTORY_PAGE_CHARS = 50_000;

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
            case 'agent_tool_call': return describeAgentToolCall(block.agent, block.call);
            case 'agent_plan': return describeAgentPlan(block.agent, block.entries);
            default: return '';
        }
    }).filter(Boolean);
    return `#${index + 1} ${message.role}: ${parts.join('\n')}`;
}

const HISTORY_PARAMETERS = z.strictObject({
    start: z.number().int().positive().optional().describe('First message to show (1-based); default 1'),
    query: z.string().optional().describe('Only messages containing this text (case-insensitive)')
});

/** read_original_history: pages through the chat's history as it was before it was summarized. */
export function createReadOriginalHistoryTool(original: (chatId: string) => readonly HistoryMessage[] | undefined): AnyTool {
    return defineTool({
        name: 'read_original_history',
        description: 'Read the messages this chat had before it was summarized, a page at a time, e.g. to recover an exact detail the summary left out.',
        permission: 'read',
        parameters: HISTORY_PARAMETERS,
        run: async (args, context) => {
            const messages = original(context.chatId);
            if (!messages || messages.length === 0) {
                return { content: 'This chat has not been summarized, so there is no original history; everything is in the conversation already.' };
            }
            const query = args.query?.toLowerCase();
            const rendered = messages.map(describe).filter(text => !query || text.toLowerCase().includes(query));
            const start = (args.start ?? 1) - 1;
            if (start >= rendered.length) {
                return { isError: true, content: `No messages from ${start + 1} on (there are ${rendered.length}${query ? ' matching' : ''}).` };
            }
            const page: string[] = [];
            let size = 0;
            for (let index = start; index < rendered.length && page.length < PAGE; index++) {
                const shown = capHead(rendered[index], MAX_HISTORY_PAGE_CHARS, `read_original_history shows at most ${MAX_HISTORY_PAGE_CHARS} characters of one message`);
                if (page.length > 0 && size + shown.length > MAX_HISTORY_PAGE_CHARS) {
                    break;
                }
                page.push(shown);
                size += shown.length + 2;
            }
            const next = start + page.length;
            const more = next < rendered.length ? `\n[${rendered.length - next} more; call again with start=${next + 1}]` : '';
            return { content: `${page.join('\n\n')}${more}` };
        }
    });
}
