import * as assert from 'node:assert/strict';
import { HistoryMessage, isUserTurn, sendableHistory } from './conversation-history';

describe('sendableHistory', () => {
    it('sends an unfinished answer\'s text only, and leaves out one with no text', () => {
        const history: HistoryMessage[] = [
            { role: 'user', blocks: [{ type: 'text', text: 'a' }] },
            { role: 'assistant', blocks: [{ type: 'thinking', text: 'half' }, { type: 'tool_use', id: 't', name: 'x', input: {} }, { type: 'text', text: 'partial' }], interrupted: true },
            { role: 'user', blocks: [{ type: 'text', text: 'b' }] },
            { role: 'assistant', blocks: [{ type: 'thinking', text: 'only thinking' }], interrupted: true },
            { role: 'user', blocks: [{ type: 'text', text: 'c' }] },
            { role: 'assistant', blocks: [], ended: { reason: 'failed', error: { category: 'Network', message: 'down' } } },
            { role: 'user', blocks: [{ type: 'text', text: 'd' }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'stopped here' }, { type: 'tool_use', id: 'u', name: 'y', input: {} }], ended: { reason: 'cancelled' } }
        ];
        assert.deepEqual(sendableHistory(history), [
            { role: 'user', blocks: [{ type: 'text', text: 'a' }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'partial' }] },
            { role: 'user', blocks: [{ type: 'text', text: 'b' }] },
            { role: 'user', blocks: [{ type: 'text', text: 'c' }] },
            { role: 'user', blocks: [{ type: 'text', text: 'd' }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'stopped here' }] }
        ]);
    });

    it('returns a history of finished messages as it is', () => {
        const history: HistoryMessage[] = [{ role: 'user', blocks: [{ type: 'text', text: 'a' }] }, { role: 'assistant', blocks: [{ type: 'text', text: 'b' }] }];
        assert.equal(sendableHistory(history), history);
    });
});

describe('isUserTurn', () => {
    it('tells a message the user wrote from a tool round\'s results', () => {
        assert.equal(isUserTurn({ role: 'user', blocks: [{ type: 'text', text: 'a' }] }), true);
        assert.equal(isUserTurn({ role: 'user', blocks: [{ type: 'tool_result', toolUseId: 't', name: 'x', content: '', isError: false }] }), false);
        assert.equal(isUserTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'a' }] }), false);
    });
});
