import { triggerDecision, triggerPlan, TriggerMode } from './completion-trigger';
import { TypingRhythm } from './typing-rhythm';

/** One keystroke of a scripted typist: when, and the line around the cursor after it. */
export interface TimedKey {
    t: number;
    before: string;
    after: string;
}

/** A request the rule sends: after which key, and when. */
export interface SentRequest {
    key: number;
    t: number;
    why: string;
}

/**
 * Types `lines` one after the other (Enter between them), `gap(i)` ms before the i-th key, stopping `pauseMs`
 * after the keys that end at the columns in `stops` (0: on the fresh line, after Enter) and at each line's end.
 * `pauses`: the keys a stop follows.
 */
export function typeLines(lines: readonly string[], stops: readonly number[], gap: (index: number) => number, pauseMs: number): { keys: TimedKey[]; pauses: number[] } {
    const keys: TimedKey[] = [];
    const pauses: number[] = [];
    let t = 0;
    const press = (before: string, stop: boolean) => {
        t += keys.length === 0 ? 0 : gap(keys.length);
        keys.push({ t, before, after: '' });
        if (stop) {
            pauses.push(keys.length - 1);
            t += pauseMs - gap(keys.length);
        }
    };
    for (const [index, line] of lines.entries()) {
        if (index > 0) {
            press('', stops.includes(0));
        }
        for (let column = 1; column <= line.length; column++) {
            press(line.slice(0, column), stops.includes(column) || column === line.length);
        }
    }
    return { keys, pauses };
}

/**
 * What the inline completion provider (InlineCompletionContribution.provide) would send along a timeline, the
 * model's answers aside (no reuse): at each key the plan is made from the rhythm so far; its request goes when the
 * next key comes later than the plan's quiet time.
 */
export function requestsAlong(keys: readonly TimedKey[], settings: { configuredMs: number; adaptive: boolean; minTyped: number; mode?: TriggerMode }): SentRequest[] {
    const rhythm = new TypingRhythm();
    const sent: SentRequest[] = [];
    let typed = 0;
    for (const [index, key] of keys.entries()) {
        rhythm.keystroke(key.t);
        typed++;
        const timings = rhythm.timings(settings.configuredMs, settings.adaptive);
        const plan = triggerPlan({
            mode: settings.mode ?? 'automatic', explicit: false, context: triggerDecision(key.before, key.after), typed, minTyped: settings.minTyped,
            debounceMs: timings.debounceMs, eagerFloorMs: timings.eagerFloorMs
        });
        const next = keys[index + 1]?.t ?? Number.POSITIVE_INFINITY;
        if (plan.request && next - key.t > plan.quietMs) {
            sent.push({ key: index, t: key.t + plan.quietMs, why: plan.why });
            typed = 0;
        }
    }
    return sent;
}

/** Theia AI's rule, for comparison: a request after `debounceMs` of quiet, in every context. */
export function fixedDebounceRequests(keys: readonly TimedKey[], debounceMs: number): number {
    return keys.filter((key, index) => (keys[index + 1]?.t ?? Number.POSITIVE_INFINITY) - key.t > debounceMs).length;
}

/**
 * Seeded log-normal gaps (ms): `median` × e^(σ·z), z standard normal (Box–Muller over mulberry32), within
 * [min, max]. The benchmark's human-like typist (test/src/bench/typist-rhythms.ts) draws the same way.
 */
export function logNormalGaps(seed: number, median: number, sigma: number, bounds = { min: 30, max: 1_000 }): (index: number) => number {
    let state = seed >>> 0;
    const uniform = () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let x = Math.imul(state ^ (state >>> 15), 1 | state);
        x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
        return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
    };
    const drawn = new Map<number, number>();
    return index => {
        let gap = drawn.get(index);
        if (gap === undefined) {
            const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
            gap = Math.round(Math.min(bounds.max, Math.max(bounds.min, median * Math.exp(sigma * z))));
            drawn.set(index, gap);
        }
        return gap;
    };
}
