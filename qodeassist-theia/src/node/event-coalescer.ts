import type { SessionEvent } from '@qodeassist/core';

/** How long text deltas may wait to travel with the next ones; the chat renders at most every 50 ms anyway. */
export const COALESCE_MS = 32;

/**
 * Holds a stream's text and thinking deltas for at most `intervalMs` and hands them on in one
 * call. A provider that sends a token per record would otherwise cost, per token, an RPC
 * message: encoding here, a socket frame, decoding and an event in the browser, all garbage the
 * browser has to collect while it renders. Deltas after a quiet interval go at once, so the
 * first token is not delayed; any other event goes at once with the deltas held before it, so
 * tool calls, usage and the end keep their order and their timing. Adjacent deltas of one kind
 * and request are joined into one.
 */
export class EventCoalescer<E extends SessionEvent> {
    private held: E[] = [];
    private timer: ReturnType<typeof setTimeout> | undefined;
    private lastSent = -Infinity;
    private disposed = false;

    constructor(
        private readonly send: (events: E[]) => void,
        private readonly intervalMs = COALESCE_MS,
        private readonly now: () => number = () => performance.now()
    ) { }

    push(events: readonly E[]): void {
        if (this.disposed) {
            return;
        }
        let urgent = false;
        for (const event of events) {
            urgent ||= !isDelta(event);
            this.hold(event);
        }
        const wait = this.lastSent + this.intervalMs - this.now();
        if (urgent || wait <= 0) {
            this.flush();
        } else {
            this.timer ??= setTimeout(() => this.flush(), wait);
        }
    }

    /** Sends what is held now. */
    flush(): void {
        clearTimeout(this.timer);
        this.timer = undefined;
        if (this.held.length > 0) {
            const events = this.held;
            this.held = [];
            this.lastSent = this.now();
            this.send(events);
        }
    }

    /** Drops what is held: the receiver is gone. */
    dispose(): void {
        this.disposed = true;
        clearTimeout(this.timer);
        this.timer = undefined;
        this.held = [];
    }

    private hold(event: E): void {
        const previous = this.held[this.held.length - 1];
        if (previous && isDelta(previous) && isDelta(event) && previous.type === event.type && previous.requestId === event.requestId
            && !(previous.type === 'ThinkingDelta' && previous.signature !== undefined)) {
            // A signature closes a thinking block; it travels on the joined delta as on the last one.
            this.held[this.held.length - 1] = { ...previous, ...event, text: previous.text + event.text };
        } else {
            this.held.push(event);
        }
    }
}

function isDelta(event: SessionEvent): event is Extract<SessionEvent, { type: 'TextDelta' | 'ThinkingDelta' }> {
    return event.type === 'TextDelta' || event.type === 'ThinkingDelta';
}

/**
 * Passes on the newest of a stream of values at most every `intervalMs`: the first at once, then
 * the latest of each interval when it ends. For a value that replaces the one before (a refactor's
 * whole proposal so far), where every intermediate one costs the receiver a full redraw.
 */
export class LatestValueThrottle<T> {
    private held: { value: T } | undefined;
    private timer: ReturnType<typeof setTimeout> | undefined;
    private lastSent = -Infinity;

    constructor(
        private readonly send: (value: T) => void,
        private readonly intervalMs = COALESCE_MS,
        private readonly now: () => number = () => performance.now()
    ) { }

    push(value: T): void {
        this.held = { value };
        const wait = this.lastSent + this.intervalMs - this.now();
        if (wait <= 0) {
            this.flush();
        } else {
            this.timer ??= setTimeout(() => this.flush(), wait);
        }
    }

    /** Sends the held value now, if there is one. */
    flush(): void {
        clearTimeout(this.timer);
        this.timer = undefined;
        if (this.held) {
            const { value } = this.held;
            this.held = undefined;
            this.lastSent = this.now();
            this.send(value);
        }
    }

    /** Drops the held value. */
    dispose(): void {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.held = undefined;
    }
}
