import * as assert from 'node:assert/strict';
import { HeldRecord } from './held-record';
import { raiseLimitAdvice } from './request-limits';
import { QodeAssistError } from './error-info';

const bytes = (count: number) => new Uint8Array(count).fill(0x61);
const overLimit = (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Provider' && /max_record_bytes/.test(error.message);

describe('HeldRecord', () => {
    it('holds chunks up to the record limit and ends the stream with the limit\'s error at the chunk that crosses it', () => {
        const held = new HeldRecord(10, raiseLimitAdvice);
        held.hold(bytes(6));
        held.hold(bytes(4));
        assert.equal(held.length, 10, 'exactly the limit is still a record');
        assert.throws(() => held.hold(bytes(1)), overLimit);
    });

    it('lets a held record end within the limit, and refuses one that ends past it, looking for its exact end only when the last end is past it', () => {
        const held = new HeldRecord(10, raiseLimitAdvice);
        held.hold(bytes(6));
        let looked = 0;
        held.checkEnd(4, () => ++looked);
        assert.equal(looked, 0, 'the last end is within the limit: the first end is not looked for');
        held.checkEnd(9, () => (looked++, 4));
        assert.equal(looked, 1, 'the record itself ends within the limit, a later one does not count');
        assert.throws(() => held.checkEnd(9, () => 5), overLimit);
        assert.doesNotThrow(() => new HeldRecord(10, raiseLimitAdvice).checkEnd(50, () => 50), 'nothing held: the reader judges the new record itself');
    });
});
