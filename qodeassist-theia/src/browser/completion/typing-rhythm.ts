/** The bounds of the adaptive debounce (ms): never sooner than a fast typist's gap, never longer than a pause anyone notices. */
export const DEBOUNCE_BOUNDS = { min: 100, max: 600 } as const;
/** The eager floor's bound (ms): at most the time a model needs to start answering, so waiting it never doubles the wait. */
export const EAGER_FLOOR_MAX = 150;
/** A gap this long or longer is a pause, not the rhythm of typing: it is left out. */
export const PAUSE_GAP_MS = 1_000;
/** Gaps remembered (a moving window: the rhythm follows a user who slows down or warms up). */
export const RHYTHM_WINDOW = 50;
/** The debounce is this many times the 75th-percentile gap. */
export const DEBOUNCE_FACTOR = 1.5;
/** Gaps needed before the rhythm is trusted; until then the configured debounce applies and eager contexts ask at once. */
export const MIN_GAPS = 8;

export interface RhythmTimings {
    /** Quiet time after a keystroke before a completion is asked for in an ordinary context. */
    debounceMs: number;
    /** Quiet time after a keystroke at an eager context (a fresh line, after `{ ( , = [ ; :`). */
    eagerFloorMs: number;
    /** Whether these follow the typing (false: the configured debounce, eager contexts at once). */
    adaptive: boolean;
}

/**
 * The user's typing rhythm as a moving window of the gaps between keystrokes (Tabby-style).
 * The debounce is 1.5 × the 75th-percentile gap, within 100–600 ms. Gaps inside a burst of typing are
 * roughly log-normal (σ ≈ 0.35 for a practised typist), so that is about 1.9 × the median gap and
 * longer than ~97 % of them: a request goes when the typist has stopped, not between two keys (Tabby
 * waits 1.5–3 × the mean gap). At an eager context the wait is only the 90th-percentile gap itself
 * (at most 150 ms): nine of ten keys of ongoing typing come sooner, so a request goes only when the
 * typist has paused there, not when the next key was merely a little late — a request sent while
 * typing goes on would be replaced at once.
 */
export class TypingRhythm {
    private readonly gaps: number[] = [];
    private last: number | undefined;

    /** A keystroke at time `t` (ms, monotonic). */
    keystroke(t: number): void {
        if (this.last !== undefined) {
            const gap = t - this.last;
            if (gap > 0 && gap < PAUSE_GAP_MS) {
                this.gaps.push(gap);
                if (this.gaps.length > RHYTHM_WINDOW) {
                    this.gaps.shift();
                }
            }
        }
        this.last = t;
    }

    /** The timings to use now; `configuredMs` is qodeassist.completion.debounceMs, used alone when not adaptive or too little is known. */
    timings(configuredMs: number, adaptive: boolean): RhythmTimings {
        if (!adaptive) {
            return { debounceMs: configuredMs, eagerFloorMs: 0, adaptive: false };
        }
        if (this.gaps.length < MIN_GAPS) {
            return { debounceMs: configuredMs, eagerFloorMs: 0, adaptive: false };
        }
        return {
            debounceMs: Math.round(clamp(DEBOUNCE_FACTOR * percentile(this.gaps, 0.75), DEBOUNCE_BOUNDS.min, DEBOUNCE_BOUNDS.max)),
            eagerFloorMs: Math.round(Math.min(percentile(this.gaps, 0.9), EAGER_FLOOR_MAX)),
            adaptive: true
        };
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
