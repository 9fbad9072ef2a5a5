import * as assert from 'node:assert/strict';
import { FimCaseResult } from './fim-eval';
import { formatFimSummary, percentile, summarizeFimEval } from './fim-eval-report';

function result(id: string, fields: Partial<FimCaseResult>): FimCaseResult {
    return { id, language: 'typescript', path: `${id}.ts`, dataset_line: 1, expected: 'x', exact_match: false, edit_similarity: 0, ...fields };
}

describe('fim-eval summary', () => {
    it('percentiles are nearest-rank over the values given', () => {
        assert.equal(percentile([], 50), undefined);
        assert.equal(percentile([7], 95), 7);
        assert.equal(percentile([40, 10, 30, 20], 50), 20);
        assert.equal(percentile(Array.from({ length: 20 }, (_, i) => i + 1), 95), 19);
        assert.equal(percentile(Array.from({ length: 20 }, (_, i) => i + 1), 100), 20);
    });

    it('a failed request is a miss in EM, ES and pass@1, and is left out of the latencies', () => {
        const summary = summarizeFimEval([
            result('a', { exact_match: true, edit_similarity: 1, latency_ms: 100, tests: { passed: true, exit_code: 0, timed_out: false } }),
            result('b', { edit_similarity: 0.5, latency_ms: 300 }),
            result('c', { edit_similarity: 0, error: { category: 'Network', message: 'refused' }, tests: { passed: false, exit_code: null, timed_out: false } }),
            result('d', { language: 'python', path: 'd.py', exact_match: true, edit_similarity: 1, latency_ms: 200 })
        ]);
        assert.deepEqual(summary.all, { label: 'all', cases: 4, exactMatch: 0.5, editSimilarity: 0.625, tested: 2, passed: 1, p50Ms: 200, p95Ms: 300, errors: 1 });
        assert.deepEqual(summary.byLanguage.map(row => [row.label, row.cases, row.exactMatch, row.errors]), [['python', 1, 1, 0], ['typescript', 3, 1 / 3, 1]]);
    });

    it('one language gets no per-language rows; the table aligns its columns and shows — where there is nothing to show', () => {
        const summary = summarizeFimEval([result('a', { error: { category: 'Auth', message: 'no key' } })]);
        assert.deepEqual(summary.byLanguage, []);
        assert.deepEqual(formatFimSummary(summary), [
            '     cases     EM  ES mean  pass@1  p50 ms  p95 ms  errors',
            'all      1  0.000    0.000       —       —       —       1'
        ]);
    });

    it('pass@1 shows the share and the counts', () => {
        const table = formatFimSummary(summarizeFimEval([
            result('a', { tests: { passed: true, exit_code: 0, timed_out: false }, latency_ms: 5 }),
            result('b', { tests: { passed: false, exit_code: 1, timed_out: false }, latency_ms: 5 }),
            result('c', { tests: { passed: true, exit_code: 0, timed_out: false }, latency_ms: 5 })
        ]));
        assert.match(table[1], /0\.667 \(2\/3\)/);
    });
});
