import * as assert from 'node:assert/strict';
import { median, percentile } from './statistics';
import { BENCH_RHYTHMS, HUMAN_RHYTHM_PARAMETERS, humanRhythm, mulberry32, steadyRhythm } from './typist-rhythms';

describe('the completion benchmark\'s typist rhythms', () => {
    it('types at 35, 80 and 150 ms a key and a human-like rhythm', () => {
        assert.deepEqual(BENCH_RHYTHMS.map(rhythm => rhythm.slug), ['35ms', '80ms', '150ms', 'human']);
        assert.equal(steadyRhythm(80).gap(17), 80);
    });

    it('the human-like rhythm is seeded: the same gaps every run, whatever order they are read in', () => {
        const a = humanRhythm();
        const b = humanRhythm();
        const forward = Array.from({ length: 50 }, (_, index) => a.gap(index));
        assert.equal(b.gap(49), forward[49]);
        assert.deepEqual(Array.from({ length: 50 }, (_, index) => b.gap(index)), forward);
        assert.notDeepEqual(Array.from({ length: 50 }, (_, index) => humanRhythm({ ...HUMAN_RHYTHM_PARAMETERS, seed: 7 }).gap(index)), forward);
    });

    it('draws from the documented distribution: median ≈ 211 ms, mean ≈ 239 ms, 90th percentile ≈ 1.9 × the median', () => {
        const rhythm = humanRhythm();
        const gaps = Array.from({ length: 20_000 }, (_, index) => rhythm.gap(index));
        const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
        assert.ok(Math.abs(median(gaps) - 211) < 8, `median ${median(gaps)}`);
        assert.ok(Math.abs(mean - 239) < 8, `mean ${mean}`);
        assert.ok(Math.abs(percentile(gaps, 0.9) / median(gaps) - Math.exp(1.2816 * 0.5)) < 0.08, `p90 ${percentile(gaps, 0.9)}`);
        assert.ok(Math.min(...gaps) >= 30 && Math.max(...gaps) <= 1_000);
    });

    it('mulberry32 is uniform enough: ten bins within 5 % of their share', () => {
        const uniform = mulberry32(1);
        const bins = Array(10).fill(0);
        for (let draw = 0; draw < 100_000; draw++) {
            bins[Math.floor(uniform() * 10)]++;
        }
        assert.ok(bins.every(count => Math.abs(count - 10_000) < 500), bins.join(' '));
    });
});
