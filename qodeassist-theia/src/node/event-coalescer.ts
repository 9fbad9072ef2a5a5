import type { SessionEvent } from '@qodeassist/core';

/** How long streamed output may wait to travel with what follows; the chat renders at most every 50 ms anyway. */
export const COALESCE_MS = 32;

/**
 * The timing the two senders below share: what is held goes at once after a quiet interval (the
 * first token is not delayed), otherwise when the interval since the last send ends; `urgent`
 * sends at once. Nothing is sent after `dispose`.
 */
abstract class IntervalSender<H> {
    private held: H | undefined;
    private timer: ReturnType<typeof setTimeout> | undefined;
    private lastSent = -Infinity;
    private disposed = false;

    constructor(private readonly intervalMs: number, private readonly now: () => number) { }

    /** Sends what is held now. */
    flush(): void {
        clearTimeout(this.timer);
        this.timer = undefined;
        const held = this.held;
        if (held !== undefined) {
            this.held = undefined;
            this.lastSent = this.now();
            this.deliver(held);
        }
    }

    /** Drops what is held: the receiver is gone. */
    dispose(): void {
        this.disposed = true;
        clearTimeout(this.timer);
        this.timer = undefined;
        this.held = undefined;
    }

    /** Replaces what is held with `update(current)` and sends it when due. */
    protected hold(update: (current: H | undefined) => H, urgent = false): void {
        if (this.disposed) {
            return;
        }
        this.held = update(this.held);
        const wait = this.lastSent + this.intervalMs - this.now();
        if (urgent || wait <= 0) {
            this.flush();
        } else {
            this.timer ??= setTimeout(() => this.flush(), wait);
        }
    }

    protected abstract deliver(held: H): void;
}

/**
 * Holds a stream's text and thinking deltas for at most `intervalMs` and hands them on in one
 * call. A provider that sends a token per record would otherwise cost, per token, an RPC
 * message: encoding here, a socket frame, decoding and an event in the browser, all garbage the
 * browser has to collect while it renders. Any other event goes at once with the deltas held
 * before it, so tool calls, usage and the end keep their order and their timing. Adjacent deltas
 * of one kind and request are joined into one.
 */
/** Any event with a type: session events, and the chat's own (a user message, a history reset) that go at once. */
type TypedEvent = { type: string } | SessionEvent;

export class EventCoalescer<E extends TypedEvent> extends IntervalSender<E[]> {
    constructor(private readonly send: (events: E[]) => void, intervalMs = COALESCE_MS, now: () => number = () => performance.now()) {
        super(intervalMs, now);
    }

    push(events: readonly E[]): void {
        if (events.length > 0) {
            this.hold(held => events.reduce(join, held ?? []), events.some(event => !isDelta(event)));
        }
    }

    protected deliver(events: E[]): void {
        this.send(events);
    }
}

function join<E extends TypedEvent>(held: E[], event: E): E[] {
    const previous = held[held.length - 1];
    if (previous && isDelta(previous) && isDelta(event) && previous.type === event.type && previous.requestId === event.requestId
        && !(previous.type === 'ThinkingDelta' && previous.signature !== undefined)) {
        // A signature closes a thinking block; it travels on the joined delta as on the last one.
        held[held.length - 1] = { ...previous, ...event, text: previous.text + event.text };
    } else {
        held.push(event);
    }
    return held;
}

function isDelta(event: TypedEvent): event is Extract<SessionEvent, { type: 'TextDelta' | 'ThinkingDelta' }> {
    return event.type === 'TextDelta' || event.type === 'ThinkingDelta';
}

/**
 * Passes on the newest of a stream of values at most every `intervalMs`: the first at once, then
 * the latest of each interval when it ends. For a value that replaces the one before (a refactor's
 * whole proposal so far), where every intermediate one costs the receiver a full redraw.
 */
export class LatestValueThrottle<T> extends IntervalSender<{ value: T }> {
    constructor(private readonly send: (value: T) => void, intervalMs = COALESCE_MS, now: () => number = () => performance.now()) {
        super(intervalMs, now);
    }

    push(value: T): void {
        this.hold(() => ({ value }));
    }

    protected deliver({ value }: { value: T }): void {
        this.send(value);
    }
}
