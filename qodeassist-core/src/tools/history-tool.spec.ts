import * as assert from 'node:assert/strict';
import { HistoryMessage } from '../context/conversation-history';
import { createReadOriginalHistoryTool, MAX_HISTORY_PAGE_CHARS } from './history-tool';
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

    it('keeps a page within 50,000 characters: the page ends early, and one longer message is cut with the count', async () => {
        const long: HistoryMessage[] = [
            { role: 'user', blocks: [{ type: 'text', text: 'a'.repeat(30_000) }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'b'.repeat(30_000) }] },
            { role: 'user', blocks: [{ type: 'text', text: `${'c\n'.repeat(40_000)}end` }] }
        ];
        const longTool = createReadOriginalHistoryTool(() => long);
        const first = (await longTool.run({}, context('compressed'))).content;
        assert.equal(first, `#1 user: ${'a'.repeat(30_000)}\n[2 more; call again with start=2]`);
        const second = (await longTool.run({ start: 2 }, context('compressed'))).content;
        assert.ok(second.startsWith('#2 assistant: b') && second.endsWith('\n[1 more; call again with start=3]'));
        const third = (await longTool.run({ start: 3 }, context('compressed'))).content;
        const whole = `#3 user: ${'c\n'.repeat(40_000)}end`;
        const cut = whole.slice(MAX_HISTORY_PAGE_CHARS);
        assert.equal(third, `${whole.slice(0, MAX_HISTORY_PAGE_CHARS)}\n[… ${cut.length} characters (${cut.split('\n').length - 1} lines) cut here; `
            + `read_original_history shows at most ${MAX_HISTORY_PAGE_CHARS} characters of one message]`);
        assert.ok(third.length < MAX_HISTORY_PAGE_CHARS + 200);
    });
});
