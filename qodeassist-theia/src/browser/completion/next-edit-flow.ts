/** Chained asks after applied suggestions, at most, before the user types again. */
export const MAX_CHAINED_ASKS = 5;

/**
 * The chain of suggestions after Tab: an applied suggestion asks for the next one at once (the edit
 * just applied is the newest recent edit, so a rename offers its next use), without waiting for a
 * pause. Bounded: at most `max` asks until the user types again; Esc ends the chain.
 */
export class SuggestionChain {
    private asked = 0;
    private ended = false;

    constructor(private readonly max = MAX_CHAINED_ASKS) { }

    /** A suggestion was applied: whether to ask for the next one now (and counts that ask). */
    applied(): boolean {
        if (this.ended || this.asked >= this.max) {
            return false;
        }
        this.asked++;
        return true;
    }

    /** The asks made since the user last typed (for the log: `chained 2/5`). */
    get length(): number {
        return this.asked;
    }

    /** Esc: no more chained asks until the user types again. */
    dismissed(): void {
        this.ended = true;
    }

    /** The user (or anything but our own apply) changed a file: a new chain may start. */
    typed(): void {
        this.asked = 0;
        this.ended = false;
    }
}

/** What a change of a file's text does to the suggestion for that file. */
export interface ChangeEffect {
    /** Remove the suggestion shown for the file: its offsets are for a text that is gone. */
    drop: boolean;
    /** Cancel the request under way for the file: its answer would be for that text too. */
    cancel: boolean;
    /** Ask again after the pause. */
    ask: boolean;
}

/**
 * Only our own apply leaves things as they are (it is followed by a chained ask). Any other change —
 * typing, a chat agent's write, a formatter, a reload from disk — makes what is shown or asked stale;
 * a reload is not an edit of the user's to continue, so it brings no new ask.
 */
export function effectOfChange(change: { own: boolean; reload: boolean }): ChangeEffect {
    if (change.own) {
        return { drop: false, cancel: false, ask: false };
    }
    return { drop: true, cancel: true, ask: !change.reload };
}
