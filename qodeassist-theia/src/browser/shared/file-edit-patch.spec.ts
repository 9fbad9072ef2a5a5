import * as assert from 'node:assert/strict';
import { createTwoFilesPatch } from 'diff';
import { FileEditConflict, minimalChange, patchContent } from './file-edit-patch';

const recordOf = (before: string | undefined, after: string) => ({
    path: 'a.ts', absolutePath: '/w/a.ts', created: before === undefined,
    diff: createTwoFilesPatch(before === undefined ? '/dev/null' : 'a/a.ts', 'b/a.ts', before ?? '', after, undefined, undefined, { context: 3 }).replace(/^=+\n/, '')
});

describe('file edit patches', () => {
    const changes: Array<[string, string, string, { start: number; end: number; text: string }]> = [
        ['a word in the middle', 'let a = 1;', 'let b = 1;', { start: 4, end: 5, text: 'b' }],
        ['an insertion', 'ab', 'aXb', { start: 1, end: 1, text: 'X' }],
        ['a deletion', 'aXb', 'ab', { start: 1, end: 2, text: '' }],
        ['nothing', 'same', 'same', { start: 4, end: 4, text: '' }],
        ['a repeated character', 'aaa', 'aaaa', { start: 3, end: 3, text: 'a' }]
    ];
    for (const [what, before, after, expected] of changes) {
        it(`finds the smallest change: ${what}`, () => {
            const change = minimalChange(before, after);
            assert.deepEqual(change, expected);
            assert.equal(before.slice(0, change.start) + change.text + before.slice(change.end), after);
        });
    }

    const before = 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n';
    const after = before.replace('line 2', 'LINE TWO');
    const record = recordOf(before, after);

    it('undoes and reapplies an edit, keeping later changes elsewhere in the file', () => {
        assert.equal(patchContent(after, record, 'undo'), before);
        const laterElsewhere = after.replace('line 9', 'line nine');
        assert.equal(patchContent(laterElsewhere, record, 'undo'), before.replace('line 9', 'line nine'));
        assert.equal(patchContent(before, record, 'reapply'), after);
    });

    it('refuses to undo when the edited lines changed since, naming the file', () => {
        assert.throws(() => patchContent(after.replace('LINE TWO', 'line 2 again'), record, 'undo'),
            (error: unknown) => error instanceof FileEditConflict && /^a\.ts changed since this edit, in the lines it touched; nothing was changed\. Undo it by hand/.test(error.message));
    });

    it('a created file undoes to empty content', () => {
        const created = recordOf(undefined, 'new file\n');
        assert.equal(patchContent('new file\n', created, 'undo'), '');
        assert.equal(patchContent('', created, 'reapply'), 'new file\n');
    });
});
