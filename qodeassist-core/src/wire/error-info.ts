/** The six categories of docs/ARCHITECTURE.md §4; the category decides the UI affordance. */
export const ERROR_CATEGORIES = ['Config', 'Auth', 'Network', 'Provider', 'Validation', 'Tool'] as const;
export type ErrorCategory = typeof ERROR_CATEGORIES[number];

export interface ErrorInfo {
    category: ErrorCategory;
    /** What went wrong and what to do about it, in plain words. */
    message: string;
    /** What the provider said, already redacted. */
    providerDetail?: string;
    /** HTTP status when the provider answered with one. */
    status?: number;
    /** From a `retry-after` header, in seconds. */
    retryAfterSeconds?: number;
    /** The provider instance the error is about, when known (an Auth error: whose key to set). */
    provider?: string;
    /** The limit that stopped the request, when one did (ACP reports the tool-round limit as the max_turn_requests stop reason). */
    limit?: 'maxToolRounds';
}

/** Carries an ErrorInfo through code that throws; callers match on `info.category`, never on text. */
export class QodeAssistError extends Error {
    constructor(readonly info: ErrorInfo) {
        super(info.message);
        this.name = 'QodeAssistError';
    }
}

/** Thrown when the caller's AbortSignal fired: cancellation is not an error and is reported apart. */
export class CancelledError extends Error {
    constructor() {
        super('The request was cancelled.');
        this.name = 'CancelledError';
    }
}

export function isCancelled(error: unknown): error is CancelledError {
    return error instanceof CancelledError;
}

/** The promise's value, or CancelledError as soon as the signal aborts: waiting on something nobody will settle must not hold a cancelled caller. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) {
        return promise;
    }
    if (signal.aborted) {
        return Promise.reject(new CancelledError());
    }
    return new Promise<T>((resolve, reject) => {
        const abort = () => reject(new CancelledError());
        signal.addEventListener('abort', abort, { once: true });
        promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    });
}

/** Any thrown value as an ErrorInfo; unknown exceptions are Provider errors with their message kept. */
export function toErrorInfo(error: unknown): ErrorInfo {
    if (error instanceof QodeAssistError) {
        return error.info;
    }
    const message = error instanceof Error ? error.message : String(error);
    return { category: 'Provider', message: `Unexpected failure: ${message}` };
}
