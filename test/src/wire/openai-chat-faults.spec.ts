import * as assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { CancelledError, ErrorInfo, ResponseEvent, streamOpenAIChat, WireRequest } from '@qodeassist/core';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';

const BODY = { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] };
const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

async function collect(request: WireRequest): Promise<ResponseEvent[]> {
    const events: ResponseEvent[] = [];
    for await (const event of streamOpenAIChat(request)) {
        events.push(event);
    }
    return events;
}

function terminalError(events: ResponseEvent[]): ErrorInfo {
    const last = events.at(-1);
    assert.equal(last?.type, 'Error', `expected an Error event last, got ${JSON.stringify(last)}`);
    return (last as { error: ErrorInfo }).error;
}

/** A port nothing listens on: bound, noted, released. */
async function closedPort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>(resolve => probe.close(() => resolve()));
    return port;
}

describe('OpenAI Chat client fault matrix', () => {
    const server = new FakeProviderServer({ hangMs: 2_000 });
    let url: string;
    const request = (overrides: Partial<WireRequest> = {}): WireRequest => ({
        requestId: 'req-f', url, headers: { authorization: 'Bearer sk-fault-test-secret' }, body: BODY,
        retry: FAST_RETRY, secrets: ['sk-fault-test-secret'], ...overrides
    });

    before(async () => {
        url = `${await server.start()}/v1/chat/completions`;
    });
    after(() => server.stop());
    beforeEach(() => server.reset());

    it('streams a full answer and sends the body and headers it was given', async () => {
        const events = await collect(request());
        assert.equal(events.at(-1)?.type, 'MessageStop');
        assert.deepEqual(JSON.parse(server.requests[0].body), BODY);
        assert.equal(server.requests[0].headers.authorization, 'Bearer sk-fault-test-secret');
    });

    it('connection refused → Network, after retrying the connection', async () => {
        const retries: number[] = [];
        const events = await collect(request({ url: `http://127.0.0.1:${await closedPort()}/v1/chat/completions`, onRetry: attempt => retries.push(attempt) }));
        const error = terminalError(events);
        assert.equal(error.category, 'Network');
        assert.match(error.message, /refused the connection/);
        assert.deepEqual(retries, [1, 2]);
    });

    it('401 → Auth at once, no retry, with the provider message redacted', async () => {
        server.enqueue({ kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-fault-test-secret"}}' });
        const error = terminalError(await collect(request()));
        assert.equal(error.category, 'Auth');
        assert.equal(error.status, 401);
        assert.equal(error.providerDetail, 'Incorrect API key provided: [REDACTED]');
        assert.equal(server.requests.length, 1);
    });

    it('400 → Validation with the provider message shown', async () => {
        server.enqueue({ kind: 'status', status: 400, body: '{"error":{"message":"model not supported"}}' });
        const error = terminalError(await collect(request()));
        assert.equal(error.category, 'Validation');
        assert.match(error.message, /model not supported/);
        assert.equal(server.requests.length, 1);
    });

    it('429 with retry-after is retried before the first byte and then succeeds', async () => {
        server.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '0' } });
        const delays: number[] = [];
        const events = await collect(request({ onRetry: (_, error, delayMs) => { delays.push(delayMs); assert.equal(error.retryAfterSeconds, 0); } }));
        assert.equal(events.at(-1)?.type, 'MessageStop');
        assert.deepEqual(delays, [0]);
        assert.equal(server.requests.length, 2);
    });

    it('500 on every attempt → Provider after maxAttempts', async () => {
        server.setDefault({ kind: 'status', status: 500 });
        const error = terminalError(await collect(request()));
        assert.equal(error.category, 'Provider');
        assert.equal(error.status, 500);
        assert.equal(server.requests.length, 3);
    });

    it('reset mid-stream → Network, never retried after the first byte', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/text.sse', resetAfterRecords: 3 });
        const events = await collect(request());
        assert.deepEqual(events.filter(event => event.type === 'TextDelta').map(event => (event as { text: string }).text), ['Hello', '!']);
        assert.equal(terminalError(events).category, 'Network');
        assert.equal(server.requests.length, 1);
    });

    it('malformed chunk → Provider quoting the offending line', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/text.sse', corruptRecord: { index: 2, text: 'data: {"choices":[{"delta":{"content":"x"\n\n' } });
        const error = terminalError(await collect(request()));
        assert.equal(error.category, 'Provider');
        assert.equal(error.providerDetail, '{"choices":[{"delta":{"content":"x"');
        assert.equal(server.requests.length, 1);
    });

    it('silence past the idle timeout mid-stream → Network', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/text.sse', hangAfterRecords: 2 });
        const error = terminalError(await collect(request({ timeouts: { idleMs: 200 } })));
        assert.equal(error.category, 'Network');
        assert.match(error.message, /stopped sending for 0.2 s/);
        assert.equal(server.requests.length, 1);
    });

    it('no response headers within the connect timeout → Network', async () => {
        server.setDefault({ kind: 'hang' });
        const error = terminalError(await collect(request({ timeouts: { connectMs: 150 }, retry: { maxAttempts: 1 } })));
        assert.equal(error.category, 'Network');
        assert.match(error.message, /No response .* within 0.15 s/);
    });

    it('abort mid-stream throws CancelledError and closes the HTTP request', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 20 });
        const controller = new AbortController();
        const events: ResponseEvent[] = [];
        await assert.rejects((async () => {
            for await (const event of streamOpenAIChat(request({ signal: controller.signal }))) {
                events.push(event);
                if (events.length === 3) {
                    controller.abort();
                }
            }
        })(), CancelledError);
        assert.equal(events.length, 3);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });
});
