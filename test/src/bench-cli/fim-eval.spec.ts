import * as assert from 'node:assert/strict';
import { FimCase, parseFimDataset } from '@qodeassist/core';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording } from '../fake-provider/recordings';
import { DynamicScenario, Scenario } from '../fake-provider/scenarios';

const BIN = join(__dirname, '..', '..', '..', 'qodeassist-core', 'bin', 'qodeassist-bench.js');
const DATASET = join(__dirname, '..', '..', 'fixtures', 'fim-eval', 'packaged-sources.jsonl');

interface Run {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** How the fake model answers a case. */
type Answer = 'right' | 'half' | 'extra' | 'error' | 'hang';

/** The first half of the expected text (trailing blanks dropped, as scoring does): Levenshtein distance = what is missing. */
function halfOf(expected: string): string {
    return expected.slice(0, Math.floor(expected.length / 2)).trimEnd();
}

/** What the fake model streams for a case: the expected text, half of it, or the expected line and one more. */
function answerFor(testCase: FimCase, answer: Answer): Exclude<Scenario, DynamicScenario> {
    switch (answer) {
        case 'right': return { kind: 'replay', recording: ollamaGenerateRecording([testCase.expected]), firstByteDelayMs: 15 };
        case 'half': return { kind: 'replay', recording: ollamaGenerateRecording([halfOf(testCase.expected)]), firstByteDelayMs: 15 };
        case 'extra': return { kind: 'replay', recording: ollamaGenerateRecording([testCase.expected, '\nnotExpected();']), firstByteDelayMs: 15 };
        case 'error': return { kind: 'status', status: 400, body: JSON.stringify({ error: 'the fake model refuses this case' }) };
        case 'hang': return { kind: 'hang' };
    }
}

describe('qodeassist-bench fim-eval (spawned, against the fake provider)', function () {
    this.timeout(60_000);
    const server = new FakeProviderServer({ hangMs: 20_000 });
    const fixture = new ConfigFixture();
    const workspaceArgs = () => ['--workspace', fixture.workspace, '--config-dir', fixture.user, '--trust-workspace'];

    function bench(args: string[], interruptWhen?: (stderr: string) => boolean): Promise<Run> {
        return new Promise(resolve => {
            const child = spawn(process.execPath, [BIN, ...args, ...workspaceArgs()], {
                cwd: fixture.workspace, env: { PATH: process.env.PATH, HOME: join(fixture.root, 'home'), ...FAKE_KEYS }
            });
            let stdout = '';
            let stderr = '';
            let interrupted = false;
            child.stdout.on('data', chunk => { stdout += chunk; });
            child.stderr.on('data', chunk => {
                stderr += chunk;
                if (!interrupted && interruptWhen?.(stderr)) {
                    interrupted = true;
                    child.kill('SIGINT');
                }
            });
            child.on('close', code => resolve({ code, stdout, stderr }));
        });
    }

    /** The fake model answers each case as planned, recognizing it by the end of its prefix and the start of its suffix in the FIM prompt. */
    function script(cases: readonly FimCase[], plan: (testCase: FimCase, index: number) => Answer): void {
        server.setDefault({
            kind: 'dynamic',
            respond: body => {
                const prompt = String(JSON.parse(body).prompt);
                const index = cases.findIndex(entry => prompt.includes(entry.prefix.slice(-200)) && prompt.includes(entry.suffix.slice(0, 100)));
                return index < 0 ? { kind: 'status', status: 404, body: '{"error":"no such case"}' } : answerFor(cases[index], plan(cases[index], index));
            }
        });
    }

    function writeDataset(name: string, lines: readonly string[]): string {
        return fixture.write(join(fixture.root, name), `${lines.join('\n')}\n`);
    }

    const small = (id: string, expected: string) => ({ id, path: `src/${id}.ts`, prefix: `export function ${id}(a: number, b: number): number {\n    return `, suffix: '\n}\n', expected });

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        fixture.project_('agents/fake-fim.toml', 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => server.reset());

    it('the packaged dataset: EM, ES, pass@1 and errors come out as the scripted answers make them, per case in --out and in the summary', async () => {
        const cases = parseFimDataset(DATASET, readFileSync(DATASET, 'utf8')).cases;
        const plan = (testCase: FimCase, index: number): Answer =>
            testCase.id === 'tested/clamp' ? 'half' : index === 6 ? 'extra' : index === 7 ? 'error' : index % 4 === 1 ? 'half' : 'right';
        script(cases, plan);
        const out = join(fixture.root, 'results', 'fim.jsonl');
        const run = await bench(['fim-eval', '--dataset', DATASET, '--agent', 'fake-fim', '--out', out]);
        assert.equal(run.code, 0, run.stderr);

        // The figures, worked out here from the plan alone: a right answer scores 1, half of the text half/len, an error 0.
        const answers = cases.map(plan);
        const similarity = cases.map((entry, index) => answers[index] === 'half' ? halfOf(entry.expected).length / entry.expected.length : answers[index] === 'error' ? 0 : 1);
        const em = answers.filter(answer => answer === 'right' || answer === 'extra').length / cases.length;
        const es = similarity.reduce((sum, value) => sum + value, 0) / cases.length;
        assert.ok(em > 0.5 && em < 1 && es > em && es < 1, `a plan with both outcomes: EM ${em}, ES ${es}`);

        const results = readFileSync(out, 'utf8').trim().split('\n').map(line => JSON.parse(line));
        assert.deepEqual(results.map(result => result.id), cases.map(entry => entry.id));
        results.forEach((result, index) => {
            assert.equal(result.exact_match, answers[index] === 'right' || answers[index] === 'extra', result.id);
            assert.ok(Math.abs(result.edit_similarity - similarity[index]) < 1e-12, `${result.id}: ${result.edit_similarity} ≠ ${similarity[index]}`);
        });
        assert.equal(results[6].completion, `${cases[6].expected}\nnotExpected();`);
        assert.equal(results[6].scored, cases[6].expected);
        assert.equal(results[7].error.category, 'Validation');
        assert.match(results[7].error.message, /400/);
        const tested = Object.fromEntries(results.filter(result => result.tests).map(result => [result.id, result.tests]));
        assert.deepEqual(Object.keys(tested), ['tested/clamp', 'tested/chunk', 'tested/slugify']);
        assert.deepEqual([tested['tested/clamp'].passed, tested['tested/chunk'].passed, tested['tested/slugify'].passed], [false, true, true]);
        assert.match(tested['tested/clamp'].output, /clamp/);
        assert.deepEqual(results.find(result => result.id === 'tested/slugify').meta, { source: 'hand-written', kind: 'lines' });
        assert.ok(results.every(result => result.error || (result.agent === 'fake-fim' && result.latency_ms >= 15)));

        // Every case was its own request to the model (no answer from the cache).
        assert.equal(server.requests.filter(request => request.method === 'POST').length, cases.length);
        const lines = run.stdout.trim().split('\n');
        assert.equal(lines[0], `fim-eval: ${cases.length} of ${cases.length} case(s) from ${DATASET}, agent fake-fim`);
        assert.match(lines[1], /^\s+cases\s+EM\s+ES mean\s+pass@1\s+p50 ms\s+p95 ms\s+errors$/);
        const all = lines[2].trim().split(/\s{2,}/);
        assert.deepEqual([all[0], all[1], all[2], all[3], all[4], all[7]], ['all', String(cases.length), em.toFixed(3), es.toFixed(3), '0.667 (2/3)', '1']);
        assert.ok(Number(all[5]) >= 15 && Number(all[6]) >= Number(all[5]), lines[2]);
        assert.deepEqual(lines.slice(3).map(line => line.split(/\s+/)[0]), ['javascript', 'python', 'typescript']);
        assert.match(run.stderr, new RegExp(`^\\[${cases.length}/${cases.length}\\] tested/slugify  EM  ES 1\\.000  \\d+ ms  fake-fim  tests passed$`, 'm'));
        assert.match(run.stderr, /^\[8\/\d+\] \S+ {2}error {2}Validation: /m);
    });

    it('sends the same request as `complete` at the same cursor', async () => {
        const testCase = small('mix', 'a * 2 + b;');
        const dataset = writeDataset('one.jsonl', [JSON.stringify(testCase)]);
        fixture.write(join(fixture.workspace, testCase.path), `${testCase.prefix}<CURSOR>${testCase.suffix}`);
        server.setDefault({ kind: 'replay', recording: ollamaGenerateRecording([testCase.expected]) });
        const completed = await bench(['complete', '--agent', 'fake-fim', '--file', testCase.path, '--cursor-marker', '<CURSOR>']);
        assert.equal(completed.code, 0, completed.stderr);
        const evaluated = await bench(['fim-eval', '--dataset', dataset, '--agent', 'fake-fim']);
        assert.equal(evaluated.code, 0, evaluated.stderr);
        const [fromComplete, fromEval] = server.requests.map(request => JSON.parse(request.body));
        assert.deepEqual(fromEval, fromComplete);
        assert.match(fromEval.prompt, /^<\|fim_prefix\|>export function mix/);
    });

    it('a bad dataset line is reported with file, line, what is wrong and the fix; the other cases still run and the run exits 1', async () => {
        const dataset = writeDataset('mixed.jsonl', [
            JSON.stringify(small('first', 'a + b;')),
            '{"id": "cut", "path": "src/cut.ts"',
            JSON.stringify({ ...small('typo', 'a - b;'), expcted: 'a - b;' }),
            JSON.stringify({ ...small('escape', 'a / b;'), path: '../../etc/escape.ts' }),
            JSON.stringify(small('last', 'a % b;'))
        ]);
        const cases = parseFimDataset(dataset, readFileSync(dataset, 'utf8')).cases;
        script(cases, () => 'right');
        const run = await bench(['fim-eval', '--dataset', dataset, '--agent', 'fake-fim']);
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, new RegExp(`^${dataset}:2: error: not valid JSON \\(.+\\) — write each case as one JSON object on one line \\(JSONL\\)$`, 'm'));
        assert.ok(run.stderr.includes(`${dataset}:3: error: unknown key "expcted" — did you mean "expected"?`), run.stderr);
        assert.ok(run.stderr.includes(`${dataset}:4 [path]: error: must be a relative path inside the workspace`), run.stderr);
        assert.equal(server.requests.length, 2);
        assert.match(run.stdout, /^all\s+2\s+1\.000\s+1\.000\s+—/m);
        assert.match(run.stdout, /^3 dataset line\(s\) skipped: see the problems on stderr\.$/m);
    });

    it('--timeout limits each case (the run goes on), --limit takes the first cases, --json prints the summary as JSON', async () => {
        const dataset = writeDataset('timeout.jsonl', ['slow', 'quick', 'unused'].map(id => JSON.stringify(small(id, 'a + b;'))));
        const cases = parseFimDataset(dataset, readFileSync(dataset, 'utf8')).cases;
        script(cases, testCase => testCase.id === 'slow' ? 'hang' : 'right');
        const run = await bench(['fim-eval', '--dataset', dataset, '--agent', 'fake-fim', '--limit', '2', '--timeout', '1', '--json']);
        assert.equal(run.code, 0, run.stderr);
        const summary = JSON.parse(run.stdout);
        assert.deepEqual([summary.cases, summary.skippedLines, summary.cancelled, summary.all.errors, summary.all.exactMatch], [2, 0, false, 1, 0.5]);
        assert.match(run.stderr, /^\[1\/2\] slow {2}error {2}Network: No answer within 1 s \(--timeout\)\.$/m);
        assert.equal(server.requests.length, 2);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });

    it('Ctrl+C stops the run, prints the summary of the cases done and exits 130', async () => {
        const dataset = writeDataset('stop.jsonl', ['done', 'stuck', 'never'].map(id => JSON.stringify(small(id, 'a + b;'))));
        const cases = parseFimDataset(dataset, readFileSync(dataset, 'utf8')).cases;
        script(cases, testCase => testCase.id === 'stuck' ? 'hang' : 'right');
        const out = join(fixture.root, 'stop-results.jsonl');
        const run = await bench(['fim-eval', '--dataset', dataset, '--agent', 'fake-fim', '--out', out], stderr => stderr.includes('[1/3]'));
        assert.equal(run.code, 130, run.stderr);
        assert.match(run.stdout, /^fim-eval: 1 of 3 case\(s\) from .+, agent fake-fim \(stopped\)$/m);
        assert.deepEqual(readFileSync(out, 'utf8').trim().split('\n').map(line => JSON.parse(line).id), ['done']);
        assert.equal(server.requests.length, 2);
    });

    it('usage and dataset errors: no --dataset or a missing file exit 2; a dataset without one valid case exits 1 with a Validation error', async () => {
        const missing = await bench(['fim-eval']);
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /missing --dataset/);
        const absent = await bench(['fim-eval', '--dataset', join(fixture.root, 'nope.jsonl')]);
        assert.equal(absent.code, 2);
        assert.match(absent.stderr, /the --dataset file .+nope\.jsonl does not exist/);
        const badLimit = await bench(['fim-eval', '--dataset', DATASET, '--limit', '0']);
        assert.equal(badLimit.code, 2);
        assert.match(badLimit.stderr, /--limit takes a whole number of at least 1, not "0"/);
        const empty = writeDataset('empty.jsonl', ['not json']);
        const invalid = await bench(['fim-eval', '--dataset', empty]);
        assert.equal(invalid.code, 1);
        assert.match(invalid.stderr, /:1: error: not valid JSON/);
        assert.match(invalid.stderr, /^Validation: The dataset .+empty\.jsonl has no valid case \(1 problem\(s\) above\)\. Write one case per line as README's "The bench CLI" describes\.$/m);
        assert.equal(server.requests.length, 0);
    });
});
