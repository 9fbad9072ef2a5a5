import * as assert from 'node:assert/strict';
import { costOf, pricingFor } from './pricing';

const round = (amount: number) => Number(amount.toFixed(10));

describe('pricing: the cost of a request', () => {
    const priced = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, currency: 'EUR' };
    const cases: Array<{ name: string; tokens: { inputTokens: number; outputTokens: number; cachedTokens?: number }; pricing: Parameters<typeof costOf>[1]; amount: number; currency: string }> = [
        { name: 'input and output, per million tokens', tokens: { inputTokens: 1_000_000, outputTokens: 1_000_000 }, pricing: { input_per_mtok: 3, output_per_mtok: 15 }, amount: 18, currency: 'USD' },
        { name: 'cached input (part of the input) at its own price', tokens: { inputTokens: 10_000, outputTokens: 500, cachedTokens: 8_000 }, pricing: priced, amount: round((2_000 * 3 + 8_000 * 0.3 + 500 * 15) / 1e6), currency: 'EUR' },
        { name: 'cached input at the input price when no cached price is set', tokens: { inputTokens: 10_000, outputTokens: 0, cachedTokens: 8_000 }, pricing: { input_per_mtok: 2, output_per_mtok: 8 }, amount: 0.02, currency: 'USD' },
        { name: 'more cached than input reported counts no more than the input', tokens: { inputTokens: 100, outputTokens: 0, cachedTokens: 500 }, pricing: priced, amount: round(100 * 0.3 / 1e6), currency: 'EUR' },
        { name: 'a free model costs 0, which is a figure', tokens: { inputTokens: 5_000, outputTokens: 5_000 }, pricing: { input_per_mtok: 0, output_per_mtok: 0 }, amount: 0, currency: 'USD' }
    ];
    for (const { name, tokens, pricing, amount, currency } of cases) {
        it(name, () => {
            const cost = costOf(tokens, pricing);
            assert.deepEqual({ amount: round(cost.amount), currency: cost.currency }, { amount, currency });
        });
    }

    it('the agent\'s entry for a model wins over its provider\'s; another model\'s price is never used', () => {
        const agent = { 'gpt-4.1': { input_per_mtok: 1, output_per_mtok: 1 } };
        const provider = { 'gpt-4.1': { input_per_mtok: 2, output_per_mtok: 8 }, 'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6 } };
        assert.deepEqual(pricingFor('gpt-4.1', agent, provider), { input_per_mtok: 1, output_per_mtok: 1 });
        assert.deepEqual(pricingFor('gpt-4.1-mini', agent, provider), { input_per_mtok: 0.4, output_per_mtok: 1.6 });
        assert.equal(pricingFor('gpt-5', agent, provider), undefined);
        assert.equal(pricingFor('toString', undefined, {}), undefined);
    });
});
