import * as assert from 'node:assert/strict';
import { ByteTail } from './byte-tail';

describe('ByteTail', () => {
    it('keeps everything under the bound and says nothing was left out', () => {
        const tail = new ByteTail(10);
        tail.push(Buffer.from('abc'));
        tail.push(Buffer.from('def'));
        assert.equal(tail.text(), 'abcdef');
        assert.equal(tail.truncated, false);
    });

    it('keeps only the last bytes of a long stream, in bounded memory, and says so', () => {
        const tail = new ByteTail(8);
        for (let index = 0; index < 1_000; index++) {
            tail.push(Buffer.from(`line ${index}\n`));
        }
        assert.equal(tail.text(), 'ine 999\n');
        assert.equal(tail.truncated, true);
        assert.ok((tail as unknown as { length: number }).length < 64, 'old chunks are dropped as they pass');
    });

    it('starts on a whole character when the cut falls inside a UTF-8 sequence', () => {
        const tail = new ByteTail(5);
        tail.push(Buffer.from('aaaaéé'));
        // 'éé' is 4 bytes; the last 5 bytes start with the last 'a'.
        assert.equal(tail.text(), 'aéé');
        const cut = new ByteTail(3);
        cut.push(Buffer.from('€€'));
        // The last 3 bytes are one whole '€'.
        assert.equal(cut.text(), '€');
        const inside = new ByteTail(4);
        inside.push(Buffer.from('x€€'));
        assert.equal(inside.text(), '€', 'the partial sequence before it is skipped');
    });
});
