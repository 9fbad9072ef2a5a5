import * as assert from 'node:assert/strict';
import { effectOfChange, SuggestionChain } from './next-edit-flow';

describe('SuggestionChain', () => {
    it('asks again after each applied suggestion, at most its bound of times without typing', () => {
        const chain = new SuggestionChain(3);
        assert.deepEqual([chain.applied(), chain.applied(), chain.applied(), chain.applied()], [true, true, true, false]);
        assert.equal(chain.length, 3);
    });

    it('Esc ends the chain; typing starts a new one', () => {
        const chain = new SuggestionChain(3);
        assert.equal(chain.applied(), true);
        chain.dismissed();
        assert.equal(chain.applied(), false, 'no chained ask after Esc');
        chain.typed();
        assert.deepEqual([chain.applied(), chain.length], [true, 1]);
    });
});

describe('effectOfChange', () => {
    it('our own apply keeps what is under way (the chained ask follows it)', () => {
        assert.deepEqual(effectOfChange({ own: true, reload: false }), { drop: false, cancel: false, ask: false });
    });

    it('a change by anything else — typing, a chat agent\'s write, a formatter — drops the suggestion, cancels the ask and asks again after the pause', () => {
        assert.deepEqual(effectOfChange({ own: false, reload: false }), { drop: true, cancel: true, ask: true });
    });

    it('a reload from disk drops the suggestion too, and brings no new ask: the user edited nothing', () => {
        assert.deepEqual(effectOfChange({ own: false, reload: true }), { drop: true, cancel: true, ask: false });
    });
});
