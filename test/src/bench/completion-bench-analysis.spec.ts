import * as assert from 'node:assert/strict';
import { analyseRun, CompletionRun, completionTable, contestedStops, rhythmSummaryTable, runFigures } from './completion-bench-analysis';

describe('completion benchmark: reading a run back', () => {
    const lines = ['ab = 1;', 'cd;'];
    // The typist: "ab" (stop after "a"), Enter (a fresh-line stop), "c".
    const keys = [{ t: 100, key: 'a' }, { t: 2_000, key: 'b' }, { t: 2_100, key: ' ' }, { t: 2_200, key: '=' }, { t: 2_300, key: ' ' }, { t: 2_400, key: '1' }, { t: 2_500, key: ';' },
        { t: 3_000, key: 'Enter' }, { t: 5_000, key: 'c' }];
    const stops = [{ key: 0, kind: 'in line' as const }, { key: 7, kind: 'fresh line' as const }];

    it('takes the time to the first ghost text that is exactly the rest of the line, and counts ghost text that does not fit as stale', () => {
        const ghosts = [{ t: 150, text: 'x' }, { t: 400, text: 'b = 1;' }, { t: 2_010, text: ' = 1;' }, { t: 3_300, text: 'cd;' }];
        const run = analyseRun('app', lines, keys, ghosts, stops);
        assert.deepEqual(run.latencies, [300, 300]);
        assert.equal(run.stale, 1, '"x" after "a"');
        assert.deepEqual(run.missedAt, []);
    });

    it('a stop without a correct suggestion before the next key is missed, with what had been typed', () => {
        const run = analyseRun('app', lines, keys, [{ t: 3_300, text: 'cd;' }], stops);
        assert.deepEqual(run.latencies, [undefined, 300]);
        assert.deepEqual(run.missedAt, ['a']);
    });

    it('compares apps at the stops where some user waited, a miss counting as the whole pause', () => {
        const run = (app: string, latencies: Array<number | undefined>, requests: number): CompletionRun =>
            ({ app, stops: ['in line', 'fresh line', 'in line', 'in line'], latencies, missedAt: [], requests, cancelled: 0, stale: 0 });
        const theia = run('Theia AI', [7, 650, 650, 8], 10);
        const ours = run('ours', [6, 270, 20, undefined], 4);
        assert.deepEqual(contestedStops([theia, ours]), [1, 2, 3]);
        assert.deepEqual(runFigures(ours, [1, 2, 3], 1_600), { correct: 3, contestedMedian: 270, contestedP95: 1_600, freshLineMedian: 270, inLineWaitedMedian: 1_600 });
        const table = completionTable([theia, ours], 1_600);
        assert.ok(table.includes('ours ÷ Theia AI: keystroke → ghost text median 0.42× (aim ≤ 0.5×), p95 2.46×, requests 0.40× (aim ≤ 1.0×), '
            + 'stops with a correct suggestion 0.75×, stale suggestions 0 against 0 (aim 0).'), table);
    });

    it('sums up every rhythm: the ratios to Theia AI in the same rhythm, and whether the aim holds', () => {
        const run = (app: string, latencies: Array<number | undefined>, requests: number, stale = 0): CompletionRun =>
            ({ app, stops: ['in line', 'fresh line', 'in line'], latencies, missedAt: [], requests, cancelled: 0, stale });
        const theia = run('Theia AI', [650, 650, 660], 10);
        const summary = rhythmSummaryTable([
            { rhythm: '35 ms a key', runs: [theia, run('ours', [300, 310, 320], 10)] },
            { rhythm: '150 ms a key', runs: [theia, run('ours', [300, 400, 420], 8)] },
            { rhythm: 'human-like', runs: [theia, run('ours', [300, 310, 320], 11)] },
            { rhythm: 'stale', runs: [theia, run('ours', [300, 310, 320], 9, 1)] }
        ], 1_600);
        const lines = summary.split('\n').slice(2);
        assert.equal(lines.length, 4);
        assert.ok(lines[0].startsWith('| 35 ms a key | ours | 310 / 650 ms = **0.48×** | 320 / 660 ms = 0.48× | 10 / 10 = **1.00×** | 3 / 3 = 1.00× | 0 / 0 | yes |'), lines[0]);
        assert.ok(lines[1].endsWith('| no |') && lines[1].includes('**0.62×**'), 'the median misses the aim at 150 ms');
        assert.ok(lines[2].endsWith('| no |') && lines[2].includes('**1.10×**'), 'more requests than Theia AI');
        assert.ok(lines[3].endsWith('| 1 / 0 | no |'), 'a stale suggestion');
    });
});
