import * as assert from 'node:assert/strict';
import { editSignature, scoreNextEdit, summarizeNesEval } from './nes-eval';

describe('nes-eval scoring', () => {
    const text = 'let w = 1;\nuse(w);\nuse(w);\n';
    const expected = 'let w = 1;\nuse(width);\nuse(w);\n';

    it('an exact edit scores EM and similarity 1', () => {
        assert.deepEqual(scoreNextEdit(text, expected, expected), { exactMatch: true, editSimilarity: 1 });
    });

    it('no edit at all scores EM 0 and similarity 0', () => {
        assert.deepEqual(scoreNextEdit(text, text, expected), { exactMatch: false, editSimilarity: 0 });
    });

    it('a near edit scores between: the changed lines are compared, not the whole file', () => {
        const score = scoreNextEdit(text, 'let w = 1;\nuse(widht);\nuse(w);\n', expected);
        assert.equal(score.exactMatch, false);
        assert.ok(score.editSimilarity > 0.8 && score.editSimilarity < 1, String(score.editSimilarity));
    });

    it('the signature is the changed lines without positions', () => {
        assert.deepEqual(editSignature(text, expected).split('\n').sort(), ['+use(width);', '-use(w);']);
        assert.equal(editSignature(text, text), '');
    });

    it('a failed case counts as a miss, and latency percentiles come from answered cases', () => {
        const summary = summarizeNesEval([
            { id: 'a', language: 'ts', exact_match: true, edit_similarity: 1, latency_ms: 100 },
            { id: 'b', language: 'ts', exact_match: false, edit_similarity: 0, no_edit: true, latency_ms: 300 },
            { id: 'c', language: 'ts', exact_match: false, edit_similarity: 0, error: { category: 'Network', message: 'down' } }
        ]);
        assert.deepEqual(summary, { cases: 3, exactMatch: 1 / 3, editSimilarity: 1 / 3, noEdit: 1, errors: 1, p50Ms: 100, p95Ms: 300 });
    });
});
