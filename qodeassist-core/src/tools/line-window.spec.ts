import * as assert from 'node:assert/strict';
import { PastTheEnd, readTextLineWindow } from './line-window';

/** The same lines `text.split('\n')` gives, read a 64 KB chunk at a time: lines that cross chunk boundaries, empty lines, a final line break. */
describe('readLineWindow', () => {
    // Deterministic lengths: short lines, empty ones, and some longer than a chunk.
    const lengths = Array.from({ length: 400 }, (_, i) => (i * 7919) % 13 === 0 ? 70_000 + i : (i * 104_729) % 5 === 0 ? 0 : (i * 31) % 97);
    const lines = lengths.map((length, i) => String.fromCharCode(97 + (i % 26)).repeat(length));
    const request = { maxLines: 1_000, maxBytes: 10_000_000, countLines: true };

    for (const text of [lines.join('\n'), `${lines.join('\n')}\n`]) {
        const expected = text.split('\n');
        for (const [start, end] of [[1, undefined], [1, 1], [2, 50], [37, 38], [120, 399], [expected.length, undefined], [expected.length - 3, expected.length + 5]] as const) {
            it(`lines ${start}–${end ?? 'end'} of ${expected.length}${text.endsWith('\n') ? ' (final line break)' : ''} are exactly split's`, async () => {
                const page = await readTextLineWindow(text, { ...request, start, end });
                const last = Math.min(end ?? Infinity, expected.length);
                assert.equal(page.text, expected.slice(start - 1, last).join('\n'));
                assert.deepEqual([page.end, page.total, page.more], [last, expected.length, last < expected.length]);
            });
        }
    }

    it('without counting, it stops at the window and does not know the total', async () => {
        const page = await readTextLineWindow('a\nb\nc\nd', { ...request, start: 2, end: 3, countLines: false });
        assert.deepEqual(page, { text: 'b\nc', start: 2, end: 3, more: true });
    });

    it('a start past the end says how many lines there are', async () => {
        await assert.rejects(readTextLineWindow('a\nb', { ...request, start: 4 }), (error: unknown) => error instanceof PastTheEnd && error.lines === 2);
    });

    it('an empty text is one empty line', async () => {
        assert.deepEqual(await readTextLineWindow('', { ...request, start: 1 }), { text: '', start: 1, end: 1, total: 1, more: false });
    });
});
