import * as assert from 'node:assert/strict';
import { DEBOUNCE_MS, FIRST_BYTE_MS, PAUSE_MS, TARGET_LINES } from '@qodeassist/test/lib/bench/completion-script';
import { humanRhythm, HUMAN_RHYTHM_PARAMETERS } from '@qodeassist/test/lib/bench/typist-rhythms';
import { triggerDecision } from './completion-trigger';
import { CREDIT_CAP, START_CREDIT } from './request-budget';
import { benchTimeline, fixedDebounceRequests, requestsAlong, restOfLine, Timeline, TimelineOutcome, waitsAtStops } from './trigger-timeline.spec-support';
import { PAUSE_FACTOR } from './typing-rhythm';

const SETTINGS = { configuredMs: DEBOUNCE_MS, adaptive: true, minTyped: 1 };
const human = (seed: number) => humanRhythm({ ...HUMAN_RHYTHM_PARAMETERS, seed }).gap;

/** The benchmark's rhythms (seed 38 is its human-like typist), a steady one with hitches, and two more seeds. */
const RHYTHMS: Array<[string, (index: number) => number]> = [
    ['35 ms a key', () => 35],
    ['35 ms a key with a 65 ms hitch every 15th key', index => index % 15 === 0 ? 65 : 35],
    ['80 ms a key', () => 80],
    ['150 ms a key', () => 150],
    ['human-like, seed 38 (the benchmark\'s)', human(38)],
    ['human-like, seed 1', human(1)],
    ['human-like, seed 2', human(2)]
];

/** The script's requests and what a debounce trigger at the configured debounce sends over the same keys. */
function counted(timeline: Timeline, outcome: TimelineOutcome): { script: number; all: number; debounceScript: number; debounceAll: number } {
    return {
        script: outcome.sent.filter(request => request.key >= timeline.scriptFrom).length,
        all: outcome.sent.length,
        debounceScript: fixedDebounceRequests(timeline.keys.slice(timeline.scriptFrom), DEBOUNCE_MS),
        debounceAll: fixedDebounceRequests(timeline.keys, DEBOUNCE_MS)
    };
}

/** The keys of each burst of the script (between two stops). */
function bursts(timeline: Timeline): number[][] {
    const result: number[][] = [];
    let current: number[] = [];
    for (let index = timeline.scriptFrom; index < timeline.keys.length; index++) {
        current.push(index);
        if (timeline.stops.includes(index)) {
            result.push(current);
            current = [];
        }
    }
    return current.length ? [...result, current] : result;
}

/** Each line's first stop (its fresh line, or a few characters in): where no suggestion of the line showed yet, and a debounce trigger waits. */
function firstStops(timeline: Timeline): number[] {
    return TARGET_LINES.map((_, line) => timeline.stops.findIndex(stop => timeline.keys[stop].line === line));
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

describe('the trigger rule along the benchmark\'s key timeline: never more requests than a debounce trigger', () => {
    for (const [rhythm, gap] of RHYTHMS) {
        it(`${rhythm}, a model whose answers never fit: the budget binds — at most the debounce trigger's requests + ${START_CREDIT} since the start, + ${CREDIT_CAP} in the script`, () => {
            const timeline = benchTimeline(gap);
            const count = counted(timeline, requestsAlong(timeline.keys, SETTINGS));
            assert.ok(count.all <= count.debounceAll + START_CREDIT, `${count.all} against ${count.debounceAll}`);
            assert.ok(count.script <= count.debounceScript + CREDIT_CAP, `${count.script} against ${count.debounceScript}`);
        });
    }

    // Rhythm → requests in the script with the benchmark's fake model, and a debounce trigger's over the same keys.
    const table: Array<[string, number, number]> = [
        ['35 ms a key', 11, 53],
        ['35 ms a key with a 65 ms hitch every 15th key', 11, 53],
        ['80 ms a key', 11, 53],
        ['150 ms a key', 11, 53],
        ['human-like, seed 38 (the benchmark\'s)', 11, 123],
        ['human-like, seed 1', 13, 141],
        ['human-like, seed 2', 11, 138]
    ];
    for (const [rhythm, requests, debounce] of table) {
        const gap = RHYTHMS.find(([name]) => name === rhythm)![1];
        it(`${rhythm}, the benchmark's fake model (the rest of the line, ${FIRST_BYTE_MS} ms): ${requests} requests where a debounce trigger sends ${debounce}, some inside bursts`, () => {
            const timeline = benchTimeline(gap);
            const outcome = requestsAlong(timeline.keys, SETTINGS, restOfLine(FIRST_BYTE_MS));
            const count = counted(timeline, outcome);
            assert.deepEqual([count.script, count.debounceScript], [requests, debounce]);
            assert.ok(count.script <= count.debounceScript);
            const inside = outcome.sent.filter(request => request.key >= timeline.scriptFrom && !timeline.stops.includes(request.key));
            assert.ok(inside.length > 0, 'speculative requests inside bursts');
            assert.ok(inside.every(request => triggerDecision(timeline.keys[request.key].before, '') === 'eager'), 'only at eager contexts');
        });
    }
});

describe('speculation: a burst asks at its eager context, so the stop finds the answer under way or ready', () => {
    for (const [rhythm, gap] of RHYTHMS) {
        it(`${rhythm}: every line's first stop shows a suggestion, after the first line within 2 × the model's ${FIRST_BYTE_MS} ms, median ≤ 0.5 × a debounce trigger's ${DEBOUNCE_MS} + ${FIRST_BYTE_MS} ms`, () => {
            const timeline = benchTimeline(gap);
            const outcome = requestsAlong(timeline.keys, SETTINGS, restOfLine(FIRST_BYTE_MS));
            const waits = waitsAtStops(timeline, outcome);
            const first = firstStops(timeline).map(stop => waits[stop]);
            // The first line has no Enter before it: the pause rule asks there. Every other line's Enter asked ahead (replacing a
            // request the previous line's end asked at a human's slow key; the tighter bound is in the next tests).
            assert.ok(first[0] < PAUSE_MS && first.slice(1).every(wait => wait < 2 * FIRST_BYTE_MS), `waits at the lines' first stops: ${first.join(', ')}`);
            assert.ok(median(first) <= 0.5 * (DEBOUNCE_MS + FIRST_BYTE_MS), `median ${median(first)}`);
            // Every stop of the script shows a fitting suggestion, but after a member access where none is asked.
            const unserved = timeline.stops.filter((stop, index) => stop >= timeline.scriptFrom && waits[index] >= PAUSE_MS);
            assert.deepEqual(unserved.filter(stop => triggerDecision(timeline.keys[stop].before, '') !== 'suppress'), []);
        });
    }

    // The reuse check is a round trip to the backend: at 35 ms a key under load the next key comes before it returns.
    for (const probeMs of [0, 40, 80]) {
        for (const [rhythm, gap] of RHYTHMS) {
            it(`${rhythm}, the reuse check back after ${probeMs} ms: every Enter asks ahead, and every line after the first shows its first suggestion within the model's ${FIRST_BYTE_MS} ms + the check's`, () => {
                const timeline = benchTimeline(gap);
                const outcome = requestsAlong(timeline.keys, { ...SETTINGS, probeMs }, restOfLine(FIRST_BYTE_MS));
                const enters = timeline.keys.flatMap((key, index) => index >= timeline.scriptFrom && key.before === '' ? [index] : []);
                // A request asked ahead goes when its check is back, even if the editor left the position meanwhile.
                assert.deepEqual(enters.filter(enter => !outcome.sent.some(request => request.key === enter && request.t === timeline.keys[enter].t + probeMs)), []);
                // A request the previous line's end asked (after a human's slow key) gives way to the fresh line's: nothing holds it.
                const waits = waitsAtStops(timeline, outcome);
                const first = firstStops(timeline).map(stop => waits[stop]);
                assert.ok(first.slice(1).every(wait => wait <= FIRST_BYTE_MS + probeMs), `waits at the lines' first stops: ${first.join(', ')}`);
            });
        }
    }

    it('a request asked at a line\'s `;` after a slow key gives way at Enter: the fresh line asks at its keystroke, not when the old one answers', () => {
        // 80 ms a key, nothing eager before the `;` (the start credit is left); then a slow key: the line's end asks once the
        // burst paused (2 × 80 ms), the pause reaches the configured debounce (the budget grows) and Enter comes 320 ms after `;`.
        const line = 'return a + b;';
        const keys = [...line].map((_, i) => ({ t: i * 80, line: 0, before: line.slice(0, i + 1) }));
        const semicolon = keys.at(-1)!.t;
        keys.push({ t: semicolon + 320, line: 1, before: '' }, { t: semicolon + 1_500, line: 1, before: 'c' });
        const enter = keys.length - 2;
        const model = { latencyMs: FIRST_BYTE_MS, answer: (key: { before: string }) => key.before === '' ? 'const y = 2;' : '' };
        const outcome = requestsAlong(keys, SETTINGS, model);
        assert.deepEqual(outcome.sent.filter(request => request.key === enter - 1).map(request => request.t), [semicolon + 2 * 80], 'the line\'s end asked once the burst paused');
        // Not held until the `;` request answers (at `;` + 160 + 250 ms): Enter asks at its keystroke and its answer shows 250 ms later.
        assert.deepEqual(outcome.sent.filter(request => request.key === enter).map(request => request.t), [semicolon + 320]);
        assert.equal(outcome.shownAt.get(enter), semicolon + 320 + FIRST_BYTE_MS);
    });

    it('a burst with an eager context and room in the budget asks inside it, at that key', () => {
        const timeline = benchTimeline(() => 80);
        const outcome = requestsAlong(timeline.keys, SETTINGS, restOfLine(FIRST_BYTE_MS));
        // Lines without a stop on their fresh line: Enter is typed inside the burst, and its answer is the whole line.
        const enters = timeline.keys.flatMap((key, index) => index >= timeline.scriptFrom && key.before === '' && !timeline.stops.includes(index) ? [index] : []);
        assert.ok(enters.length >= 4);
        for (const enter of enters) {
            const burst = bursts(timeline).find(keys => keys.includes(enter))!;
            assert.ok(outcome.sent.some(request => burst.includes(request.key) && request.key === enter && request.t === timeline.keys[enter].t), `asked at Enter before line ${timeline.keys[enter].line}`);
        }
    });
});

describe('a pause still asks at once', () => {
    it('before the rhythm is known: the start credit asks ahead once, after `=`; the rest waits for the configured debounce', () => {
        const keys = ['x', 'x ', 'x =', 'x = ', 'x = 1', 'x = 1;'].map((before, index) => ({ t: index * 120, line: 0, before }));
        const sent = requestsAlong(keys, SETTINGS).sent;
        assert.deepEqual(sent.map(request => [keys[request.key].before, request.t - keys[request.key].t]), [['x =', 0], ['x = 1;', DEBOUNCE_MS]]);
    });

    for (const adaptive of [true, false]) {
        it(`adaptive debounce ${adaptive ? 'on' : 'off'}, a model whose answers never fit: a fresh-line stop asks at once while the budget has room, else once the burst paused or the budget grows`, () => {
            const timeline = benchTimeline(() => 80);
            const outcome = requestsAlong(timeline.keys, { ...SETTINGS, adaptive });
            const waits = timeline.stops.filter(key => key >= timeline.scriptFrom && timeline.keys[key].before === '')
                .map(stop => outcome.sent.find(request => request.key === stop)!.t - timeline.keys[stop].t);
            assert.ok(waits.every(wait => [0, Math.min(PAUSE_FACTOR * 80, DEBOUNCE_MS), DEBOUNCE_MS + 1].includes(wait)), waits.join(', '));
        });
    }

    for (const gap of [35, 80, 150]) {
        it(`at ${gap} ms a key, a model whose answers never fit: each fresh-line stop asks at its key, or ${PAUSE_FACTOR} × the gap after it, or once the budget grows`, () => {
            const timeline = benchTimeline(() => gap);
            const outcome = requestsAlong(timeline.keys, SETTINGS);
            for (const stop of timeline.stops.filter(key => key >= timeline.scriptFrom && timeline.keys[key].before === '')) {
                const asked = outcome.sent.find(request => request.key === stop);
                assert.ok(asked, `the fresh line before line ${timeline.keys[stop].line} asked`);
                assert.ok([0, Math.max(60, PAUSE_FACTOR * gap), DEBOUNCE_MS + 1].includes(asked.t - timeline.keys[stop].t), `after ${asked.t - timeline.keys[stop].t} ms`);
            }
        });
    }
});
