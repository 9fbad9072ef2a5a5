/** Whether an automatic trigger should ask for a completion at the cursor, and how eagerly. */
export type TriggerDecision = 'eager' | 'normal' | 'suppress';

/**
 * How completion asks in a language: `automatic` while typing; `hint` (for paid APIs) only on the
 * Suggest Completion key or after a pause at an eager context; `off` never.
 */
export type TriggerMode = 'automatic' | 'hint' | 'off';

const OPENERS = /[{(,=[;:]\s*$/;

/**
 * Reads the text around the cursor like a user would: a fresh indented line or an opening
 * `{ ( , = [ ; :` wants a suggestion now; the middle of an identifier, or right after `.`,
 * `->` or `::` (where the language server's member list serves better) wants none.
 */
export function triggerDecision(lineBefore: string, lineAfter: string): TriggerDecision {
    if (/[\w$]$/.test(lineBefore) && /^[\w$]/.test(lineAfter)) {
        return 'suppress';
    }
    if (/(\.|->|::)[\w$]*$/.test(lineBefore)) {
        return 'suppress';
    }
    if (lineBefore.trim() === '' || OPENERS.test(lineBefore)) {
        return 'eager';
    }
    return 'normal';
}

/** Openers after which the typist goes on on the same line: the expression continues. */
const CONTINUING = /[(,=[]\s*$/;

/**
 * Whether an eager context is worth asking ahead, inside a burst of typing: a fresh line, or after `( , = [`, where
 * what the typist types next extends the same position. Not after `; { :` at the end of what is typed: the next key is
 * usually Enter, whose fresh line asks ahead itself, and a request under way at the old position would hold it (every
 * later key types ahead of that request and waits for its answer).
 */
export function asksAhead(lineBefore: string, lineAfter: string): boolean {
    return triggerDecision(lineBefore, lineAfter) === 'eager' && (lineBefore.trim() === '' || CONTINUING.test(lineBefore));
}

/**
 * Whether a request under way, asked on line `askedLine`, gives way to a request asked ahead at `line`: the cursor is on a
 * fresh line the typist opened elsewhere (Enter). Waiting for the old one's answer would hold the fresh line's request
 * (every later key types ahead of the old position and waits for it), and an answer for the end of a finished line is
 * seldom what the fresh line wants. A request under way on the same line is kept: typing on uses it.
 */
export function leftBehind(askedLine: number, line: number, lineBefore: string): boolean {
    return askedLine !== line && lineBefore.trim() === '';
}

/** The settings that choose a language's trigger mode. */
export interface TriggerModeSettings {
    /** qodeassist.completion.trigger */
    trigger: 'automatic' | 'hint';
    /** qodeassist.completion.languages: a mode per language id, winning over the rest. */
    languages: Readonly<Record<string, unknown>>;
    /** qodeassist.completion.disabledLanguages */
    disabledLanguages: readonly string[];
}

/** The mode of a language: its own entry in `languages`, else off when listed as disabled, else the global trigger. */
export function triggerModeFor(language: string, settings: TriggerModeSettings): TriggerMode {
    const own = settings.languages[language];
    if (own === 'automatic' || own === 'hint' || own === 'off') {
        return own;
    }
    if (own === false) {
        return 'off';
    }
    return settings.disabledLanguages.includes(language) ? 'off' : settings.trigger;
}

/** A hint-mode pause at an eager context: at least this long, longer than any gap counted as typing rhythm. */
export const HINT_PAUSE_MS = 600;

export interface TriggerInput {
    mode: TriggerMode;
    /** The user asked (the Suggest Completion key or command). */
    explicit: boolean;
    context: TriggerDecision;
    /** Characters typed in this editor since its last request. */
    typed: number;
    /** qodeassist.completion.minTypedChars */
    minTyped: number;
    debounceMs: number;
    /** The quiet time that ends a burst (TypingRhythm): an eager context asks then, at once. */
    eagerFloorMs: number;
    /** The request budget (RequestBudget) has room now and the context is worth asking ahead (asksAhead): an eager context asks at its keystroke, inside the burst. */
    speculate: boolean;
}

/**
 * What to do when the editor asks for a suggestion. `reuse`: show at once what costs no model request
 * (the cache, or a request under way the user is typing into) — every automatic trigger does that
 * first. `request`: then ask the model once the last keystroke is `quietMs` old (when the user types
 * on, the editor cancels the wait), if the request budget allows then (else once it grows, when the
 * quiet time reaches the configured debounce). An eager context asks at its keystroke while the budget
 * has room — speculation inside the burst, so the answer is under way or ready when the typist stops
 * and typing into it reuses it; otherwise once the typist's rhythm says the burst paused (TypingRhythm).
 */
export interface TriggerPlan {
    reuse: boolean;
    request: boolean;
    quietMs: number;
    /**
     * Asked ahead inside the burst: the request goes with this keystroke's text even when the next key comes while the
     * reuse check is still under way (at a fast typist's rhythm it always does) — the next keys type ahead into it.
     */
    ahead?: true;
    /** Why, for the completion log. */
    why: string;
}

export function triggerPlan(input: TriggerInput): TriggerPlan {
    if (input.mode === 'off') {
        return { reuse: false, request: false, quietMs: 0, why: 'completion is off for this language' };
    }
    if (input.explicit) {
        return { reuse: false, request: true, quietMs: 0, why: 'asked' };
    }
    if (input.mode === 'hint') {
        return input.context === 'eager'
            ? { reuse: true, request: true, quietMs: Math.max(HINT_PAUSE_MS, input.debounceMs), why: 'hint mode: a pause at an eager context' }
            : { reuse: true, request: false, quietMs: 0, why: 'hint mode: only the Suggest Completion key or a pause at an eager context asks' };
    }
    switch (input.context) {
        case 'suppress':
            return { reuse: true, request: false, quietMs: 0, why: 'inside a word or after a member access' };
        case 'eager':
            return input.speculate
                ? { reuse: true, request: true, quietMs: 0, ahead: true, why: 'eager context, asked ahead inside the burst (the request budget has room)' }
                : { reuse: true, request: true, quietMs: input.eagerFloorMs, why: 'eager context, once the burst of typing paused' };
        default:
            return input.typed < input.minTyped
                ? { reuse: true, request: false, quietMs: 0, why: `fewer than ${input.minTyped} characters typed since the last request` }
                : { reuse: true, request: true, quietMs: input.debounceMs, why: 'a pause in typing' };
    }
}
