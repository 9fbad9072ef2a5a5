import * as assert from 'node:assert/strict';
import { HistoryMessage } from './conversation-history';
import { chatCostOf, sumCosts } from './usage-totals';

const answer = (cost?: { amount: number; currency: string }): HistoryMessage => ({
    role: 'assistant', blocks: [{ type: 'text', text: 'ok' }], usage: { inputTokens: 10, outputTokens: 5, ...(cost ? { cost } : {}) }
});

describe('usage totals: what a turn or a chat cost', () => {
    it('sums each currency apart and counts the requests that had no price', () => {
        assert.deepEqual(sumCosts([
            { inputTokens: 1, outputTokens: 1, cost: { amount: 0.25, currency: 'USD' } },
            { inputTokens: 1, outputTokens: 1 },
            { inputTokens: 1, outputTokens: 1, cost: { amount: 1, currency: 'EUR' } },
            { inputTokens: 1, outputTokens: 1, cost: { amount: 0.5, currency: 'USD' } }
        ]), { amounts: [{ currency: 'USD', amount: 0.75 }, { currency: 'EUR', amount: 1 }], unpriced: 1 });
    });

    it('no request with a price: no figure at all, not zero', () => {
        assert.equal(sumCosts([{ inputTokens: 100, outputTokens: 10 }]), undefined);
        assert.equal(sumCosts([]), undefined);
    });

    it('a chat\'s cost is every recorded request, tool rounds included; user messages carry none', () => {
        const history: HistoryMessage[] = [
            { role: 'user', blocks: [{ type: 'text', text: 'go' }] },
            answer({ amount: 0.002, currency: 'USD' }),
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'c', name: 'read_file', content: 'x', isError: false }] },
            answer({ amount: 0.003, currency: 'USD' }),
            { role: 'user', blocks: [{ type: 'text', text: 'and?' }] },
            answer()
        ];
        assert.deepEqual(chatCostOf(history), { amounts: [{ currency: 'USD', amount: 0.005 }], unpriced: 1 });
        assert.equal(chatCostOf(history.slice(-1)), undefined);
    });
});
