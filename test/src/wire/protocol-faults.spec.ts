import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledError, DEFAULT_LIMITS, ErrorInfo, MAX_ERROR_BODY_BYTES, ResponseEvent, streamWire, WIRE_PROTOCOLS, WireRequest } from '@qodeassist/core';
import { closedLoopbackPort } from '../fake-provider/closed-port';
import { FakeProviderServer, FIXTURES_DIR } from '../fake-provider/fake-provider-server';
import { BUILTIN_PROTOCOLS } from '../fake-provider/protocols';
import { HostileProvider } from './hostile-provider';
import { PROTOCOL_CASES } from './protocol-cases';

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 };
const MiB = 1024 * 1024;
/** What the kernel's and the client's socket buffers may hold beyond what the client read: the server has written it, nobody pulled it. */
const SOCKET_SLACK = 16 * MiB;

function terminalError(events: ResponseEvent[]): ErrorInfo {
    const last = events.at(-1);
    assert.equal(last?.type, 'Error', `expected an Error event last, got ${JSON.stringify(last)}`);
    return (last as { error: ErrorInfo }).error;
}

/** A recording's records up to the first that carries text, as the provider sends them. */
function recordsThroughFirstText(protocolName: string, fixture: string): string[] {
    const fake = BUILTIN_PROTOCOLS.find(p => p.name === protocolName)!;
    const records = fake.splitRecords(readFileSync(join(FIXTURES_DIR, fixture), 'utf8'));
    return records.slice(0, records.findIndex(record => record.includes('Hello') || record.includes('return [...text]')) + 1);
}

describe('wire clients against the fake provider: fault matrix', () => {
    const server = new FakeProviderServer({ hangMs: 2_000 });
    const hostile = new HostileProvider();
    let hostileUrl: string;
    before(async () => {
        await server.start();
        hostileUrl = await hostile.start();
    });
    after(async () => {
        await server.stop();
        await hostile.stop();
    });
    beforeEach(() => {
        server.reset();
        hostile.outcomes.length = 0;
    });

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

            describe('bounds on what the provider sends back', () => {
                const framing = protocol.framing === 'ndjson' ? 'ndjson' : 'sse';
                const contentType = framing === 'ndjson' ? 'application/x-ndjson' : 'text/event-stream';
                const sent = recordsThroughFirstText(testCase.protocol, testCase.textFixture);
                /** The events of the records before a bound was hit, as a stream of only those records gives them. */
                const eventsOfSentRecords = async () => {
                    server.enqueue({ kind: 'replay', recording: sent.join('') });
                    const events = await collect();
                    terminalError(events);
                    return events.slice(0, -1);
                };

                it('a 600 MB record with no line end → Provider naming max_record_bytes, after a little over 8 MiB, memory flat, the answer so far kept', async () => {
                    const expected = await eventsOfSentRecords();
                    hostile.answer = { status: 200, contentType, prefix: `${sent.join('')}${framing === 'ndjson' ? '{"message":{"content":"' : 'data: {"text":"'}`, totalBytes: 600 * MiB };
                    const rssBefore = process.memoryUsage.rss();
                    const events = await collect({ url: `${hostileUrl}${testCase.path}` });
                    const outcome = await hostile.outcomes[0];
                    const error = terminalError(events);
                    assert.equal(error.category, 'Provider');
                    assert.match(error.message, /^The provider sent a record \(one event or line of the stream\) longer than 8 MiB \(the max_record_bytes limit\), so the answer was stopped; what arrived before it is kept\. .* raise \[limits\] max_record_bytes in the agent's file or the setting qodeassist\.limits\.maxRecordBytes\.$/);
                    assert.deepEqual(events.slice(0, -1), expected, 'every event of the records before the endless one');
                    assert.ok(expected.some(event => event.type === 'TextDelta'));
                    assert.equal(outcome.closedEarly, true, 'the client hung up');
                    assert.ok(outcome.bytesWritten < DEFAULT_LIMITS.maxRecordBytes + SOCKET_SLACK, `the server got rid of ${outcome.bytesWritten} bytes`);
                    assert.ok(outcome.peakRss - rssBefore < 8 * DEFAULT_LIMITS.maxRecordBytes, `RSS grew by ${outcome.peakRss - rssBefore} bytes while streaming`);
                });

                it('an endless stream of well-formed records → Provider naming max_answer_bytes, every record before the limit kept', async () => {
                    const expected = await eventsOfSentRecords();
                    hostile.answer = { status: 200, contentType, prefix: sent.join(''), fill: sent.at(-1)!, totalBytes: 600 * MiB };
                    const events = await collect({ url: `${hostileUrl}${testCase.path}`, maxAnswerBytes: MiB });
                    const outcome = await hostile.outcomes[0];
                    const error = terminalError(events);
                    assert.equal(error.message, 'The answer grew past 1 MiB (the max_answer_bytes limit), so it was stopped; what arrived before it is kept. '
                        + 'To allow longer answers, raise [limits] max_answer_bytes in the agent\'s file or the setting qodeassist.limits.maxAnswerBytes.');
                    assert.deepEqual(events.slice(0, expected.length), expected);
                    const repeated = expected.filter(event => event.type === 'TextDelta').at(-1);
                    const more = events.slice(expected.length, -1);
                    assert.ok(more.length > 1000, `${more.length} more events`);
                    assert.ok(more.every(event => event.type === 'TextDelta' && event.text === (repeated as { text: string }).text), 'only the repeated record\'s text');
                    assert.equal(outcome.closedEarly, true);
                    assert.ok(outcome.bytesWritten < MiB + SOCKET_SLACK, `the server got rid of ${outcome.bytesWritten} bytes`);
                });

                it('a 100 MB error body → read to 64 KiB only, the detail cut and saying so, the connection closed', async () => {
                    const prefix = '{"error":{"message":"';
                    hostile.answer = { status: 500, contentType: 'application/json', prefix, totalBytes: 100 * MiB };
                    const error = terminalError(await collect({ url: `${hostileUrl}${testCase.path}`, retry: { maxAttempts: 1 } }));
                    const outcome = await hostile.outcomes[0];
                    assert.equal(error.category, 'Provider');
                    assert.equal(error.status, 500);
                    assert.equal(error.providerDetail, `${prefix}${'a'.repeat(2_000 - prefix.length)}… (the error body was longer than 64 KiB; the rest was not read)`);
                    assert.equal(outcome.closedEarly, true, 'not read to its end');
                    assert.ok(outcome.bytesWritten < MAX_ERROR_BODY_BYTES + SOCKET_SLACK, `the server got rid of ${outcome.bytesWritten} bytes`);
                });
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
