import * as assert from 'node:assert/strict';
import { createTwoFilesPatch } from 'diff';
import { editDiff, proposedEdit } from './file-edit-diff';

const patch = (before: string, after: string) => createTwoFilesPatch('a/x.ts', 'b/x.ts', before, after, undefined, undefined, { context: 3 });

describe('editDiff', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 10', 'line ten');

    it('rebuilds the whole old text from the new text and the chat\'s unified diff', () => {
        assert.deepEqual(editDiff({ path: 'x.ts', absolutePath: '/w/x.ts', diff: patch(before, after), created: false }, after),
            { type: 'diff', path: '/w/x.ts', oldText: before, newText: after });
    });

    it('a new file has no old text', () => {
        assert.deepEqual(editDiff({ path: 'x.ts', absolutePath: '/w/x.ts', diff: patch('', 'hi\n'), created: true }, 'hi\n'),
            { type: 'diff', path: '/w/x.ts', oldText: null, newText: 'hi\n' });
    });

    it('a text the diff does not fit (the file changed meanwhile) gives no diff', () => {
        assert.equal(editDiff({ path: 'x.ts', absolutePath: '/w/x.ts', diff: patch(before, after), created: false }, 'something else\n'), undefined);
    });
});

describe('proposedEdit', () => {
    it('create_file shows its content over what is there', () => {
        assert.deepEqual(proposedEdit('create_file', { path: 'a', content: 'new' }, undefined), { oldText: null, newText: 'new' });
    });

    it('edit_file replaces the first occurrence, or all with replace_all', () => {
        assert.deepEqual(proposedEdit('edit_file', { path: 'a', old_text: 'x', new_text: '$&y' }, 'x x'), { oldText: 'x x', newText: '$&y x' });
        assert.deepEqual(proposedEdit('edit_file', { path: 'a', old_text: 'x', new_text: 'y', replace_all: true }, 'x x'), { oldText: 'x x', newText: 'y y' });
    });

    it('an edit whose old text is not there, or another tool, has no preview', () => {
        assert.equal(proposedEdit('edit_file', { path: 'a', old_text: 'z', new_text: 'y' }, 'x'), undefined);
        assert.equal(proposedEdit('execute_terminal_command', { command: 'ls' }, undefined), undefined);
    });
});
