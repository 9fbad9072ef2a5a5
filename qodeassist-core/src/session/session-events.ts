import { ContextManifest } from '../context/context-manifest';
import { ErrorInfo } from '../wire/error-info';
import { RequestId, ResponseEvent, StopReason, Usage } from '../wire/events';
import { UsageCost } from '../config/pricing';

export interface RequestStarted {
    type: 'RequestStarted';
    requestId: RequestId;
    /** The agent and model answering, for the UI. */
    agent?: string;
    model?: string;
}

/** What the assembler put into this request: the token counter and the manifest popover read it. */
export interface ManifestEvent {
    type: 'Manifest';
    requestId: RequestId;
    manifest: ContextManifest;
}

export interface RequestFinished {
    type: 'Finished';
    requestId: RequestId;
    stopReason: StopReason;
}

export interface RequestFailed {
    type: 'Failed';
    requestId: RequestId;
    error: ErrorInfo;
}

export interface RequestCancelled {
    type: 'Cancelled';
    requestId: RequestId;
}

/** A request's usage as the session tells it: which request of the turn's tool loop it is, and its cost when the agent's model has a price. */
export interface PricedUsage extends Usage {
    /** From 0: a turn's tool loop makes one request per round; a later report for the same round replaces the earlier. */
    round?: number;
    cost?: UsageCost;
}

/** What a session tells its owner: the wire events of a request, framed by its start and exactly one terminal event. */
export type SessionEvent = RequestStarted | ManifestEvent | Exclude<ResponseEvent, Usage> | PricedUsage | RequestFinished | RequestFailed | RequestCancelled;

export type TerminalEvent = RequestFinished | RequestFailed | RequestCancelled;

export function isTerminal(event: SessionEvent): event is TerminalEvent {
    return event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled';
}

/** How a request ended, as a feature waiting for it needs to know. */
export interface RequestEnd {
    error?: ErrorInfo;
    cancelled?: boolean;
}

/**
 * A promise of a request's end, and the observer that settles it: pass every session event
 * to `observe`; the first terminal event settles `ended`.
 */
export function requestEnd(): { ended: Promise<RequestEnd>; observe(event: SessionEvent): void } {
    let settle!: (end: RequestEnd) => void;
    const ended = new Promise<RequestEnd>(resolve => { settle = resolve; });
    return {
        ended,
        observe: event => {
            if (event.type === 'Finished') {
                settle({});
            } else if (event.type === 'Cancelled') {
                settle({ cancelled: true });
            } else if (event.type === 'Failed') {
                settle({ error: event.error });
            }
        }
    };
}
