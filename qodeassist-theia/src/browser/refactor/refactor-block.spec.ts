import * as assert from 'node:assert/strict';
import { blockAround, changedLines, cursorLine, proposedBlock } from './refactor-block';

/** `«` `»` mark the selection. */
function marked(file: string): { text: string; selection: { start: number; end: number } } {
    const start = file.indexOf('«');
    const end = file.indexOf('»') - 1;
    return { text: file.replace('«', '').replace('»', ''), selection: { start, end } };
}

describe('refactor block', () => {
    const cases: Array<{ name: string; file: string; replacement: string; original: string; proposed: string }> = [
        { name: 'whole lines', file: 'a\n«b\nc\n»d\n', replacement: 'B\nC\n', original: 'b\nc', proposed: 'B\nC' },
        { name: 'inside one line', file: 'let x = «f(1)»;\nnext\n', replacement: 'g(2)', original: 'let x = f(1);', proposed: 'let x = g(2);' },
        { name: 'from mid-line to mid-line', file: 'a = «1;\nb = 2»;\n', replacement: '3', original: 'a = 1;\nb = 2;', proposed: 'a = 3;' },
        { name: 'the last line without a line break', file: 'a\n«b»', replacement: 'B', original: 'b', proposed: 'B' },
        { name: 'whole lines deleted', file: 'a\n«b\n»c\n', replacement: '', original: 'b', proposed: '' }
    ];
    for (const entry of cases) {
        it(entry.name, () => {
            const { text, selection } = marked(entry.file);
            const block = blockAround(text, selection);
            assert.equal(text.slice(block.start, block.end), entry.original);
            assert.equal(proposedBlock(text, block, entry.replacement), entry.proposed);
        });
    }

    it('the cursor line is the selection when there is none', () => {
        assert.deepEqual(cursorLine('a\nbc\nd', 3), { start: 2, end: 5 });
        assert.deepEqual(cursorLine('a\nbc', 4), { start: 2, end: 4 });
    });

    it('marks removed original lines and added proposed lines', () => {
        assert.deepEqual(changedLines('a\nb\nc', 'a\nB\nc\nd'), { removed: [1], added: [1, 3] });
        assert.deepEqual(changedLines('same', 'same'), { removed: [], added: [] });
        assert.deepEqual(changedLines('', 'new'), { removed: [], added: [0] });
        assert.deepEqual(changedLines('x\ny', ''), { removed: [0, 1], added: [] });
    });
});
