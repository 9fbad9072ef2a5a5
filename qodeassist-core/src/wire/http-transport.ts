import { CancelledError, ErrorInfo, QodeAssistError } from './error-info';
import { HttpResponse, readAtMost, sendFollowingRedirects } from './http-request';
import { redactSecrets } from './redaction';
import { answerLimitError, DEFAULT_LIMITS, formatBytes, formatSeconds, LimitAdvice, raiseLimitAdvice, RequestLimits } from './request-limits';

export interface StreamTimeouts {
    /** From sending the request until response headers arrive. */
    connectMs: number;
    /** Longest silence allowed between two chunks of the body. */
    idleMs: number;
    /** The whole answer: from the first connection attempt to the last byte, retries and their waits included. */
    totalMs: number;
}

export interface RetryPolicy {
    /** Total attempts including the first one. */
    maxAttempts: number;
    baseDelayMs: number;
    maxDelayMs: number;
}

export interface HttpStreamRequest {
    url: string;
    headers: Record<string, string>;
    body: unknown;
    signal?: AbortSignal;
    timeouts?: Partial<StreamTimeouts>;
    /** Bytes the whole answer may bring (the max_answer_bytes limit); by default the built-in one. */
    maxAnswerBytes?: number;
    retry?: Partial<RetryPolicy>;
    /** Secret values to scrub from any error text. */
    secrets?: readonly string[];
    /** Told about each retry, for logs and tests. */
    onRetry?: (attempt: number, error: ErrorInfo, delayMs: number) => void;
    /** Says how to raise a limit that was hit, at the end of its error; by default the `[limits]` key and the setting. */
    limitAdvice?: LimitAdvice;
}

export const DEFAULT_TIMEOUTS: StreamTimeouts = {
    connectMs: DEFAULT_LIMITS.connectSeconds * 1000, idleMs: DEFAULT_LIMITS.idleSeconds * 1000, totalMs: DEFAULT_LIMITS.totalSeconds * 1000
};

/** The transport's timeouts for a request's limits (seconds to milliseconds). */
export function timeoutsFor(limits: RequestLimits): StreamTimeouts {
    return { connectMs: timerMs(limits.connectSeconds), idleMs: timerMs(limits.idleSeconds), totalMs: timerMs(limits.totalSeconds) };
}

/** Node's timers hold at most 2^31-1 ms (~24.8 days); a larger wait would fire at once, so "a huge number" means the longest. */
const MAX_TIMER_MS = 2_147_483_647;

function timerMs(seconds: number): number {
    return Math.min(seconds * 1000, MAX_TIMER_MS);
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 4_000 };

/** An error body is read this far and no further: the rest is cancelled, so an endless error page costs nothing. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The provider's detail shown in an error: enough for any real message. */
const MAX_ERROR_DETAIL_CHARS = 2_000;

/**
 * POSTs a JSON body and yields the response body as it arrives.
 * Failures before the first byte of a 2xx body are retried with capped exponential
 * backoff when they may be transient (network, 429, 5xx); nothing is retried after
 * the first byte, because the consumer has already seen part of the answer.
 * Four limits bound it: connect (per attempt), idle (between chunks), total (all of it) and
 * the answer's size; an error body is read to at most 64 KiB.
 */
export async function* streamHttpBody(request: HttpStreamRequest): AsyncGenerator<Uint8Array> {
    const timeouts = { ...DEFAULT_TIMEOUTS, ...definedOnly(request.timeouts) };
    const retry = { ...DEFAULT_RETRY, ...request.retry };
    const secrets = request.secrets ?? [];
    const limits = new AnswerLimits(timeouts, request.maxAnswerBytes ?? DEFAULT_LIMITS.maxAnswerBytes, request.limitAdvice ?? raiseLimitAdvice);
    const response = await connectWithRetry(request, limits, retry, secrets);
    yield* readBody(response, request.signal, limits);
}

function definedOnly(timeouts: Partial<StreamTimeouts> | undefined): Partial<StreamTimeouts> {
    return Object.fromEntries(Object.entries(timeouts ?? {}).filter(([, value]) => value !== undefined));
}

/** The limits of one answer as it runs: the total's deadline, its size, and the error each limit ends it with. */
class AnswerLimits {
    private readonly deadline: number;

    constructor(readonly timeouts: StreamTimeouts, readonly maxAnswerBytes: number, private readonly advice: LimitAdvice) {
        this.deadline = Date.now() + timeouts.totalMs;
    }

    get remainingMs(): number {
        return Math.max(0, this.deadline - Date.now());
    }

    /** How long a wait bounded by its own limit may last, and whether the total limit ends it first. */
    wait(ownMs: number): { ms: number; byTotal: boolean } {
        const remaining = this.remainingMs;
        return remaining < ownMs ? { ms: remaining, byTotal: true } : { ms: ownMs, byTotal: false };
    }

    total(): ErrorInfo {
        return { category: 'Network', message: `No answer finished within ${formatSeconds(this.timeouts.totalMs)} (the total limit). To wait longer, ${this.advice('totalSeconds')}` };
    }

    connect(url: string): ErrorInfo {
        return {
            category: 'Network',
            message: `No response from ${originOf(url)} within ${formatSeconds(this.timeouts.connectMs)} (the connect limit). Check that the provider is running and reachable; if it is only slow to start, ${this.advice('connectSeconds')}`
        };
    }

    answer(): QodeAssistError {
        return answerLimitError(this.maxAnswerBytes, this.advice);
    }

    idle(): ErrorInfo {
        return {
            category: 'Network',
            message: `The provider stopped sending for ${formatSeconds(this.timeouts.idleMs)} in the middle of an answer (the idle limit). Try again; if the model is only slow, ${this.advice('idleSeconds')}`
        };
    }
}

async function connectWithRetry(
    request: HttpStreamRequest, limits: AnswerLimits, retry: RetryPolicy, secrets: readonly string[]
): Promise<HttpResponse> {
    for (let attempt = 1; ; attempt++) {
        throwIfCancelled(request.signal);
        if (limits.remainingMs <= 0) {
            throw new QodeAssistError(limits.total());
        }
        const result = await connectOnce(request, limits, secrets);
        if (result.ok) {
            return result.response;
        }
        const error = result.error;
        if (!result.retryable || attempt >= retry.maxAttempts) {
            throw new QodeAssistError(error);
        }
        const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
        const delayMs = error.retryAfterSeconds !== undefined
            ? Math.min(retry.maxDelayMs, error.retryAfterSeconds * 1000)
            : backoff;
        if (delayMs >= limits.remainingMs) {
            // No time left for another attempt: the failure itself says more than the total limit would.
            throw new QodeAssistError(error);
        }
        request.onRetry?.(attempt, error, delayMs);
        await abortableDelay(delayMs, request.signal);
    }
}

type ConnectResult =
    | { ok: true; response: HttpResponse }
    | { ok: false; error: ErrorInfo; retryable: boolean };

async function connectOnce(request: HttpStreamRequest, limits: AnswerLimits, secrets: readonly string[]): Promise<ConnectResult> {
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort();
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    let timedOut = false;
    const wait = limits.wait(limits.timeouts.connectMs);
    const timer = setTimeout(() => { timedOut = true; controller.abort(); }, wait.ms);
    try {
        const body = JSON.stringify(request.body);
        const headers = { 'content-type': 'application/json', ...request.headers };
        const response = await sendFollowingRedirects({ method: 'POST', url: request.url, headers, body, signal: controller.signal });
        if (response.status < 200 || response.status > 299) {
            const error = await httpStatusError(response, request.url, secrets);
            request.signal?.removeEventListener('abort', onCallerAbort);
            return { ok: false, error, retryable: response.status === 429 || response.status >= 500 };
        }
        const close = () => {
            response.close();
            request.signal?.removeEventListener('abort', onCallerAbort);
        };
        return { ok: true, response: { ...response, close } };
    } catch (error) {
        request.signal?.removeEventListener('abort', onCallerAbort);
        throwIfCancelled(request.signal);
        if (timedOut) {
            return wait.byTotal ? { ok: false, retryable: false, error: limits.total() } : { ok: false, retryable: true, error: limits.connect(request.url) };
        }
        if (error instanceof QodeAssistError) {
            return { ok: false, retryable: false, error: error.info };
        }
        return { ok: false, retryable: true, error: classifyNetworkFailure(error, request.url) };
    } finally {
        clearTimeout(timer);
    }
}

async function* readBody(response: HttpResponse, signal: AbortSignal | undefined, limits: AnswerLimits): AsyncGenerator<Uint8Array> {
    let received = 0;
    try {
        for (;;) {
            throwIfCancelled(signal);
            // Checked before each read too: a stream that keeps trickling bytes never lets a timer fire.
            if (limits.remainingMs <= 0) {
                throw new QodeAssistError(limits.total());
            }
            const next = await readWithIdleTimeout(response, limits, signal);
            if (!next) {
                return;
            }
            // The chunk that crosses the limit is not passed on: the answer ends with what came within it.
            received += next.byteLength;
            if (received > limits.maxAnswerBytes) {
                throw limits.answer();
            }
            yield next;
        }
    } finally {
        response.close();
    }
}

async function readWithIdleTimeout(response: HttpResponse, limits: AnswerLimits, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const wait = limits.wait(limits.timeouts.idleMs);
    const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new QodeAssistError(wait.byTotal ? limits.total() : limits.idle())), wait.ms);
        onAbort = () => reject(new CancelledError());
        signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
        return await Promise.race([response.read(), idle]);
    } catch (error) {
        if (error instanceof QodeAssistError || error instanceof CancelledError) {
            throw error;
        }
        throwIfCancelled(signal);
        throw new QodeAssistError({
            category: 'Network',
            message: 'The connection to the provider broke in the middle of an answer. Try again.',
            providerDetail: describeCause(error)
        });
    } finally {
        clearTimeout(timer);
        if (onAbort) {
            signal?.removeEventListener('abort', onAbort);
        }
    }
}

/** The error of a response that is not a success, from at most 64 KiB of its body (the rest is left unread, and the detail says so). */
export async function httpStatusError(response: HttpResponse, url: string, secrets: readonly string[]): Promise<ErrorInfo> {
    const body = await readAtMost(response, MAX_ERROR_BODY_BYTES);
    const error = classifyHttpStatus(response.status, redactSecrets(new TextDecoder().decode(body.bytes), secrets), response.header('retry-after') ?? null, url);
    if (body.cut) {
        error.providerDetail = `${error.providerDetail ?? ''} (the error body was longer than ${formatBytes(MAX_ERROR_BODY_BYTES)}; the rest was not read)`.trim();
    }
    return error;
}

export function classifyHttpStatus(status: number, bodyText: string, retryAfter: string | null, url: string): ErrorInfo {
    const detail = providerMessage(bodyText);
    const retryAfterSeconds = parseRetryAfter(retryAfter);
    const where = originOf(url);
    if (status === 401 || status === 403) {
        return {
            category: 'Auth', status, providerDetail: detail,
            message: `${where} refused the credentials (HTTP ${status}). Set a valid API key for this provider and try again.`
        };
    }
    if (status === 400 || status === 422) {
        return {
            category: 'Validation', status, providerDetail: detail,
            message: `${where} rejected the request (HTTP ${status})${detail ? `: ${detail}` : ''}. Check the model name and the agent's request settings.`
        };
    }
    if (status === 404) {
        return {
            category: 'Config', status, providerDetail: detail,
            message: `${where} has no such endpoint or model (HTTP 404). Check the provider URL and the model name.`
        };
    }
    if (status === 429) {
        return {
            category: 'Provider', status, providerDetail: detail, retryAfterSeconds,
            message: `${where} is rate limiting requests (HTTP 429)${retryAfterSeconds !== undefined ? `; it asks to wait ${retryAfterSeconds} s` : ''}. Wait a moment and try again.`
        };
    }
    return {
        category: 'Provider', status, providerDetail: detail, retryAfterSeconds,
        message: `${where} failed to answer (HTTP ${status}). Try again later.`
    };
}

export function classifyNetworkFailure(error: unknown, url: string): ErrorInfo {
    const code = causeCode(error);
    const where = originOf(url);
    const reason = code === 'ECONNREFUSED' ? 'refused the connection'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'could not be resolved'
            : code?.startsWith('CERT_') || code?.includes('TLS') || code?.includes('SSL') ? 'failed the TLS handshake'
                : code === 'ECONNRESET' ? 'reset the connection'
                    : 'could not be reached';
    return {
        category: 'Network',
        message: `${where} ${reason}. Check that the provider is running and that the URL is right.`,
        providerDetail: describeCause(error)
    };
}

function providerMessage(bodyText: string): string | undefined {
    const message = providerMessageOf(bodyText.trim());
    return message !== undefined && message.length > MAX_ERROR_DETAIL_CHARS ? `${message.slice(0, MAX_ERROR_DETAIL_CHARS)}…` : message;
}

function providerMessageOf(trimmed: string): string | undefined {
    if (!trimmed) {
        return undefined;
    }
    try {
        const json = JSON.parse(trimmed) as { error?: { message?: unknown } | string; message?: unknown };
        if (typeof json.error === 'string') {
            return json.error;
        }
        if (json.error && typeof json.error.message === 'string') {
            return json.error.message;
        }
        if (typeof json.message === 'string') {
            return json.message;
        }
    } catch {
        // Not JSON: the text itself is the message.
    }
    return trimmed;
}

function parseRetryAfter(value: string | null): number | undefined {
    if (!value) {
        return undefined;
    }
    const seconds = Number(value);
    if (Number.isFinite(seconds) && seconds >= 0) {
        return seconds;
    }
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function causeCode(error: unknown): string | undefined {
    let current: unknown = error;
    for (let depth = 0; depth < 5 && current; depth++) {
        const code = (current as { code?: unknown }).code;
        if (typeof code === 'string') {
            return code;
        }
        current = (current as { cause?: unknown }).cause;
    }
    return undefined;
}

function describeCause(error: unknown): string {
    const code = causeCode(error);
    const message = error instanceof Error ? error.message : String(error);
    return code ? `${message} (${code})` : message;
}

function originOf(url: string): string {
    try {
        return new URL(url).origin;
    } catch {
        return url;
    }
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
    if (signal?.aborted) {
        throw new CancelledError();
    }
}

function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
        const onAbort = () => { clearTimeout(timer); reject(new CancelledError()); };
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
