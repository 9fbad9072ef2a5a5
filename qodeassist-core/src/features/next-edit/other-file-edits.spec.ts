import * as assert from 'node:assert/strict';
import { OtherFileEdit, otherFileEvents } from './other-file-edits';

const edit = (relativePath: string, ageMs: number, overrides: Partial<OtherFileEdit> = {}): OtherFileEdit => ({
    relativePath, previous: 'a\nold\nb', text: 'a\nnew\nb', startLine: 40, ageMs, ...overrides
});

describe('otherFileEvents', () => {
    it('is each file\'s diff, the most recently edited first, with the whole file\'s line numbers', () => {
        const events = otherFileEvents([edit('src/old.ts', 9_000), edit('src/new.ts', 1_000)], { maxFiles: 4, maxChars: 2000, maxAgeMs: 60_000, contextLines: 1 });
        assert.deepEqual(events, [
            { path: 'src/new.ts', diff: '--- a/src/new.ts\n+++ b/src/new.ts\n@@ -41,3 +41,3 @@\n a\n-old\n+new\n b\n' },
            { path: 'src/old.ts', diff: '--- a/src/old.ts\n+++ b/src/old.ts\n@@ -41,3 +41,3 @@\n a\n-old\n+new\n b\n' }
        ]);
    });

    it('leaves out edits older than the age bound, files beyond the count, unchanged files and a path seen already', () => {
        const options = { maxFiles: 2, maxChars: 2000, maxAgeMs: 60_000, contextLines: 0 };
        const events = otherFileEvents([
            edit('src/stale.ts', 61_000), edit('src/same.ts', 100, { text: 'a\nold\nb' }), edit('src/a.ts', 200), edit('src/a.ts', 300, { text: 'a\nOTHER\nb' }),
            edit('src/b.ts', 400), edit('src/c.ts', 500), edit('src/clock.ts', -5)
        ], options);
        assert.deepEqual(events.map(event => event.path), ['src/a.ts', 'src/b.ts']);
        assert.doesNotMatch(events[0].diff, /OTHER/, 'the newest edit of a file stands for it');
    });

    it('keeps within the characters of all files: a diff that no longer fits is left out, a smaller older one still comes', () => {
        const big = edit('src/big.ts', 100, { previous: Array.from({ length: 30 }, (_, i) => `row ${i}`).join('\n'), text: Array.from({ length: 30 }, (_, i) => `ROW ${i}`).join('\n') });
        const events = otherFileEvents([edit('src/first.ts', 50), big, edit('src/small.ts', 900)], { maxFiles: 4, maxChars: 150, maxAgeMs: 60_000, contextLines: 0 });
        assert.deepEqual(events.map(event => event.path), ['src/first.ts', 'src/small.ts']);
        assert.ok(events.reduce((sum, event) => sum + event.diff.length, 0) <= 150);
    });
});
