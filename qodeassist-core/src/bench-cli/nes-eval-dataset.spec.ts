import * as assert from 'node:assert/strict';
import { casesFromVersions, parseNesDataset } from './nes-eval-dataset';

const OLD = ['function area(w, h) {', '    // w times h', '    return w * h;', '}', '', 'const a = area(1, 2);', 'const b = area(3, 4);', ''].join('\n');
const NEW = ['function area(width, h) {', '    // w times h', '    return width * h;', '}', '', 'const a = area(1, 2);', 'const b = area(3, 5);', ''].join('\n');

describe('nes-eval dataset', () => {
    it('cuts neighbouring hunks of two versions into cases: the edit made, then the next edit, each state a real intermediate file', () => {
        const cases = casesFromVersions('src/area.js', OLD, NEW, 'area');
        assert.deepEqual(cases.map(testCase => testCase.id), ['area#1', 'area#2']);
        const [first, second] = cases;
        assert.equal(first.previous, OLD);
        assert.equal(first.text, OLD.replace('area(w, h)', 'area(width, h)'));
        assert.equal(first.expected, first.text.replace('return w * h', 'return width * h'));
        assert.equal(first.text.slice(0, first.cursor), 'function area(width, h) {', 'the cursor is where the edit ended');
        assert.equal(second.previous, first.text);
        assert.equal(second.expected, NEW, 'replaying every hunk gives the new version');
        assert.equal(first.language, 'javascript');
    });

    it('leaves out next edits too far from the edit before them', () => {
        const far = `${'x\n'.repeat(40)}`;
        const before = `a = 1\n${far}b = 1\n`;
        const after = `a = 2\n${far}b = 2\n`;
        assert.deepEqual(casesFromVersions('f.py', before, after, 'f', { maxDistanceLines: 15, maxHunkLines: 8 }), []);
        assert.equal(casesFromVersions('f.py', before, after, 'f', { maxDistanceLines: 50, maxHunkLines: 8 }).length, 1);
    });

    it('reads valid lines and reports bad ones with their line and field', () => {
        const good = JSON.stringify({ id: 'a', path: 'src/a.ts', previous: 'x', text: 'y', cursor: 1, expected: 'z' });
        const { cases, issues } = parseNesDataset([good, '{not json', JSON.stringify({ id: 'b', path: '../etc/passwd', previous: '', text: '', cursor: 0, expected: '' }),
            JSON.stringify({ id: 'c', path: 'c.ts', previous: '', text: 'ab', cursor: 5, expected: '' })].join('\n'), 'set.jsonl');
        assert.deepEqual(cases.map(testCase => [testCase.id, testCase.language, testCase.line]), [['a', 'typescript', 1]]);
        assert.deepEqual(issues.map(issue => [issue.line, issue.field ?? '']), [[2, ''], [3, 'path'], [4, 'cursor']]);
    });
});
