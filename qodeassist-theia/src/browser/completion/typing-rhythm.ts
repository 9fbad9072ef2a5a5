/** The bounds of the adaptive debounce (ms): never sooner than a fast typist's gap, never longer than a pause anyone notices. */
export const DEBOUNCE_BOUNDS = { min: 100, max: 600 } as const;
/** A gap this long or longer is a pause, not the rhythm of typing: it is left out. */
export const PAUSE_GAP_MS = 1_000;
/**
 * A gap shorter than this (ms) is no typist's: keys that queued on a busy renderer and arrived bunched. It is left out,
 * or it would pull the median down and end bursts too soon.
 */
export const MIN_GAP_MS = 20;
/** Gaps remembered (a moving window: the rhythm follows a user who slows down or warms up). */
export const RHYTHM_WINDOW = 50;
/** The debounce is this many times the 75th-percentile gap. */
export const DEBOUNCE_FACTOR = 1.5;
/** The burst has paused once the quiet time is this many times the typist's median gap. */
export const PAUSE_FACTOR = 2;
/** ... and never sooner than this (ms): a hitch of the browser between two keys is not a pause. */
export const PAUSE_FLOOR_MS = 60;
/** Gaps needed before the rhythm is trusted; until then the configured debounce applies everywhere. */
export const MIN_GAPS = 8;

/** What the rhythm reads of a document change (Monaco's IModelContentChangedEvent has it). */
export interface DocumentChange {
    isUndoing: boolean;
    isRedoing: boolean;
    isFlush: boolean;
    changes: ReadonlyArray<{ text: string }>;
}

/**
 * A keystroke of the typist: one small change (a character, an auto-closed pair, a deletion, Enter with its indent) in the
 * document they type in (`typedInto`: a file whose editor has the focus) — not a paste, an undo or an accepted suggestion,
 * and no change of another model. The completion log is one: once it holds `output.maxChannelHistory` lines, each line
 * written deletes its first one, a one-change edit that looks like a key; counted, every reuse check's log line split the
 * gap it fell in, halving the median gap and with it the pause (measured in the benchmark: 103 ms against 211 typed).
 */
export function isKeystroke(event: DocumentChange, typedInto: boolean): boolean {
    if (!typedInto || event.isUndoing || event.isRedoing || event.isFlush || event.changes.length !== 1) {
        return false;
    }
    const text = event.changes[0].text;
    return text.length <= 2 || /^\r?\n[ \t]*$/.test(text);
}

export interface RhythmTimings {
    /** Quiet time after a keystroke before a completion is asked for in an ordinary context. */
    debounceMs: number;
    /**
     * Quiet time after a keystroke at an eager context (a fresh line, after `{ ( , = [ ; :`): the moment the typist's
     * own rhythm says the burst paused, when the request budget has no room to ask at the keystroke. Never 0 while the
     * rhythm is unknown.
     */
    eagerFloorMs: number;
    /** Whether the debounce follows the typing (false: the configured debounce). */
    adaptive: boolean;
}

/**
 * The user's typing rhythm as a moving window of the gaps between keystrokes (Tabby-style).
 *
 * The rhythm says when a burst of typing paused; only the request budget (RequestBudget) lets an eager context ask
 * inside one (issue #38: every request costs prompt tokens, even when the next key cancels it). The burst has paused when the quiet time reaches 2 × the typist's median gap (at least 60 ms):
 * gaps within a burst are roughly log-normal (σ ≈ 0.35 for a practised typist, ≈ 0.5 for most), so about 2–8 % of
 * them are that long, against 10 % or more for the 90th-percentile floor used before. Eager contexts ask then, at once;
 * ordinary ones wait the debounce, 1.5 × the 75th-percentile gap (≈ 1.9–2.1 × the median) within 100–600 ms and
 * never sooner than the pause. Tabby waits 1.5–3 × the mean gap.
 */
export class TypingRhythm {
    private readonly gaps: number[] = [];
    private last: number | undefined;

    /** A keystroke at time `t` (ms, monotonic). */
    keystroke(t: number): void {
        if (this.last !== undefined) {
            const gap = t - this.last;
            if (gap >= MIN_GAP_MS && gap < PAUSE_GAP_MS) {
                this.gaps.push(gap);
                if (this.gaps.length > RHYTHM_WINDOW) {
                    this.gaps.shift();
                }
            }
        }
        this.last = t;
    }

    /**
     * The timings to use now; `configuredMs` is qodeassist.completion.debounceMs. Not adaptive: it is the debounce,
     * and eager contexts still wait for the pause (at most it). Too little known: it applies everywhere.
     */
    timings(configuredMs: number, adaptive: boolean): RhythmTimings {
        if (this.gaps.length < MIN_GAPS) {
            return { debounceMs: configuredMs, eagerFloorMs: configuredMs, adaptive: false };
        }
        const pause = Math.min(DEBOUNCE_BOUNDS.max, Math.max(PAUSE_FLOOR_MS, PAUSE_FACTOR * percentile(this.gaps, 0.5)));
        if (!adaptive) {
            return { debounceMs: configuredMs, eagerFloorMs: Math.round(Math.min(pause, configuredMs)), adaptive: false };
        }
        const debounce = clamp(Math.max(DEBOUNCE_FACTOR * percentile(this.gaps, 0.75), pause), DEBOUNCE_BOUNDS.min, DEBOUNCE_BOUNDS.max);
        return { debounceMs: Math.round(debounce), eagerFloorMs: Math.round(pause), adaptive: true };
    }

    get sampleCount(): number {
        return this.gaps.length;
    }
}

function clamp(value: number, min: number, max: number): number {
    return Math.max(min, Math.min(max, value));
}

/** The nearest-rank percentile (no interpolation: a gap that really happened). */
function percentile(values: readonly number[], p: number): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
