import * as assert from 'node:assert/strict';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
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
