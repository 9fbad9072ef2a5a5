/** Requests the budget holds at the start: one, so the first pause of a session need not wait for the debounce. */
export const START_CREDIT = 1;
/** Unspent requests kept at most: over any stretch of typing, at most this many more than a debounce trigger sends. */
export const CREDIT_CAP = 2;

/** What the budget has counted so far, for the completion status popover. */
export interface BudgetFigures {
    /** Automatic requests sent (cache hits and reuse of a request under way given back). */
    sent: number;
    /** Requests a plain debounce trigger at the configured debounce would have sent over the same edits. */
    debounceWouldSend: number;
    /** Requests that may go now without waiting for the quiet time to reach the debounce. */
    credit: number;
}

/**
 * The request budget of automatic completion (issue #38): never more requests than a plain debounce trigger — one
 * request each time the quiet time after an edit reaches the configured debounce, as Theia AI's code completion asks —
 * would send over the same edits, whatever the typing rhythm and however good the model's guesses.
 *
 * A token bucket: each such pause earns one request, each request sent spends one, at most CREDIT_CAP are kept, and
 * START_CREDIT are there at the start. So since the start, requests ≤ the debounce trigger's + START_CREDIT, and over any
 * stretch of typing ≤ its count there + CREDIT_CAP. The credit a pause earns but does not spend (the suggestion came from the
 * cache, or from a request under way) pays for a speculative request inside the next burst. Times are ms, monotonic.
 */
export class RequestBudget {
    private credit = START_CREDIT;
    private sent = 0;
    private earned = 0;
    private lastEdit: number | undefined;
    /** Whether the pause after the last edit was counted already. */
    private pauseCounted = false;

    /** The document changed at `t` (any edit, as any edit restarts a debounce trigger's wait). */
    edited(t: number, debounceMs: number): void {
        this.settle(t, debounceMs);
        this.lastEdit = t;
        this.pauseCounted = false;
    }

    /** Whether a request may go at `t`. */
    allows(t: number, debounceMs: number): boolean {
        this.settle(t, debounceMs);
        return this.credit >= 1;
    }

    /** How long from `t` until the budget grows (the quiet time reaches the debounce); undefined when the pause counted already. */
    growsIn(t: number, debounceMs: number): number | undefined {
        this.settle(t, debounceMs);
        return this.pauseCounted || this.lastEdit === undefined ? undefined : Math.max(0, this.lastEdit + debounceMs - t);
    }

    /** A request went at `t`; false (and nothing spent) when the budget did not allow it. */
    spend(t: number, debounceMs: number): boolean {
        if (!this.allows(t, debounceMs)) {
            return false;
        }
        this.credit--;
        this.sent++;
        return true;
    }

    /** The request spent for turned out to cost nothing (the backend answered from its cache or a request under way). */
    refund(): void {
        this.credit = Math.min(CREDIT_CAP, this.credit + 1);
        this.sent--;
    }

    figures(t: number, debounceMs: number): BudgetFigures {
        this.settle(t, debounceMs);
        return { sent: this.sent, debounceWouldSend: this.earned, credit: this.credit };
    }

    /** Counts the pause after the last edit once the quiet time reached the debounce. */
    private settle(t: number, debounceMs: number): void {
        if (this.lastEdit !== undefined && !this.pauseCounted && t - this.lastEdit >= debounceMs) {
            this.pauseCounted = true;
            this.earned++;
            this.credit = Math.min(CREDIT_CAP, this.credit + 1);
        }
    }
}
