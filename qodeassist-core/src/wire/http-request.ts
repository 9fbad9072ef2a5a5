import { ClientRequest, IncomingMessage, request as plainRequest } from 'node:http';
import { request as tlsRequest } from 'node:https';
import { pipeline, Readable } from 'node:stream';
import { constants, createBrotliDecompress, createUnzip } from 'node:zlib';
import { QodeAssistError } from './error-info';
import { HTTP_AGENT, HTTPS_AGENT } from './read-buffer-agents';

/** One HTTP request as the transport sends it. */
export interface HttpCall {
    method: 'GET' | 'POST';
    url: string;
    headers: Readonly<Record<string, string>>;
    body?: string;
    /** Aborting it closes the connection, whether the answer has started or not. */
    signal: AbortSignal;
}

/** A response whose headers have arrived; its body is pulled one network chunk at a time. */
export interface HttpResponse {
    status: number;
    /** A response header (case-insensitive name); several values are joined with ", ". */
    header(name: string): string | undefined;
    /** The next piece of the body as it came off the network (decompressed if it was compressed), or undefined at its end. Rejects when the connection breaks. */
    read(): Promise<Uint8Array | undefined>;
    /** Stops reading: the connection is closed, not handed back to the keep-alive pool. */
    close(): void;
}

/** The bytes that may wait for the reader: Node's stream buffers ~16 KiB more, then the socket stops reading (TCP backpressure). */
const QUEUED_CHUNKS = 1;

/**
 * Lenient, as fetch is: a body cut before its gzip trailer, or empty, gives what it holds instead of
 * failing at its end (the whole answer may have arrived); `deflate` is read zlib-wrapped (the
 * standard; a gzip body under that name is read too). Raw deflate, which no provider sends, is not.
 */
const ZLIB_LENIENT = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH };
const DECOMPRESSORS: Readonly<Record<string, () => NodeJS.ReadWriteStream>> = {
    gzip: () => createUnzip(ZLIB_LENIENT), 'x-gzip': () => createUnzip(ZLIB_LENIENT), deflate: () => createUnzip(ZLIB_LENIENT),
    br: () => createBrotliDecompress(BROTLI_LENIENT)
};

/**
 * Sends a request with Node's own HTTP client and resolves once the response headers arrive.
 * Chosen over `fetch` because its body reaches us as the chunks Node's HTTP parser copies out of
 * each network read, nothing more: Node's fetch copies each of them once more into its stream's
 * own chunk, a third buffer per read that a flood of bytes holds until the garbage collector runs
 * (measured: 24 MiB of ArrayBuffers at an 8 MiB record limit with fetch, 16 MiB with this). And each
 * connection reads into one reused buffer (`read-buffer-agents`), so the reads the parser copied from
 * are not garbage either: 8 MiB, the record itself. Kept from fetch: keep-alive connections, the same default headers
 * (`accept`, `user-agent`, `accept-encoding`) and transparent gzip/deflate/br decompression.
 * Redirects are not followed here: `sendFollowingRedirects` decides which may be.
 */
export function sendHttp(call: HttpCall): Promise<HttpResponse> {
    const url = new URL(call.url);
    const tls = url.protocol === 'https:';
    if (!tls && url.protocol !== 'http:') {
        return Promise.reject(new QodeAssistError({ category: 'Config', message: `The provider URL starts with ${url.protocol}, not http: or https:. Set the provider's url to its http(s) address.` }));
    }
    const headers: Record<string, string> = {
        accept: '*/*', 'user-agent': 'node', 'accept-encoding': tls ? 'br, gzip, deflate' : 'gzip, deflate',
        ...lowerCased(call.headers),
        ...call.body !== undefined ? { 'content-length': String(Buffer.byteLength(call.body)) } : {}
    };
    return new Promise((resolve, reject) => {
        if (call.signal.aborted) {
            reject(abortError());
            return;
        }
        let response: IncomingMessage | undefined;
        const request: ClientRequest = tls ? tlsRequest(url, { method: call.method, headers, agent: HTTPS_AGENT }) : plainRequest(url, { method: call.method, headers, agent: HTTP_AGENT });
        const close = () => {
            response?.destroy();
            request.destroy();
        };
        const onAbort = () => {
            request.destroy(abortError());
            response?.destroy();
        };
        call.signal.addEventListener('abort', onAbort, { once: true });
        // `on`, not `once`: a second error (the socket after an abort) must not go unhandled.
        request.on('error', error => {
            call.signal.removeEventListener('abort', onAbort);
            reject(error);
        });
        request.once('response', message => {
            response = message;
            message.once('close', () => call.signal.removeEventListener('abort', onAbort));
            try {
                resolve(responseOf(message, close));
            } catch (error) {
                close();
                reject(error);
            }
        });
        request.end(call.body);
    });
}

function responseOf(message: IncomingMessage, close: () => void): HttpResponse {
    const encoding = String(message.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    let body: Readable = message;
    // A 204 or 304 has no body to decode, whatever it says of its encoding.
    if (encoding !== 'identity' && encoding !== '' && message.statusCode !== 204 && message.statusCode !== 304) {
        const decompressor = DECOMPRESSORS[encoding];
        if (!decompressor) {
            throw new QodeAssistError({
                category: 'Provider',
                message: `The provider answered in an encoding QodeAssist cannot read (content-encoding: ${encoding}). Check the provider's URL, or a proxy in between that compresses answers.`
            });
        }
        body = pipeline(message, decompressor(), () => undefined) as unknown as Readable;
    }
    const pull = new ChunkQueue(body);
    return {
        status: message.statusCode ?? 0,
        header: name => {
            const value = message.headers[name.toLowerCase()];
            return Array.isArray(value) ? value.join(', ') : value;
        },
        read: () => pull.next(),
        close: () => {
            // A body read to its end leaves the connection in the keep-alive pool, for the next request.
            if (!message.complete || !pull.drained) {
                pull.stop();
                body.destroy();
                close();
            }
        }
    };
}

/**
 * A readable stream in flowing mode, pulled a chunk at a time: each chunk is handed over as the
 * stream emitted it (never joined with others, as `read()` and async iteration would do), and
 * the stream is paused while one waits.
 */
class ChunkQueue {
    private readonly queue: Uint8Array[] = [];
    private ended = false;
    /** The stream ended and every chunk was handed over. */
    drained = false;
    private failure: Error | undefined;
    private wake: (() => void) | undefined;

    constructor(private readonly stream: Readable) {
        stream.on('data', (chunk: Uint8Array) => {
            this.queue.push(chunk);
            if (this.queue.length >= QUEUED_CHUNKS) {
                stream.pause();
            }
            this.notify();
        });
        stream.once('end', () => {
            this.ended = true;
            this.notify();
        });
        stream.on('error', error => {
            this.failure ??= error;
            this.notify();
        });
        stream.once('close', () => {
            // Closed without an end: the connection broke in the middle of the body.
            if (!this.ended) {
                this.failure ??= Object.assign(new Error('The connection closed before the answer ended.'), { code: 'ECONNRESET' });
            }
            this.notify();
        });
    }

    async next(): Promise<Uint8Array | undefined> {
        for (;;) {
            const chunk = this.queue.shift();
            if (chunk) {
                if (this.queue.length === 0 && !this.ended) {
                    this.stream.resume();
                }
                return chunk;
            }
            if (this.failure) {
                throw this.failure;
            }
            if (this.ended) {
                this.drained = true;
                return undefined;
            }
            await new Promise<void>(resolve => { this.wake = resolve; });
        }
    }

    stop(): void {
        this.queue.length = 0;
        this.ended = true;
        this.failure ??= abortError();
        this.notify();
    }

    private notify(): void {
        const wake = this.wake;
        this.wake = undefined;
        wake?.();
    }
}

/** Redirects followed for one request; more is a loop or a misconfiguration. */
const MAX_REDIRECTS = 5;
/** What is read of a redirect's own body before it is dropped. */
const MAX_REDIRECT_BODY_BYTES = 64 * 1024;

/**
 * `sendHttp`, following redirects that stay on the same origin (an API key in the headers must
 * not travel to another host): any for a GET, 307/308 for a POST (they keep the method and the
 * body). Any other redirect is a Config error that says where it led, so the user can set the
 * provider's URL to the address that answers.
 */
export async function sendFollowingRedirects(call: HttpCall): Promise<HttpResponse> {
    let url = call.url;
    for (let redirects = 0; ; redirects++) {
        const response = await sendHttp({ ...call, url });
        if (response.status < 300 || response.status > 399 || response.status === 304) {
            return response;
        }
        const redirectTo = response.header('location');
        await readAtMost(response, MAX_REDIRECT_BODY_BYTES);
        const target = redirectTo === undefined ? undefined : resolved(redirectTo, url);
        const sameOrigin = target !== undefined && target.origin === new URL(url).origin;
        const keepsRequest = call.method === 'GET' || response.status === 307 || response.status === 308;
        if (!target || !sameOrigin || !keepsRequest || redirects >= MAX_REDIRECTS) {
            const where = !target ? 'without saying where' : sameOrigin ? `to ${target.pathname}` : `to ${target.origin}`;
            const why = !target ? '' : !sameOrigin ? ' QodeAssist does not send a provider\'s request (and its key) on to another address.'
                : !keepsRequest ? ` A ${response.status} redirect would turn the request into a GET without its body.` : ` It redirected more than ${MAX_REDIRECTS} times.`;
            throw new QodeAssistError({
                category: 'Config', status: response.status,
                message: `${new URL(url).origin} redirected the request (HTTP ${response.status}) ${where}.${why} Set the provider's url to the address that answers.`
            });
        }
        url = target.toString();
    }
}

function resolved(reference: string, base: string): URL | undefined {
    try {
        return new URL(reference, base);
    } catch {
        return undefined;
    }
}

/**
 * At most `maxBytes` of a body, the rest left unread and the connection closed (so an endless
 * body costs nothing). A body that breaks off gives what arrived, with the failure as `broken`.
 */
export async function readAtMost(response: HttpResponse, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean; broken?: unknown }> {
    const pieces: Uint8Array[] = [];
    let size = 0;
    let cut = false;
    try {
        for (let next = await response.read(); next; next = await response.read()) {
            const room = maxBytes - size;
            if (next.byteLength > room) {
                pieces.push(next.subarray(0, room));
                size = maxBytes;
                cut = true;
                break;
            }
            pieces.push(next);
            size += next.byteLength;
        }
    } catch (error) {
        return { bytes: Buffer.concat(pieces, size), cut, broken: error };
    } finally {
        response.close();
    }
    return { bytes: Buffer.concat(pieces, size), cut };
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
    return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function abortError(): Error {
    return Object.assign(new Error('The request was aborted.'), { name: 'AbortError', code: 'ABORT_ERR' });
}
