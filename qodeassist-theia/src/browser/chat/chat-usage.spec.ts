import * as assert from 'node:assert/strict';
import { chatCosts, formatAmount, formatCost, requestLines, sumUsage, usageLine } from './chat-usage';

const LOCALE = 'en-US';

describe('chat usage: what a turn used and cost', () => {
    const rounds = [
        { inputTokens: 1_000, outputTokens: 50, cachedTokens: 0, cost: { amount: 0.00375, currency: 'USD' } },
        { inputTokens: 1_200, outputTokens: 40, cachedTokens: 1_000, cost: { amount: 0.0015, currency: 'USD' } },
        { inputTokens: 1_400, outputTokens: 100, cachedTokens: 1_200, reasoningTokens: 30, cost: { amount: 0.00246, currency: 'USD' } }
    ];

    it('sums every request of a tool loop: tokens, cached tokens and cost', () => {
        const sum = sumUsage(rounds);
        assert.deepEqual({ ...sum, cost: { ...sum.cost!, amounts: sum.cost!.amounts.map(cost => ({ ...cost, amount: Number(cost.amount.toFixed(8)) })) } }, {
            requests: 3, inputTokens: 3_600, outputTokens: 190, cachedTokens: 2_200, reasoningTokens: 30,
            cost: { amounts: [{ currency: 'USD', amount: 0.00771 }], unpriced: 0 }
        });
        assert.equal(usageLine(sum, LOCALE), '3 requests · 3600 in · 2200 cached · 190 out · 30 reasoning · $0.0077');
    });

    it('one request without a price: its tokens, and no figure', () => {
        const sum = sumUsage([{ inputTokens: 5, outputTokens: 2 }]);
        assert.equal(sum.cost, undefined);
        assert.equal(usageLine(sum, LOCALE), '5 in · 2 out');
        assert.deepEqual(requestLines([{ inputTokens: 5, outputTokens: 2 }]), [], 'one request needs no breakdown');
    });

    it('the tooltip keeps each request of the turn', () => {
        assert.deepEqual(requestLines(rounds, LOCALE), [
            'Request 1: 1000 in · 50 out · $0.0038',
            'Request 2: 1200 in · 1000 cached · 40 out · $0.0015',
            'Request 3: 1400 in · 1200 cached · 100 out · 30 reasoning · $0.0025'
        ]);
    });

    it('formats amounts for reading: four decimals under one unit, "<" for what rounds to nothing, each currency apart, and unpriced requests counted', () => {
        assert.equal(formatAmount({ amount: 12.3456, currency: 'USD' }, LOCALE), '$12.35');
        assert.equal(formatAmount({ amount: 0, currency: 'EUR' }, LOCALE), '€0.00');
        assert.equal(formatAmount({ amount: 0.00001, currency: 'USD' }, LOCALE), '< $0.0001');
        assert.equal(formatCost({ amounts: [{ currency: 'USD', amount: 0.5 }, { currency: 'EUR', amount: 2 }], unpriced: 2 }, LOCALE),
            '$0.50 + €2.00 (2 requests without a price)');
    });

    it('the popover\'s figures: the last turn and the whole chat; none when nothing had a price, and a hint instead', () => {
        const answer = (requests: Parameters<typeof sumUsage>[0]) => ({ role: 'assistant', requests });
        const costs = chatCosts([{ role: 'user' }, answer(rounds), { role: 'user' }, answer([{ inputTokens: 1, outputTokens: 1, cost: { amount: 0.01, currency: 'USD' } }])]);
        assert.deepEqual(costs.turn, { amounts: [{ currency: 'USD', amount: 0.01 }], unpriced: 0 });
        assert.equal(Number(costs.chat!.amounts[0].amount.toFixed(8)), 0.01771);
        assert.equal(costs.unpriced, false);
        assert.deepEqual(chatCosts([{ role: 'user' }, answer([{ inputTokens: 1, outputTokens: 1 }])]), { unpriced: true });
        assert.deepEqual(chatCosts([{ role: 'user' }]), { unpriced: false }, 'nothing asked yet: nothing to say');
    });
});
