import * as assert from 'node:assert/strict';
import { addCounts, emptyFigures, mergeFigures, parseFigures, stillPresent, totalOf } from './completion-figures';

describe('completion figures: the counts kept', () => {
    const since = new Date('2026-11-23T10:00:00Z');

    it('adds counts to a language and agent\'s row, leaving the input as it was', () => {
        const empty = emptyFigures(since);
        const one = addCounts(empty, 'typescript', 'fim', { shown: 1 });
        const two = addCounts(one, 'typescript', 'fim', { shown: 1, accepted: 1 });
        assert.deepEqual(empty.rows, []);
        assert.deepEqual(one.rows, [{ language: 'typescript', agent: 'fim', shown: 1, accepted: 0, checked: 0, stillPresent: 0 }]);
        assert.deepEqual(two.rows, [{ language: 'typescript', agent: 'fim', shown: 2, accepted: 1, checked: 0, stillPresent: 0 }]);
    });

    it('merges another window\'s counts row by row and keeps when counting began', () => {
        const stored = addCounts(addCounts(emptyFigures(since), 'typescript', 'fim', { shown: 4, accepted: 2, checked: 2, stillPresent: 1 }), 'python', 'claude', { shown: 1 });
        const delta = addCounts(addCounts(emptyFigures(new Date('2026-11-24T00:00:00Z')), 'typescript', 'fim', { shown: 1, accepted: 1 }), 'go', 'fim', { shown: 2 });
        const merged = mergeFigures(stored, delta);
        assert.equal(merged.since, since.toISOString());
        assert.deepEqual(merged.rows.map(row => [row.language, row.agent, row.shown, row.accepted, row.checked, row.stillPresent]), [
            ['typescript', 'fim', 5, 3, 2, 1], ['python', 'claude', 1, 0, 0, 0], ['go', 'fim', 2, 0, 0, 0]
        ]);
        assert.deepEqual(totalOf(merged), { shown: 8, accepted: 3, checked: 2, stillPresent: 1 });
    });

    it('reads stored figures back, and drops what is not figures of this version', () => {
        const figures = addCounts(emptyFigures(since), 'typescript', 'fim', { shown: 3 });
        assert.deepEqual(parseFigures(JSON.parse(JSON.stringify(figures))), figures);
        for (const damaged of [undefined, 'text', { version: 2, since: since.toISOString(), rows: [] }, { version: 1, since: 'yesterday', rows: [] },
            { version: 1, since: since.toISOString(), rows: [{ language: 'ts', agent: 'a', shown: -1, accepted: 0, checked: 0, stillPresent: 0 }] },
            { version: 1, since: since.toISOString(), rows: [{ language: 'ts', agent: 'a', shown: 1.5, accepted: 0, checked: 0, stillPresent: 0 }] },
            { version: 1, since: since.toISOString(), rows: [null] }]) {
            assert.equal(parseFigures(damaged), undefined, JSON.stringify(damaged));
        }
    });

    it('accepted text is still present when its range holds it, re-indented or not; edited, cut or gone it is not', () => {
        const accepted = 'const d = a - b;\n    return d;';
        assert.equal(stillPresent(accepted, accepted), true);
        assert.equal(stillPresent(accepted, 'const d = a - b;\n  return d;'), true, 're-indented by a formatter');
        assert.equal(stillPresent(accepted, 'const d = a + b;\n    return d;'), false, 'edited');
        assert.equal(stillPresent(accepted, 'const d = a - b;'), false, 'partly deleted');
        assert.equal(stillPresent(accepted, ''), false, 'deleted');
        assert.equal(stillPresent(accepted, undefined), false, 'the range is gone');
    });
});
