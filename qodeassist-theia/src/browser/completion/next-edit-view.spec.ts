import * as assert from 'node:assert/strict';
import { editDecorations, nextEditOn, offScreenHint, tabAction } from './next-edit-view';

describe('next edit view', () => {
    it('draws a replacement as struck text plus ghost text, a deletion as struck text only, line breaks as ↵', () => {
        assert.deepEqual(editDecorations([{ offset: 4, length: 1, text: 'width' }, { offset: 10, length: 3, text: '' }, { offset: 20, length: 0, text: 'a\nb' }]), [
            { start: 4, end: 5, added: 'width' }, { start: 10, end: 13 }, { start: 20, end: 20, added: 'a ↵ b' }
        ]);
    });

    const tabs: Array<[string, number, number[], ReturnType<typeof tabAction>]> = [
        ['applies with the cursor on an edited line', 20, [20], { kind: 'apply' }],
        ['jumps down to the first edit below the cursor', 3, [20, 30], { kind: 'jump', line: 20 }],
        ['jumps to the next edit below when one is above', 25, [20, 30], { kind: 'jump', line: 30 }],
        ['jumps up to the first edit when all are above', 40, [20, 30], { kind: 'jump', line: 20 }]
    ];
    for (const [name, cursor, lines, expected] of tabs) {
        it(`Tab ${name}`, () => assert.deepEqual(tabAction(cursor, lines), expected));
    }

    it('hints at an edit out of view, with its direction, and not at one in view', () => {
        assert.equal(offScreenHint(15, [{ start: 10, end: 30 }]), undefined);
        assert.equal(offScreenHint(80, [{ start: 10, end: 30 }]), '↓ Next edit at line 80 — Tab to jump, Esc to dismiss');
        assert.equal(offScreenHint(2, [{ start: 10, end: 30 }]), '↑ Next edit at line 2 — Tab to jump, Esc to dismiss');
    });

    it('is on per language: off when the feature is off or the language is turned off', () => {
        assert.equal(nextEditOn('typescript', { enabled: true, disabledLanguages: ['markdown'] }), true);
        assert.equal(nextEditOn('markdown', { enabled: true, disabledLanguages: ['markdown'] }), false);
        assert.equal(nextEditOn('typescript', { enabled: false, disabledLanguages: [] }), false);
    });
});
