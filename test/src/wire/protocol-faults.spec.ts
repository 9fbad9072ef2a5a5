import * as assert from 'node:assert/strict';
import { CancelledError, ErrorInfo, ResponseEvent, streamWire, WIRE_PROTOCOLS, WireRequest } from '@qodeassist/core';
import { closedLoopbackPort } from '../fake-provider/closed-port';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { PROTOCOL_CASES } from './protocol-cases';

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

function terminalError(events: ResponseEvent[]): ErrorInfo {
    const last = events.at(-1);
    assert.equal(last?.type, 'Error', `expected an Error event last, got ${JSON.stringify(last)}`);
    return (last as { error: ErrorInfo }).error;
}

describe('wire clients against the fake provider: fault matrix', () => {
    const server = new FakeProviderServer({ hangMs: 2_000 });
    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => server.reset());

    for (const testCase of PROTOCOL_CASES) {
        describe(testCase.protocol, () => {
            const protocol = WIRE_PROTOCOLS[testCase.protocol];
            const secret = Object.values(testCase.headers).find(value => value.includes('secret'));
            const request = (overrides: Partial<WireRequest> = {}): WireRequest => ({
                requestId: `req-${testCase.protocol}`, url: `${server.url}${testCase.path}`, headers: testCase.headers,
                body: testCase.body, retry: FAST_RETRY, secrets: secret ? [secret] : [], ...overrides
            });
            const collect = async (overrides: Partial<WireRequest> = {}) => {
                const events: ResponseEvent[] = [];
                for await (const batch of streamWire(protocol, request(overrides))) {
                    events.push(...batch);
                }
                return events;
            };

            it('streams the recorded answer and sends the body and headers unchanged', async () => {
                server.enqueue({ kind: 'replay', fixture: testCase.textFixture });
                const events = await collect();
                assert.equal(events.at(-1)?.type, 'MessageStop');
                assert.ok(events.some(event => event.type === 'TextDelta'));
                assert.equal(server.requests[0].protocol, testCase.protocol);
                assert.equal(server.requests[0].body, JSON.stringify(testCase.body));
                for (const [name, value] of Object.entries(testCase.headers)) {
                    assert.equal(server.requests[0].headers[name], value);
                }
            });

            it('connection refused → Network, after retrying the connection only', async () => {
                const retries: number[] = [];
                const events = await collect({ url: `http://127.0.0.1:${await closedLoopbackPort()}${testCase.path}`, onRetry: attempt => retries.push(attempt) });
                assert.equal(terminalError(events).category, 'Network');
                assert.deepEqual(retries, [1, 2]);
            });

            it('401 → Auth, no retry, secret redacted from the provider detail', async () => {
                server.enqueue({ kind: 'status', status: 401, body: JSON.stringify({ error: { message: `invalid key ${secret ?? 'none'}` } }) });
                const error = terminalError(await collect());
                assert.equal(error.category, 'Auth');
                assert.equal(server.requests.length, 1);
                if (secret) {
                    assert.ok(!JSON.stringify(error).includes(secret));
                }
            });

            it('400 → Validation showing the provider message, no retry', async () => {
                server.enqueue({ kind: 'status', status: 400, body: '{"error":{"message":"model \\"x\\" does not support tools"}}' });
                const error = terminalError(await collect());
                assert.equal(error.category, 'Validation');
                assert.match(error.message, /model "x" does not support tools/);
                assert.equal(server.requests.length, 1);
            });

            it('429 with retry-after → retried before the first byte, then the answer', async () => {
                server.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '0' } }, { kind: 'replay', fixture: testCase.textFixture });
                const events = await collect();
                assert.equal(events.at(-1)?.type, 'MessageStop');
                assert.equal(server.requests.length, 2);
            });

            it('500 every time → Provider after the attempts run out', async () => {
                server.setDefault({ kind: 'status', status: 500 });
                const error = terminalError(await collect());
                assert.equal(error.category, 'Provider');
                assert.equal(error.status, 500);
                assert.equal(server.requests.length, 3);
            });

            it('reset mid-stream → Network, never retried after the first byte', async () => {
                server.enqueue({ kind: 'replay', fixture: testCase.textFixture, resetAfterRecords: 1 });
                const events = await collect();
                assert.equal(terminalError(events).category, 'Network');
                assert.equal(server.requests.length, 1);
            });

            it('malformed record → Provider quoting it, never retried', async () => {
                server.enqueue({ kind: 'replay', fixture: testCase.textFixture, corruptRecord: { index: 1, text: testCase.malformedRecord } });
                const error = terminalError(await collect());
                assert.equal(error.category, 'Provider');
                assert.match(error.message, /malformed/);
                assert.ok(error.providerDetail && testCase.malformedRecord.includes(error.providerDetail.trim()), error.providerDetail);
                assert.equal(server.requests.length, 1);
            });

            it('silence past the idle timeout → Network, never retried', async () => {
                server.enqueue({ kind: 'replay', fixture: testCase.textFixture, hangAfterRecords: 1 });
                const error = terminalError(await collect({ timeouts: { idleMs: 150 } }));
                assert.equal(error.category, 'Network');
                assert.match(error.message, /stopped sending/);
                assert.equal(server.requests.length, 1);
            });

            it('no headers within the connect timeout → Network', async () => {
                server.setDefault({ kind: 'hang' });
                const error = terminalError(await collect({ timeouts: { connectMs: 100 }, retry: { maxAttempts: 1 } }));
                assert.equal(error.category, 'Network');
                assert.match(error.message, /No response/);
            });

            it('abort mid-stream → CancelledError and the HTTP request is closed', async () => {
                server.enqueue({ kind: 'replay', fixture: testCase.textFixture, chunkDelayMs: 100 });
                const controller = new AbortController();
                await assert.rejects((async () => {
                    for await (const batch of streamWire(protocol, request({ signal: controller.signal }))) {
                        if (batch.some(event => event.type === 'TextDelta')) {
                            controller.abort();
                        }
                    }
                })(), CancelledError);
                assert.equal(await server.requests[0].ended, 'aborted-by-client');
            });
        });
    }
});
