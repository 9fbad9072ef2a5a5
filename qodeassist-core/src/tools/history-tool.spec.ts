import * as assert from 'node:assert/strict';
import { HistoryMessage } from '../context/conversation-history';
import { createReadOriginalHistoryTool } from './history-tool';
import { ToolContext } from './tool';

describe('read_original_history', () => {
    const original: HistoryMessage[] = Array.from({ length: 25 }, (_, i): HistoryMessage => ({ role: i % 2 ? 'assistant' : 'user', blocks: [{ type: 'text', text: `message ${i + 1}` }] }));
    original[2] = { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 't', name: 'build_project', content: 'error: E42 in main.c', isError: true }] };
    const tool = createReadOriginalHistoryTool(chatId => chatId === 'compressed' ? original : undefined);
    const context = (chatId: string) => ({ chatId } as ToolContext);

    it('pages through the original messages', async () => {
        const first = (await tool.run({}, context('compressed'))).content;
        assert.ok(first.startsWith('#1 user: message 1\n\n#2 assistant: message 2\n\n#3 user: [build_project failed: error: E42 in main.c]'));
        assert.ok(first.endsWith('#20 assistant: message 20\n[5 more; call again with start=21]'));
        assert.equal((await tool.run({ start: 24 }, context('compressed'))).content, '#24 assistant: message 24\n\n#25 user: message 25');
    });

    it('filters by text and says when there is nothing to read', async () => {
        assert.equal((await tool.run({ query: 'e42' }, context('compressed'))).content, '#3 user: [build_project failed: error: E42 in main.c]');
        assert.match((await tool.run({}, context('fresh'))).content, /has not been summarized/);
        assert.equal((await tool.run({ start: 99 }, context('compressed'))).isError, true);
    });
});
