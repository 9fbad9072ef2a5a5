import * as assert from 'node:assert/strict';
import { fenceFor, markedCode, refactorLayer, RefactorTarget, selectionIndent } from './refactor-prompt';

/** `«` `»` mark the selection and `|` the cursor in these files. */
function target(marked: string, filePath = 'src/app.ts', language = 'typescript'): RefactorTarget {
    const cursorMark = marked.indexOf('|');
    const plain = marked.replace('|', '');
    const start = plain.indexOf('«');
    const end = plain.indexOf('»') - 1;
    const text = plain.replace('«', '').replace('»', '');
    const cursor = cursorMark < 0 ? end : cursorMark - (cursorMark > start ? 1 : 0) - (cursorMark > end + 1 ? 1 : 0);
    return { filePath, language, text, selection: { start, end }, cursor };
}

const file = ['// 1', '// 2', '// 3', 'function f() {', '    «const a = 1;', '    return a;»', '}', '// 8', '// 9', '// 10'].join('\n') + '\n';

describe('refactor prompt', () => {
    const cases: Array<{ name: string; marked: string; linesAround: number; expected: string }> = [
        {
            name: 'markers bracket the selection; the cursor on an edge adds nothing',
            marked: file, linesAround: 1,
            expected: 'function f() {\n    <selection_start>const a = 1;\n    return a;<selection_end>\n}'
        },
        {
            name: 'the cursor inside the selection is marked',
            marked: file.replace('return a;', 'return |a;'), linesAround: 0,
            expected: '    <selection_start>const a = 1;\n    return <cursor>a;<selection_end>'
        },
        {
            name: 'lines around are counted in whole lines and stop at the file edges',
            marked: file, linesAround: 100,
            expected: file.replace('«', '<selection_start>').replace('»', '<selection_end>').replace(/\n$/, '')
        },
        {
            name: 'an empty selection (the cursor) is two markers together',
            marked: 'let x = «»1;\n', linesAround: 5,
            expected: 'let x = <selection_start><selection_end>1;'
        },
        {
            name: 'a whole-line selection ends at the next line start',
            marked: 'a\n«b\n»c\nd\n', linesAround: 1,
            expected: 'a\n<selection_start>b\n<selection_end>c'
        }
    ];
    for (const entry of cases) {
        it(entry.name, () => assert.equal(markedCode(target(entry.marked), entry.linesAround), entry.expected));
    }

    it('finds the base indentation: the least-indented selected line, or the first when the selection starts mid-line', () => {
        assert.deepEqual(selectionIndent(target('class A {\n    f() {\n«        go();\n    }\n»}\n')), { indent: '    ', startsMidLine: false });
        assert.deepEqual(selectionIndent(target('\tx := «f(1)»\n')), { indent: '\t', startsMidLine: true });
        assert.deepEqual(selectionIndent(target('«top()\n»')), { indent: '', startsMidLine: false });
    });

    it('writes file facts, indentation, open files, the marked code in a fence that cannot close early, and the rules', () => {
        const layer = refactorLayer(target('const s = «"```"»;\n', 'docs/fence.ts'), {
            linesAround: 10, indent: { insertSpaces: false, tabSize: 4 }, openFiles: [{ path: 'src/util.ts', content: 'export const one = 1;' }]
        });
        assert.match(layer, /^You rewrite the selected code/);
        assert.match(layer, /Active file: docs\/fence\.ts \(typescript\)/);
        assert.match(layer, /Indentation: tabs\./);
        assert.match(layer, /Open file src\/util\.ts:\n```\nexport const one = 1;\n```/);
        assert.match(layer, /````typescript\nconst s = <selection_start>"```"<selection_end>;\n````/);
        assert.match(layer, /in one fenced code block, and nothing else/);
        assert.match(layer, /The selection starts inside a line/);
        assert.doesNotMatch(layer, /<cursor> marks the cursor/);
    });

    it('a fence is longer than any backtick run in the text', () => {
        assert.equal(fenceFor('plain'), '```');
        assert.equal(fenceFor('a ```` b'), '`````');
    });
});
