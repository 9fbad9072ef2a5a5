import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { applyEdits, smallestEdits } from './smallest-edits';

describe('smallestEdits', () => {
    const cases: Array<{ name: string; before: string; after: string; expect: Array<{ offset: number; length: number; text: string }> }> = [
        { name: 'none for equal texts', before: 'a\nb\n', after: 'a\nb\n', expect: [] },
        {
            name: 'a renamed identifier is one word-sized edit per use, not a rewritten line',
            before: 'return a + b;\nlog(a);\n', after: 'return left + b;\nlog(left);\n',
            expect: [{ offset: 7, length: 1, text: 'left' }, { offset: 18, length: 1, text: 'left' }]
        },
        { name: 'an added line is one insertion', before: 'a\nc\n', after: 'a\nb\nc\n', expect: [{ offset: 2, length: 0, text: 'b\n' }] },
        { name: 'a removed line is one deletion', before: 'a\nb\nc\n', after: 'a\nc\n', expect: [{ offset: 2, length: 2, text: '' }] },
        { name: 'an edit far below the first change is its own edit at its place', before: 'x = 1\n\n\n\nfoo(x)\n', after: 'y = 1\n\n\n\nfoo(y)\n', expect: [{ offset: 0, length: 1, text: 'y' }, { offset: 13, length: 1, text: 'y' }] }
    ];
    for (const { name, before, after, expect } of cases) {
        it(name, () => {
            const edits = smallestEdits(before, after);
            assert.deepEqual(edits, expect);
            assert.equal(applyEdits(before, edits), after);
        });
    }

    it('applied to the old text, always gives the new one', () => {
        const text = fc.array(fc.constantFrom('a', 'b', ' ', '\n', 'foo', '(', ')'), { maxLength: 30 }).map(parts => parts.join(''));
        fc.assert(fc.property(text, text, (before, after) => applyEdits(before, smallestEdits(before, after)) === after), { numRuns: 300 });
    });
});
