import * as assert from 'node:assert/strict';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { QodeAssistError } from './error-info';
import { HttpStreamRequest, MAX_ERROR_BODY_BYTES, streamHttpBody } from './http-transport';

/**
 * How the local provider answers: trickle bytes forever, never send headers, or flood 64 KiB pieces
 * (with 200, or as the body of a 500) as fast as the client reads. Every answer ends itself after 3 s.
 */
type Behaviour = 'trickle' | 'no-headers' | 'flood' | 'error-flood';

const PIECE = Buffer.alloc(64 * 1024, 'a');

/** A provider on 127.0.0.1 that records whether the client hung up before the answer ended. */
class LocalProvider {
    private server: Server | undefined;
    behaviour: Behaviour = 'trickle';
    requests = 0;
    /** Bytes handed to the socket for the latest request, waiting for it to drain each time. */
    written = 0;
    /** Per request: resolves true when the client closed the connection before the answer ended. */
    readonly hungUp: Array<Promise<boolean>> = [];

    async start(): Promise<string> {
        this.server = createServer((request, response) => this.answer(request, response));
        await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
        this.server.unref();
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/chat/completions`;
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise(resolve => this.server?.close(resolve));
    }

    private answer(request: IncomingMessage, response: ServerResponse): void {
        this.requests++;
        let tick: NodeJS.Timeout | undefined;
        const end = setTimeout(() => { clearInterval(tick); response.end(); }, 3_000);
        this.hungUp.push(new Promise(resolve => response.on('close', () => {
            clearTimeout(end);
            clearInterval(tick);
            resolve(!response.writableEnded);
        })));
        request.resume();
        if (this.behaviour === 'trickle') {
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            response.write(': still thinking\n\n');
            tick = setInterval(() => response.write(': still thinking\n\n'), 20);
        } else if (this.behaviour === 'flood' || this.behaviour === 'error-flood') {
            response.writeHead(this.behaviour === 'flood' ? 200 : 500, { 'content-type': 'text/plain' });
            this.written = 0;
            const flood = () => {
                while (!response.destroyed && !response.writableEnded) {
                    this.written += PIECE.length;
                    if (!response.write(PIECE)) {
                        response.once('drain', flood);
                        return;
                    }
                }
            };
            flood();
        }
    }
}

async function failureOf(request: HttpStreamRequest, onChunk?: (chunk: Uint8Array) => void): Promise<{ error: unknown; chunks: number }> {
    let chunks = 0;
    try {
        for await (const chunk of streamHttpBody(request)) {
            chunks += chunk.length > 0 ? 1 : 0;
            onChunk?.(chunk);
        }
    } catch (error) {
        return { error, chunks };
    }
    return { error: undefined, chunks };
}

describe('HTTP transport limits', () => {
    const provider = new LocalProvider();
    let url: string;
    before(async () => { url = await provider.start(); });
    after(() => provider.stop());
    beforeEach(() => {
        provider.requests = 0;
        provider.hungUp.length = 0;
    });

    it('the total limit ends a stream that keeps sending bytes slowly, and names the setting that raises it', async () => {
        provider.behaviour = 'trickle';
        const { error, chunks } = await failureOf({ url, headers: {}, body: {}, retry: { maxAttempts: 1 }, timeouts: { idleMs: 2_000, totalMs: 250 } });
        assert.ok(error instanceof QodeAssistError, `expected a QodeAssistError, got ${String(error)}`);
        assert.deepEqual(error.info, {
            category: 'Network',
            message: 'No answer finished within 0.25 s (the total limit). To wait longer, raise [limits] total in the agent\'s file or the setting qodeassist.limits.totalSeconds.'
        });
        assert.ok(chunks > 0, 'bytes arrived before the limit: it ended a live stream');
        assert.equal(await provider.hungUp[0], true, 'the client closed the connection');
    });

    it('the total limit also bounds waiting for headers, and is not retried', async () => {
        provider.behaviour = 'no-headers';
        const advice = () => 'raise the setting qodeassist.limits.totalSeconds (it overrides [limits] total of the agent file).';
        const { error } = await failureOf({
            url, headers: {}, body: {}, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, timeouts: { connectMs: 5_000, totalMs: 200 }, limitAdvice: advice
        });
        assert.ok(error instanceof QodeAssistError);
        assert.equal(error.info.message, `No answer finished within 0.2 s (the total limit). To wait longer, ${advice()}`);
        assert.equal(provider.requests, 1);
    });

    it('the answer limit ends a stream that keeps sending, without passing on the chunk that crossed it', async () => {
        provider.behaviour = 'flood';
        let received = 0;
        const { error } = await failureOf({ url, headers: {}, body: {}, retry: { maxAttempts: 1 }, maxAnswerBytes: 1024 * 1024 }, chunk => { received += chunk.length; });
        assert.ok(error instanceof QodeAssistError);
        assert.deepEqual(error.info, {
            category: 'Provider',
            message: 'The answer grew past 1 MiB (the max_answer_bytes limit), so it was stopped; what arrived before it is kept. '
                + 'To allow longer answers, raise [limits] max_answer_bytes in the agent\'s file or the setting qodeassist.limits.maxAnswerBytes.'
        });
        assert.ok(received <= 1024 * 1024 && received > 512 * 1024, `passed on ${received} bytes`);
        assert.equal(await provider.hungUp[0], true, 'the client closed the connection');
    });

    it('an error body is read to 64 KiB and no further: the detail says it was cut and the connection is closed', async () => {
        provider.behaviour = 'error-flood';
        const { error } = await failureOf({ url, headers: {}, body: {}, retry: { maxAttempts: 1 } });
        assert.ok(error instanceof QodeAssistError);
        assert.equal(error.info.category, 'Provider');
        assert.equal(error.info.status, 500);
        assert.equal(error.info.providerDetail, `${'a'.repeat(2_000)}… (the error body was longer than 64 KiB; the rest was not read)`);
        assert.equal(await provider.hungUp[0], true, 'the client closed the connection');
        // What the socket buffers hold aside, the server got rid of little more than what was read.
        assert.ok(provider.written < MAX_ERROR_BODY_BYTES + 16 * 1024 * 1024, `the server wrote ${provider.written} bytes`);
    });

    it('the connect limit names its value and setting', async () => {
        provider.behaviour = 'no-headers';
        const { error } = await failureOf({ url, headers: {}, body: {}, retry: { maxAttempts: 1 }, timeouts: { connectMs: 100 } });
        assert.ok(error instanceof QodeAssistError);
        assert.equal(error.info.category, 'Network');
        assert.equal(error.info.message, `No response from ${new URL(url).origin} within 0.1 s (the connect limit). Check that the provider is running and reachable; `
            + 'if it is only slow to start, raise [limits] connect in the agent\'s file or the setting qodeassist.limits.connectSeconds.');
    });
});

/** A server on 127.0.0.1 whose answer each test sets; it records the requests it got. */
class ScriptedServer {
    private server: Server | undefined;
    handle: (request: IncomingMessage, body: string, response: ServerResponse) => void = (_request, _body, response) => response.end();
    readonly requests: Array<{ method: string; path: string; body: string; headers: IncomingMessage['headers'] }> = [];

    async start(): Promise<string> {
        this.server = createServer((request, response) => {
            const pieces: Buffer[] = [];
            request.on('data', (piece: Buffer) => pieces.push(piece));
            request.on('end', () => {
                const body = Buffer.concat(pieces).toString('utf8');
                this.requests.push({ method: request.method ?? '', path: request.url ?? '', body, headers: request.headers });
                this.handle(request, body, response);
            });
        });
        await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
        this.server.unref();
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise(resolve => this.server?.close(resolve));
    }
}

async function bodyOf(request: HttpStreamRequest): Promise<string> {
    const pieces: Uint8Array[] = [];
    for await (const chunk of streamHttpBody(request)) {
        pieces.push(chunk);
    }
    return Buffer.concat(pieces).toString('utf8');
}

describe('HTTP transport: redirects, compression and what it sends', () => {
    const server = new ScriptedServer();
    const other = new ScriptedServer();
    let origin: string;
    let otherOrigin: string;
    before(async () => {
        origin = await server.start();
        otherOrigin = await other.start();
    });
    after(async () => {
        await server.stop();
        await other.stop();
    });
    beforeEach(() => {
        server.requests.length = 0;
        other.requests.length = 0;
    });

    it('sends the JSON body with its length and the caller\'s headers, and streams the answer', async () => {
        server.handle = (_request, _body, response) => {
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            response.end('data: {"a":1}\n\n');
        };
        const text = await bodyOf({ url: `${origin}/v1/chat`, headers: { Authorization: 'Bearer k-1' }, body: { model: 'm', text: 'héllo' }, retry: { maxAttempts: 1 } });
        assert.equal(text, 'data: {"a":1}\n\n');
        const [request] = server.requests;
        assert.equal(request.method, 'POST');
        assert.equal(request.body, '{"model":"m","text":"héllo"}');
        assert.equal(request.headers['content-length'], String(Buffer.byteLength(request.body)));
        assert.equal(request.headers['content-type'], 'application/json');
        assert.equal(request.headers.authorization, 'Bearer k-1');
    });

    for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
        it(`decodes an answer compressed with ${encoding}, as fetch did`, async () => {
            const answer = `data: ${JSON.stringify({ text: 'x'.repeat(100_000) })}\n\n`;
            server.handle = (_request, _body, response) => {
                response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': encoding });
                response.end(compress(Buffer.from(answer)));
            };
            assert.equal(await bodyOf({ url: `${origin}/v1/chat`, headers: {}, body: {}, retry: { maxAttempts: 1 } }), answer);
            assert.match(String(server.requests[0].headers['accept-encoding']), /gzip/);
        });
    }

    it('reads a gzip answer cut before its trailer, and an empty one, as fetch does: what arrived is the answer', async () => {
        const answer = 'data: {"done":true}\n\n';
        const whole = gzipSync(Buffer.from(answer));
        for (const [body, expected] of [[whole.subarray(0, whole.length - 8), answer], [Buffer.alloc(0), '']] as const) {
            server.handle = (_request, _body, response) => {
                response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
                response.end(body);
            };
            assert.equal(await bodyOf({ url: `${origin}/v1/chat`, headers: {}, body: {}, retry: { maxAttempts: 1 } }), expected);
        }
    });

    it('an encoding it cannot read is a Provider error that names it', async () => {
        server.handle = (_request, _body, response) => {
            response.writeHead(200, { 'content-encoding': 'zstd' });
            response.end('????');
        };
        await assert.rejects(bodyOf({ url: `${origin}/v1/chat`, headers: {}, body: {}, retry: { maxAttempts: 1 } }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Provider' && error.info.message.includes('content-encoding: zstd'));
    });

    it('follows a 307/308 on the same origin with the same method and body', async () => {
        server.handle = (request, _body, response) => {
            if (request.url === '/v1/chat/') {
                response.writeHead(307, { location: '/v1/chat' });
                response.end('moved');
            } else {
                response.writeHead(200, { 'content-type': 'text/event-stream' });
                response.end('data: {}\n\n');
            }
        };
        assert.equal(await bodyOf({ url: `${origin}/v1/chat/`, headers: {}, body: { n: 1 }, retry: { maxAttempts: 1 } }), 'data: {}\n\n');
        assert.deepEqual(server.requests.map(request => [request.method, request.path, request.body]), [['POST', '/v1/chat/', '{"n":1}'], ['POST', '/v1/chat', '{"n":1}']]);
    });

    it('never sends the request (and its key) on to another origin: a Config error says where the redirect led', async () => {
        server.handle = (_request, _body, response) => {
            response.writeHead(307, { location: `${otherOrigin}/steal` });
            response.end();
        };
        await assert.rejects(bodyOf({ url: `${origin}/v1/chat`, headers: { 'x-api-key': 'k-secret' }, body: {}, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 } }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Config' && error.info.message.includes(`redirected the request (HTTP 307) to ${otherOrigin}`)
            && error.info.message.includes('does not send a provider\'s request (and its key) on to another address'));
        assert.equal(other.requests.length, 0);
        assert.equal(server.requests.length, 1, 'not retried');
    });

    it('a 302 of a POST is not turned into a GET: a Config error asks for the address that answers', async () => {
        server.handle = (_request, _body, response) => {
            response.writeHead(302, { location: '/elsewhere' });
            response.end();
        };
        await assert.rejects(bodyOf({ url: `${origin}/v1/chat`, headers: {}, body: {}, retry: { maxAttempts: 1 } }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Config' && error.info.status === 302
            && /to \/elsewhere\. A 302 redirect would turn the request into a GET without its body\. Set the provider's url to the address that answers\.$/.test(error.info.message));
        assert.equal(server.requests.length, 1);
    });

    it('a redirect loop ends after five redirects', async () => {
        server.handle = (_request, _body, response) => {
            response.writeHead(308, { location: '/again' });
            response.end();
        };
        await assert.rejects(bodyOf({ url: `${origin}/v1/chat`, headers: {}, body: {}, retry: { maxAttempts: 1 } }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Config' && error.info.message.includes('more than 5 times'));
        assert.equal(server.requests.length, 6);
    });
});
