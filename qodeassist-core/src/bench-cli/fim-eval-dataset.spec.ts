import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { FimDatasetError, isContainedPath, loadFimDataset, parseFimDataset } from './fim-eval-dataset';

const valid = { id: 'sum-1', path: 'src/sum.ts', prefix: 'export const sum = (a: number, b: number) => ', suffix: '\n', expected: 'a + b;' };
const line = (value: object) => JSON.stringify(value);

describe('fim-eval dataset', () => {
    it('reads one case per line: the language from the path when not given, the line number kept; blank lines, CRLF and a BOM are fine', () => {
        const text = `\uFEFF${line(valid)}\r\n\r\n${line({ ...valid, id: 'py', path: 'a/b.py', language: 'python', tests: { command: ['python3', '-m', 'pytest'] } })}\n`;
        const dataset = parseFimDataset('cases.jsonl', text);
        assert.deepEqual(dataset.issues, []);
        assert.deepEqual(dataset.cases.map(entry => [entry.id, entry.language, entry.line]), [['sum-1', 'typescript', 1], ['py', 'python', 3]]);
        assert.deepEqual(dataset.cases[1].tests, { command: ['python3', '-m', 'pytest'] });
    });

    it('a bad line is reported with file, line, what is wrong and the fix, and the other lines are kept', () => {
        const text = [
            line(valid),
            '{"id": "broken", ',
            line({ ...valid, id: 'no-expected', expected: undefined }),
            line({ ...valid, id: 'typo', expcted: 'x' }),
            line({ ...valid, id: 'escape', path: '../outside.ts' }),
            line({ ...valid, id: 'no-command', tests: { command: [] } }),
            line(valid),
            line({ ...valid, id: 'twice', tests: { command: ['node', 't.js'], files: { 'src/sum.ts': '' } } }),
            line({ ...valid, id: 'repo', repo_files: [{ path: 'lib/a.ts', content: 'x', size: 1 }] }),
            line({ ...valid, id: 'last' })
        ].join('\n');
        const dataset = parseFimDataset('/data/cases.jsonl', text);
        assert.deepEqual(dataset.cases.map(entry => entry.id), ['sum-1', 'last']);
        const issues = dataset.issues.map(issue => [issue.line, issue.field, issue.message, issue.fix]);
        assert.equal(issues.length, 8);
        assert.equal(issues[0][0], 2);
        assert.match(String(issues[0][2]), /^not valid JSON \(/);
        assert.equal(issues[0][3], 'write each case as one JSON object on one line (JSONL)');
        assert.deepEqual(issues[1], [3, 'expected', 'missing required key "expected"', 'add "expected" (string)']);
        assert.deepEqual(issues[2], [4, undefined, 'unknown key "expcted"', 'did you mean "expected"?']);
        assert.equal(issues[3][0], 5);
        assert.equal(issues[3][1], 'path');
        assert.match(String(issues[3][2]), /relative path inside the workspace/);
        assert.deepEqual(issues[4].slice(0, 2), [6, 'tests.command']);
        assert.deepEqual(issues[5], [7, 'id', 'the id "sum-1" is already used on line 1', 'give every case its own id']);
        assert.deepEqual(issues[6].slice(0, 3), [8, undefined, 'the path "src/sum.ts" is given twice (path, tests.files, repo_files)']);
        assert.deepEqual(issues[7].slice(0, 3), [9, 'repo_files.0', 'unknown key "size"']);
        assert.match(String(issues[7][3]), /known keys here: path, content/);
        assert.ok(dataset.issues.every(issue => issue.file === '/data/cases.jsonl' && issue.severity === 'error'));
    });

    it('paths stay inside the folder a case is written into', () => {
        for (const path of ['src/a.ts', 'a.py', 'deep/er/x.js', '.hidden/x']) {
            assert.equal(isContainedPath(path), true, path);
        }
        for (const path of ['/etc/passwd', '../a.ts', 'src/../../a', 'src/./a.ts', 'src\\a.ts', 'C:/a.ts', '.', 'a//b']) {
            assert.equal(isContainedPath(path), false, path);
        }
        const dataset = parseFimDataset('d.jsonl', line({ ...valid, tests: { command: ['node', 't.js'], files: { '/tmp/evil.js': '' } } }));
        assert.equal(dataset.cases.length, 0);
        assert.deepEqual([dataset.issues[0].field, dataset.issues[0].fix], ['tests.files./tmp/evil.js', 'write it as a relative path such as "test/sum.test.js"']);
        assert.match(dataset.issues[0].message, /^the key "\/tmp\/evil.js" must be a relative path/);
    });

    it('a dataset that cannot be read is a Validation error that names the file and the fix', () => {
        const missing = join(__dirname, 'no-such-dataset.jsonl');
        assert.throws(() => loadFimDataset(missing), (error: unknown) => {
            assert.ok(error instanceof FimDatasetError && error instanceof QodeAssistError);
            assert.equal(error.info.category, 'Validation');
            assert.equal(error.message, `The dataset ${missing} cannot be read (ENOENT). Pass --dataset the path of a JSONL file, one case per line.`);
            return true;
        });
    });
});
