import * as assert from 'node:assert/strict';
import { CREDIT_CAP, RequestBudget, START_CREDIT } from './request-budget';

const DEBOUNCE = 300;

/** Edits at these times (ms). */
function edited(times: readonly number[]): RequestBudget {
    const budget = new RequestBudget();
    for (const t of times) {
        budget.edited(t, DEBOUNCE);
    }
    return budget;
}

describe('the request budget: no more requests than a debounce trigger would send', () => {
    it(`starts with ${START_CREDIT} request in hand: the first pause need not wait for the debounce`, () => {
        const budget = edited([0, 80, 160]);
        assert.equal(START_CREDIT, 1);
        assert.equal(budget.spend(200, DEBOUNCE), true);
        assert.equal(budget.allows(200, DEBOUNCE), false);
        assert.deepEqual(budget.figures(200, DEBOUNCE), { sent: 1, debounceWouldSend: 0, credit: 0 });
    });

    it('grows by one when the quiet time after an edit reaches the debounce, once per pause, and says when', () => {
        const budget = edited([0]);
        budget.spend(10, DEBOUNCE);
        assert.equal(budget.growsIn(10, DEBOUNCE), 290);
        assert.equal(budget.allows(299, DEBOUNCE), false);
        assert.equal(budget.allows(300, DEBOUNCE), true);
        assert.equal(budget.growsIn(300, DEBOUNCE), undefined, 'this pause counted already');
        assert.equal(budget.spend(5_000, DEBOUNCE), true);
        assert.equal(budget.allows(9_000, DEBOUNCE), false, 'a long pause is one pause');
        assert.deepEqual(budget.figures(9_000, DEBOUNCE), { sent: 2, debounceWouldSend: 1, credit: 0 });
    });

    it('edits closer than the debounce earn nothing: a burst of typing is no pause', () => {
        const budget = edited(Array.from({ length: 100 }, (_, index) => index * 299));
        budget.spend(100 * 299 - 1, DEBOUNCE);
        assert.deepEqual(budget.figures(100 * 299 - 1, DEBOUNCE), { sent: 1, debounceWouldSend: 0, credit: 0 });
        assert.equal(budget.spend(100 * 299 - 1, DEBOUNCE), false, 'refused, and nothing spent');
        assert.equal(budget.figures(100 * 299 - 1, DEBOUNCE).sent, 1);
    });

    it(`keeps at most ${CREDIT_CAP} unspent: pauses served from the cache do not bank requests for later without bound`, () => {
        const budget = edited(Array.from({ length: 20 }, (_, index) => index * 1_000));
        assert.deepEqual(budget.figures(20_000, DEBOUNCE), { sent: 0, debounceWouldSend: 20, credit: CREDIT_CAP });
        assert.equal(budget.spend(20_000, DEBOUNCE), true);
        assert.equal(budget.spend(20_000, DEBOUNCE), true);
        assert.equal(budget.spend(20_000, DEBOUNCE), false);
    });

    it('a request the backend answered from its cache or one under way is given back', () => {
        const budget = edited([0]);
        assert.equal(budget.spend(50, DEBOUNCE), true);
        budget.refund();
        assert.deepEqual(budget.figures(50, DEBOUNCE), { sent: 0, debounceWouldSend: 0, credit: 1 });
    });

    it('whatever the rhythm and whoever asks how often, requests never pass the debounce trigger\'s + the start credit', () => {
        // A typist with gaps of 50–650 ms, and a caller that asks at every edit and 1 ms later.
        const budget = new RequestBudget();
        let t = 0;
        let sent = 0;
        let pauses = 0;
        let last: number | undefined;
        for (let index = 0; index < 2_000; index++) {
            t += 50 + ((index * 7_919) % 601);
            if (last !== undefined && t - last >= DEBOUNCE) {
                pauses++;
            }
            last = t;
            budget.edited(t, DEBOUNCE);
            sent += Number(budget.spend(t, DEBOUNCE)) + Number(budget.spend(t + 1, DEBOUNCE));
            assert.ok(sent <= pauses + START_CREDIT, `after ${index + 1} edits: ${sent} requests, ${pauses} pauses`);
        }
        assert.ok(sent > pauses / 2, 'and it does spend what it earns');
    });
});
