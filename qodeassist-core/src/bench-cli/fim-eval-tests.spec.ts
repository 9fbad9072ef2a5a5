import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { NodeTerminal } from '../tools/node-process';
import { FimCase } from './fim-eval-dataset';
import { runCaseTests } from './fim-eval-tests';

const TEST = [
    "const { test } = require('node:test');",
    "const assert = require('node:assert/strict');",
    "const { sum } = require('../src/sum.js');",
    "test('sum', () => assert.equal(sum(2, 3), 5));", ''
].join('\n');

function sumCase(tests: FimCase['tests'], extra: Partial<FimCase> = {}): FimCase {
    return {
        id: 'sum', language: 'javascript', path: 'src/sum.js', line: 1, prefix: 'exports.sum = (a, b) => ', suffix: '\n', expected: 'a + b;', tests, ...extra
    };
}

describe('fim-eval tests (pass@1)', function () {
    this.timeout(20_000);

    it('passes with the right completion in place and fails with a wrong one, keeping the failure\'s output', async () => {
        const testCase = sumCase({ command: ['node', '--test', 'test/sum.test.js'], files: { 'test/sum.test.js': TEST } });
        assert.deepEqual(await runCaseTests(testCase, 'a + b;'), { passed: true, exitCode: 0, timedOut: false, output: undefined });
        const failed = await runCaseTests(testCase, 'a - b;');
        assert.equal(failed?.passed, false);
        assert.equal(failed?.exitCode, 1);
        assert.match(failed?.output ?? '', /-1 !== 5|Expected values to be strictly equal/);
    });

    it('a case without tests has no outcome', async () => {
        assert.equal(await runCaseTests(sumCase(undefined), 'a + b;'), undefined);
    });

    it('repository files sit beside the completed file; the folder is gone afterwards', async () => {
        const check = "const fs = require('node:fs'); console.log(process.cwd()); process.exit(fs.readFileSync('lib/base.js', 'utf8') === 'exports.base = 1;' && fs.existsSync('src/sum.js') ? 7 : 1)";
        const outcome = await runCaseTests(sumCase({ command: ['node', '-e', check] }, { repo_files: [{ path: 'lib/base.js', content: 'exports.base = 1;' }] }), 'a + b;');
        assert.equal(outcome?.exitCode, 7);
        const folder = outcome!.output!.trim();
        assert.match(folder, /qodeassist-fim-eval-/);
        assert.equal(existsSync(folder), false);
    });

    it('the test process gets no keys from the environment', async () => {
        const terminal = new NodeTerminal({ env: { PATH: process.env.PATH, LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-fimeval-0123456789abcdef' } });
        const probe = "process.exit(process.env.OPENAI_API_KEY === undefined && process.env.LANG === 'C.UTF-8' ? 0 : 1)";
        assert.equal((await runCaseTests(sumCase({ command: ['node', '-e', probe] }), 'a + b;', { terminal }))?.passed, true);
    });

    it('a test that runs past its time limit fails as timed out', async () => {
        const started = Date.now();
        const outcome = await runCaseTests(sumCase({ command: ['node', '-e', 'setInterval(() => undefined, 1000)'], timeoutSeconds: 0.5 }), 'a + b;');
        assert.deepEqual([outcome?.passed, outcome?.timedOut, outcome?.exitCode], [false, true, null]);
        assert.ok(Date.now() - started < 10_000);
    });
});
