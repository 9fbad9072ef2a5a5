import * as assert from 'node:assert/strict';
import { MIN_GAPS, RHYTHM_WINDOW, TypingRhythm } from './typing-rhythm';

/** A typist's keystrokes at these gaps (ms), starting at t = 1000. */
function typed(gaps: readonly number[]): TypingRhythm {
    const rhythm = new TypingRhythm();
    let t = 1_000;
    rhythm.keystroke(t);
    for (const gap of gaps) {
        t += gap;
        rhythm.keystroke(t);
    }
    return rhythm;
}

describe('the typing rhythm behind the adaptive debounce', () => {
    it('uses the configured debounce, and asks at once at eager contexts, until enough gaps are known', () => {
        assert.deepEqual(typed(Array(MIN_GAPS - 1).fill(80)).timings(350, true), { debounceMs: 350, eagerFloorMs: 0, adaptive: false });
    });

    it('a steady 80 ms typist: 1.5 × the 75th-percentile gap, and the 90th-percentile gap at eager contexts', () => {
        const timings = typed([70, 75, 80, 80, 80, 85, 90, 95, 100, 110, 80, 80]).timings(350, true);
        // Sorted: 70 75 80 80 80 80 80 85 90 95 100 110 — the 9th of 12 (75th percentile) is 90, the 11th (90th) is 100.
        assert.deepEqual(timings, { debounceMs: 135, eagerFloorMs: 100, adaptive: true });
    });

    it('a slow typist waits longer, never more than 600 ms; the eager floor stops at 150 ms', () => {
        assert.deepEqual(typed(Array(12).fill(250)).timings(350, true), { debounceMs: 375, eagerFloorMs: 150, adaptive: true });
        assert.deepEqual(typed(Array(12).fill(450)).timings(350, true), { debounceMs: 600, eagerFloorMs: 150, adaptive: true });
    });

    it('a very fast typist is never asked for sooner than 100 ms', () => {
        assert.deepEqual(typed(Array(12).fill(30)).timings(350, true), { debounceMs: 100, eagerFloorMs: 30, adaptive: true });
    });

    it('pauses of a second or more are not rhythm: a typist who stops to think keeps a short debounce', () => {
        const gaps = [80, 80, 80, 80, 1_600, 80, 80, 80, 2_500, 80, 80, 80];
        assert.deepEqual(typed(gaps).timings(350, true), { debounceMs: 120, eagerFloorMs: 80, adaptive: true });
        assert.equal(typed(gaps).sampleCount, 10);
    });

    it('follows a change of pace: the window keeps the last gaps only', () => {
        const rhythm = typed([...Array(RHYTHM_WINDOW).fill(300), ...Array(RHYTHM_WINDOW).fill(60)]);
        assert.deepEqual(rhythm.timings(350, true), { debounceMs: 100, eagerFloorMs: 60, adaptive: true });
        assert.equal(rhythm.sampleCount, RHYTHM_WINDOW);
    });

    it('off: the configured debounce whatever the rhythm, and eager contexts at once', () => {
        assert.deepEqual(typed(Array(20).fill(80)).timings(300, false), { debounceMs: 300, eagerFloorMs: 0, adaptive: false });
    });
});
