import * as assert from 'node:assert/strict';
import { DocumentChange, isKeystroke, MIN_GAP_MS, MIN_GAPS, PAUSE_FLOOR_MS, RHYTHM_WINDOW, TypingRhythm } from './typing-rhythm';

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
    it('uses the configured debounce everywhere, eager contexts too, until enough gaps are known', () => {
        assert.deepEqual(typed(Array(MIN_GAPS - 1).fill(80)).timings(350, true), { debounceMs: 350, eagerFloorMs: 350, adaptive: false });
    });

    it('a steady 80 ms typist: the burst has paused at 2 × the median gap; the debounce is never sooner', () => {
        const timings = typed([70, 75, 80, 80, 80, 85, 90, 95, 100, 110, 80, 80]).timings(350, true);
        // Sorted: 70 75 80 80 80 80 80 85 90 95 100 110 — the median (6th of 12) is 80, the 75th percentile (9th) 90: 1.5 × 90 = 135 < 160.
        assert.deepEqual(timings, { debounceMs: 160, eagerFloorMs: 160, adaptive: true });
    });

    it('a typist with a spread rhythm: 1.5 × the 75th-percentile gap when longer than the pause', () => {
        const timings = typed([60, 60, 70, 80, 80, 90, 150, 160, 170, 180, 190, 200]).timings(350, true);
        // Median (6th of 12) 90 → pause 180; 75th percentile (9th) 170 → 255.
        assert.deepEqual(timings, { debounceMs: 255, eagerFloorMs: 180, adaptive: true });
    });

    it('a slow typist waits longer, never more than 600 ms, eager contexts included', () => {
        assert.deepEqual(typed(Array(12).fill(250)).timings(350, true), { debounceMs: 500, eagerFloorMs: 500, adaptive: true });
        assert.deepEqual(typed(Array(12).fill(450)).timings(350, true), { debounceMs: 600, eagerFloorMs: 600, adaptive: true });
    });

    it('a very fast typist: the pause floor (60 ms) at eager contexts, 100 ms elsewhere', () => {
        assert.deepEqual(typed(Array(12).fill(20)).timings(350, true), { debounceMs: 100, eagerFloorMs: PAUSE_FLOOR_MS, adaptive: true });
        assert.deepEqual(typed(Array(12).fill(35)).timings(350, true), { debounceMs: 100, eagerFloorMs: 70, adaptive: true });
    });

    it('pauses of a second or more are not rhythm: a typist who stops to think keeps a short debounce', () => {
        const gaps = [80, 80, 80, 80, 1_600, 80, 80, 80, 2_500, 80, 80, 80];
        assert.deepEqual(typed(gaps).timings(350, true), { debounceMs: 160, eagerFloorMs: 160, adaptive: true });
        assert.equal(typed(gaps).sampleCount, 10);
    });

    it(`keys that arrive bunched (gaps under ${MIN_GAP_MS} ms: a busy renderer delivering queued keys) are no rhythm: the median stays the typist's`, () => {
        // 150 ms a key, then thirteen keys delivered 19 ms apart: counted, they would make the median 19 ms and the pause 60 ms.
        const rhythm = typed([...Array(12).fill(150), ...Array(13).fill(MIN_GAP_MS - 1)]);
        assert.equal(rhythm.sampleCount, 12);
        assert.deepEqual(rhythm.timings(350, true), { debounceMs: 300, eagerFloorMs: 300, adaptive: true });
        assert.equal(typed(Array(12).fill(MIN_GAP_MS)).sampleCount, 12, `${MIN_GAP_MS} ms itself is a gap`);
    });

    it('follows a change of pace: the window keeps the last gaps only', () => {
        const rhythm = typed([...Array(RHYTHM_WINDOW).fill(300), ...Array(RHYTHM_WINDOW).fill(60)]);
        assert.deepEqual(rhythm.timings(350, true), { debounceMs: 120, eagerFloorMs: 120, adaptive: true });
        assert.equal(rhythm.sampleCount, RHYTHM_WINDOW);
    });

    it('off: the configured debounce whatever the rhythm; eager contexts still wait for the pause, at most that debounce', () => {
        assert.deepEqual(typed(Array(20).fill(80)).timings(300, false), { debounceMs: 300, eagerFloorMs: 160, adaptive: false });
        assert.deepEqual(typed(Array(20).fill(200)).timings(300, false), { debounceMs: 300, eagerFloorMs: 300, adaptive: false });
        assert.deepEqual(typed(Array(3).fill(80)).timings(300, false), { debounceMs: 300, eagerFloorMs: 300, adaptive: false });
    });
});

describe('what counts as a keystroke of the typist', () => {
    const change = (...texts: string[]): DocumentChange => ({ isUndoing: false, isRedoing: false, isFlush: false, changes: texts.map(text => ({ text })) });
    const table: Array<[string, DocumentChange, boolean, boolean]> = [
        ['a character typed', change('a'), true, true],
        ['an auto-closed pair', change('()'), true, true],
        ['Enter with its indent', change('\n    '), true, true],
        ['Backspace', change(''), true, true],
        ['a paste', change('const x = 1;'), true, false],
        ['an undo', { ...change('a'), isUndoing: true }, true, false],
        ['the document replaced', { ...change(''), isFlush: true }, true, false],
        ['several cursors typing', change('a', 'a'), true, false],
        // The completion log, once full: each line written deletes its first line, one change with no text, in a model no one types in.
        ['the completion log dropping its first line', change(''), false, false],
        ['a character written into another model', change('a'), false, false]
    ];
    for (const [what, event, typedInto, expected] of table) {
        it(`${what}${typedInto ? '' : ', not in the document typed in'} → ${expected ? 'a keystroke' : 'no keystroke'}`, () => assert.equal(isKeystroke(event, typedInto), expected));
    }

    it('a 211 ms typist whose every key writes a completion-log line about 100 ms later (the log full): the rhythm stays the typist\'s', () => {
        const rhythm = new TypingRhythm();
        const events: Array<[number, DocumentChange, boolean]> = [];
        for (let key = 0; key < 60; key++) {
            events.push([key * 211, change('a'), true], [key * 211 + 90 + (key % 3) * 10, change(''), false]);
        }
        for (const [t, event, typedInto] of events) {
            if (isKeystroke(event, typedInto)) {
                rhythm.keystroke(t);
            }
        }
        assert.equal(rhythm.sampleCount, RHYTHM_WINDOW);
        assert.deepEqual(rhythm.timings(300, true), { debounceMs: 422, eagerFloorMs: 422, adaptive: true });
        // Counted, the log's deletions split every gap in two: the pause would be 2 × ~110 ms.
        const counted = new TypingRhythm();
        events.forEach(([t]) => counted.keystroke(t));
        assert.ok(counted.timings(300, true).eagerFloorMs < 250, `${counted.timings(300, true).eagerFloorMs}`);
    });
});
