import * as assert from 'node:assert/strict';
import { editEvents } from './edit-events';

describe('editEvents', () => {
    it('is empty when nothing changed', () => {
        assert.equal(editEvents('a.ts', 'x\n', 'x\n', 0), '');
    });

    it('is the unified diff of the recent edit with its context lines', () => {
        const previous = 'function add(a, b) {\n    return a + b;\n}\n';
        const text = 'function add(left, b) {\n    return a + b;\n}\n';
        assert.equal(editEvents('src/add.ts', previous, text, 0, { maxChars: 1000, contextLines: 1 }),
            '--- a/src/add.ts\n+++ b/src/add.ts\n@@ -1,2 +1,2 @@\n-function add(a, b) {\n+function add(left, b) {\n     return a + b;\n');
    });

    it('over budget, keeps the hunks nearest the cursor and drops the far ones', () => {
        const previous = Array.from({ length: 60 }, (_, index) => `row ${index}`).join('\n');
        const text = previous.replace('row 2\n', 'ROW 2\n').replace('row 50\n', 'ROW 50\n');
        const near50 = editEvents('f.txt', previous, text, 49, { maxChars: 60, contextLines: 0 });
        assert.match(near50, /\+ROW 50/);
        assert.doesNotMatch(near50, /ROW 2\b/);
        const near2 = editEvents('f.txt', previous, text, 3, { maxChars: 60, contextLines: 0 });
        assert.match(near2, /\+ROW 2\b/);
        assert.doesNotMatch(near2, /ROW 50/);
        const both = editEvents('f.txt', previous, text, 3, { maxChars: 1000, contextLines: 0 });
        assert.ok(both.indexOf('ROW 2') < both.indexOf('ROW 50'), 'hunks stay in file order');
    });

    it('is empty when even the nearest hunk does not fit', () => {
        assert.equal(editEvents('f.txt', 'a\n', 'b\n', 0, { maxChars: 5, contextLines: 0 }), '');
    });
});
