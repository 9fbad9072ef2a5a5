import * as assert from 'node:assert/strict';
import { changedExcerpt, NextEditHistory } from './next-edit-history';

const numbered = (count: number, changes: Record<number, string> = {}) => Array.from({ length: count }, (_, i) => changes[i] ?? `line ${i}`).join('\n');
const options = { idleMs: 60_000, maxOtherFiles: 2, maxAgeMs: 300_000, contextLines: 1, maxExcerptChars: 200 };

describe('NextEditHistory', () => {
    it('keeps the text before a file\'s recent edits, and starts again after a pause longer than the idle time', () => {
        const history = new NextEditHistory(options);
        history.opened('a', '/w/a.ts', 'v0');
        history.changed('a', 'v1', 0, 1_000);
        history.changed('a', 'v2', 0, 2_000);
        assert.equal(history.baseline('a'), 'v0');
        history.changed('a', 'v3', 0, 2_000 + 60_001);
        assert.equal(history.baseline('a'), 'v2', 'the edits before the pause are the baseline now');
    });

    it('a reload (from disk, a revert) is no edit: the recent edits start again from it and it is not another file\'s edit', () => {
        const history = new NextEditHistory(options);
        history.opened('a', '/w/a.ts', 'v0');
        history.opened('b', '/w/b.ts', numbered(5));
        history.changed('a', 'v1', 0, 1_000);
        history.changed('a', 'disk', 0, 2_000, true);
        assert.equal(history.baseline('a'), 'disk');
        assert.deepEqual(history.otherEdits('b', 3_000), []);
    });

    it('gives the other files\' changed lines, the most recent first, within count and age; never the requesting file', () => {
        const history = new NextEditHistory(options);
        for (const name of ['a', 'b', 'c', 'old', 'here']) {
            history.opened(name, `/w/${name}.ts`, numbered(20));
        }
        history.changed('old', numbered(20, { 3: 'old edit' }), 3, 1_000);
        history.changed('a', numbered(20, { 10: 'edit a' }), 10, 400_000);
        history.changed('b', numbered(20, { 5: 'edit b' }), 5, 401_000);
        history.changed('c', numbered(20, { 7: 'edit c' }), 7, 402_000);
        history.changed('here', numbered(20, { 1: 'edit here' }), 1, 403_000);
        assert.deepEqual(history.otherEdits('here', 403_000), [
            { path: '/w/c.ts', previous: 'line 6\nline 7\nline 8', text: 'line 6\nedit c\nline 8', startLine: 6, line: 7, ageMs: 1_000 },
            { path: '/w/b.ts', previous: 'line 4\nline 5\nline 6', text: 'line 4\nedit b\nline 6', startLine: 4, line: 5, ageMs: 2_000 }
        ]);
    });

    it('leaves out another file whose changed lines exceed the excerpt bound', () => {
        const history = new NextEditHistory(options);
        history.opened('big', '/w/big.ts', numbered(100));
        history.changed('big', numbered(100, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [i, `edited ${i}`]))), 0, 1_000);
        assert.deepEqual(history.otherEdits('here', 1_000), []);
    });
});

describe('changedExcerpt', () => {
    const cases: Array<[string, string, string, number, ReturnType<typeof changedExcerpt>]> = [
        ['none for equal texts', 'a\nb', 'a\nb', 1, undefined],
        ['from the first to the last changed line, with context', 'a\nb\nc\nd\ne\nf', 'a\nb\nC\nd\nE\nf', 1, { previous: 'b\nc\nd\ne\nf', text: 'b\nC\nd\nE\nf', startLine: 1 }],
        ['an added line at the end', 'a\nb', 'a\nb\nc', 1, { previous: 'b', text: 'b\nc', startLine: 1 }],
        ['a removed line at the start', 'a\nb\nc', 'b\nc', 0, { previous: 'a', text: '', startLine: 0 }]
    ];
    for (const [name, previous, text, context, expected] of cases) {
        it(name, () => assert.deepEqual(changedExcerpt(previous, text, context), expected));
    }
});
