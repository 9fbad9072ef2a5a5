import { FRESH_LINE_STOP, PAUSE_MS, STOPS, TARGET_LINES, WARM_UP_LINE } from '@qodeassist/test/lib/bench/completion-script';
import { asksAhead, leftBehind, triggerDecision, triggerPlan, TriggerMode } from './completion-trigger';
import { RequestBudget } from './request-budget';
import { TypingRhythm } from './typing-rhythm';

/** One keystroke of a scripted typist: when, the target line it types (-1: the warm-up), and the line before the cursor after it. */
export interface TimedKey {
    t: number;
    line: number;
    before: string;
}

/** The benchmark's script as a key timeline: the warm-up line, then the target lines with their stops. */
export interface Timeline {
    keys: TimedKey[];
    /** The keys a stop follows (the typist waits PAUSE_MS for a suggestion). */
    stops: number[];
    /** The first key of the script proper (after the warm-up): what the benchmark counts. */
    scriptFrom: number;
}

/**
 * The key timeline `npm run bench:completion` types (test/src/bench/completion-benchmark.ts): the warm-up comment at the
 * rhythm, a pause, then every target line — Enter before each but the first (a stop on the fresh line every other line),
 * stops after STOPS characters — `gap(i)` ms after key i, PAUSE_MS more after a stop.
 */
export function benchTimeline(gap: (index: number) => number, lines: readonly string[] = TARGET_LINES): Timeline {
    const keys: TimedKey[] = [];
    const stops: number[] = [];
    let t = 0;
    let typed = 0;
    const press = (line: number, before: string) => {
        keys.push({ t, line, before });
        t += gap(typed++);
    };
    const stop = () => {
        stops.push(keys.length - 1);
        t += PAUSE_MS;
    };
    for (let column = 1; column <= WARM_UP_LINE.length; column++) {
        press(-1, WARM_UP_LINE.slice(0, column));
    }
    t += PAUSE_MS;
    const scriptFrom = keys.length;
    typed = 0;
    for (const [index, line] of lines.entries()) {
        if (index > 0) {
            press(index, '');
            if (FRESH_LINE_STOP(index)) {
                stop();
            }
        }
        for (let column = 1; column <= line.length; column++) {
            press(index, line.slice(0, column));
            if (STOPS.includes(column) && column < line.length) {
                stop();
            }
        }
    }
    return { keys, stops, scriptFrom };
}

/** A request the rule sends: after which key, when, and why. */
export interface SentRequest {
    key: number;
    t: number;
    why: string;
}

/** A stand-in for the model: the answer to a request asked after `key`, `latencyMs` later. */
export interface TimelineModel {
    latencyMs: number;
    answer(key: TimedKey): string;
}

/** The benchmark's fake model: the rest of the target line (nothing once it is whole), after its first byte. */
export function restOfLine(latencyMs: number, lines: readonly string[] = TARGET_LINES): TimelineModel {
    return { latencyMs, answer: key => key.line >= 0 && lines[key.line].startsWith(key.before) ? lines[key.line].slice(key.before.length) : '' };
}

interface Answer {
    line: number;
    before: string;
    text: string;
    readyAt: number;
}

export interface TimelineOutcome {
    sent: SentRequest[];
    /** Key index → when a suggestion that fits what was typed showed after it (before the next key). */
    shownAt: ReadonlyMap<number, number>;
}

/** How the rule is set, and how long the backend takes to answer a reuse check (the keystroke's round trip). */
export interface TimelineSettings {
    configuredMs: number;
    adaptive: boolean;
    minTyped: number;
    mode?: TriggerMode;
    /** ms from a key until its reuse check came back (0: at once); the next key may come first. */
    probeMs?: number;
}

/**
 * What the inline completion provider (InlineCompletionContribution.provide) sends along a timeline, and when a fitting
 * suggestion would show. At each key: what a cached answer or the request under way offers when the typed text is a start
 * of it (reuse: no request; the request under way is waited for — but a fresh line asking ahead replaces one from the line
 * it left, leftBehind); else the plan, made from the rhythm and the request budget so far. Its request goes once the reuse
 * check came back (`probeMs`) and the plan's quiet time passed — or, when the budget has no room then, once the quiet time
 * reaches the configured debounce — unless the next key comes first; a request asked ahead goes even then (plan.ahead).
 * A new request replaces the one under way (the engine cancels it). Without a model every request answers nothing at once.
 */
export function requestsAlong(keys: readonly TimedKey[], settings: TimelineSettings, model?: TimelineModel): TimelineOutcome {
    const rhythm = new TypingRhythm();
    const budget = new RequestBudget();
    const sent: SentRequest[] = [];
    const answers: Answer[] = [];
    const shownAt = new Map<number, number>();
    let typed = 0;
    for (const [index, key] of keys.entries()) {
        rhythm.keystroke(key.t);
        budget.edited(key.t, settings.configuredMs);
        typed++;
        const next = keys[index + 1]?.t ?? Number.POSITIVE_INFINITY;
        const under = (answer: Answer) => answer.line === key.line && key.before.startsWith(answer.before);
        const fits = (answer: Answer) => under(answer) && answer.text.startsWith(key.before.slice(answer.before.length)) && answer.text.length > key.before.length - answer.before.length;
        // Reuse: an answer back already (the cache), else the request under way when what is typed extends where it was asked (waited for).
        if (answers.some(answer => answer.readyAt <= key.t && fits(answer))) {
            shownAt.set(index, key.t);
            continue;
        }
        const timings = rhythm.timings(settings.configuredMs, settings.adaptive);
        const plan = triggerPlan({
            mode: settings.mode ?? 'automatic', explicit: false, context: triggerDecision(key.before, ''), typed, minTyped: settings.minTyped,
            debounceMs: timings.debounceMs, eagerFloorMs: timings.eagerFloorMs, speculate: asksAhead(key.before, '') && budget.allows(key.t, settings.configuredMs)
        });
        let running = answers.at(-1);
        if (running && running.readyAt > key.t && plan.ahead && leftBehind(running.line, key.line, key.before)) {
            // The engine cancels it: its answer is lost.
            answers.pop();
            running = undefined;
        }
        // The script only appends: every later key types ahead of the request under way, on its line or past it (the engine
        // compares the whole document before the cursor), and its reuse check waits for that answer.
        let from = key.t;
        if (running && running.readyAt > key.t) {
            from = running.readyAt;
            if (fits(running)) {
                if (from < next) {
                    shownAt.set(index, from);
                }
                continue;
            }
        }
        const checked = from + (settings.probeMs ?? 0);
        // The next key came before the reuse check returned: the editor left the position, and only a request asked ahead goes.
        if (!plan.request || (checked >= next && !plan.ahead)) {
            continue;
        }
        let at = Math.max(checked, key.t + plan.quietMs);
        if (!plan.ahead && at < next && !budget.allows(at, settings.configuredMs)) {
            const grows = budget.growsIn(at, settings.configuredMs);
            at = grows === undefined ? Number.POSITIVE_INFINITY : at + grows + 1;
        }
        if ((at >= next && !plan.ahead) || !budget.spend(at, settings.configuredMs)) {
            continue;
        }
        sent.push({ key: index, t: at, why: plan.why });
        typed = 0;
        // The engine cancels the request under way: an answer not back yet is lost.
        for (let i = answers.length - 1; i >= 0; i--) {
            if (answers[i].readyAt > at) {
                answers.splice(i, 1);
            }
        }
        const text = model?.answer(key) ?? '';
        const readyAt = at + (model?.latencyMs ?? 0);
        answers.push({ line: key.line, before: key.before, text, readyAt });
        if (text && readyAt < next) {
            shownAt.set(index, readyAt);
        }
    }
    return { sent, shownAt };
}

/** Per stop: ms from its key to a fitting suggestion; the whole pause when none showed. */
export function waitsAtStops(timeline: Timeline, outcome: TimelineOutcome): number[] {
    return timeline.stops.filter(stop => stop >= timeline.scriptFrom).map(stop => {
        const shown = outcome.shownAt.get(stop);
        return shown === undefined ? PAUSE_MS : shown - timeline.keys[stop].t;
    });
}

/** Theia AI's rule, for comparison: a request after `debounceMs` of quiet, in every context. */
export function fixedDebounceRequests(keys: readonly TimedKey[], debounceMs: number): number {
    return keys.filter((key, index) => (keys[index + 1]?.t ?? Number.POSITIVE_INFINITY) - key.t >= debounceMs).length;
}
