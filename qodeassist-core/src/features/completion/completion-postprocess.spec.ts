import * as assert from 'node:assert/strict';
import { DEFAULT_POSTPROCESS, postprocessCompletion } from './completion-postprocess';
import { CURSOR, POSTPROCESS_CASES } from './completion-postprocess.cases';

describe('completion post-processing', () => {
    it(`has at least 60 cases over at least 10 languages`, () => {
        assert.ok(POSTPROCESS_CASES.length >= 60, String(POSTPROCESS_CASES.length));
        assert.ok(new Set(POSTPROCESS_CASES.map(c => c.language)).size >= 10);
    });
    for (const entry of POSTPROCESS_CASES) {
        it(entry.name, () => {
            const at = entry.file.indexOf(CURSOR);
            assert.ok(at >= 0, 'the case marks the cursor');
            const context = { prefix: entry.file.slice(0, at), suffix: entry.file.slice(at + CURSOR.length), language: entry.language };
            assert.equal(postprocessCompletion(entry.output, context, { ...DEFAULT_POSTPROCESS, ...entry.options }), entry.expected);
        });
    }
});
