import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenToolCalls, readNdjsonLines, readServerSentEvents, ResponseEvent, toErrorInfo, WIRE_PROTOCOLS, WireProtocol } from '@qodeassist/core';
import * as fc from 'fast-check';
import { FIXTURES_DIR } from '../fake-provider/fake-provider-server';
import { RECORDED_STREAMS } from './recorded-streams';
import { ANTHROPIC_SHAPES } from './recorded-streams-anthropic';
import { MORE_SHAPES } from './recorded-streams-more';
import { summarize } from './stream-summary';

/** Decodes a recording delivered in the given pieces, the way the wire client does, errors included. */
async function decode(protocol: WireProtocol, pieces: Uint8Array[]): Promise<ResponseEvent[]> {
    async function* source(): AsyncGenerator<Uint8Array> {
        yield* pieces;
    }
    const decoder = protocol.createDecoder('req-1');
    const events: ResponseEvent[] = [];
    try {
        if (protocol.framing === 'ndjson') {
            for await (const lines of readNdjsonLines(source())) {
                for (const line of lines) {
                    events.push(...decoder.decode(line));
                }
            }
        } else {
            for await (const messages of readServerSentEvents(source())) {
                for (const message of messages) {
                    events.push(...decoder.decode(message.data, message.event));
                }
            }
        }
        events.push(...decoder.finish());
    } catch (error) {
        // As the wire client does: a call the answer broke off in is closed as not run, then the error.
        const calls = new OpenToolCalls();
        calls.see(events);
        events.push(...calls.notRun('req-1'), { type: 'Error', requestId: 'req-1', error: toErrorInfo(error) });
    }
    return events;
}

function cutAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
    const sorted = [...new Set(cuts)].filter(cut => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
    const pieces: Uint8Array[] = [];
    let start = 0;
    for (const cut of sorted) {
        pieces.push(bytes.slice(start, cut));
        start = cut;
    }
    pieces.push(bytes.slice(start));
    return pieces;
}

describe('recorded provider streams', () => {
    for (const stream of [...RECORDED_STREAMS, ...ANTHROPIC_SHAPES, ...MORE_SHAPES]) {
        describe(`${stream.protocol}: ${stream.fixture}`, () => {
            const protocol = WIRE_PROTOCOLS[stream.protocol];
            const bytes = new Uint8Array(readFileSync(join(FIXTURES_DIR, stream.fixture)));
            let whole: ResponseEvent[];

            before(async () => {
                whole = await decode(protocol, [bytes]);
            });

            it('decodes to exactly the expected text, thinking, tool calls, usage and stop', () => {
                assert.deepEqual(summarize(whole), stream.expected);
                assert.ok(['MessageStop', 'Error'].includes(whole.at(-1)!.type), 'the stream ends with MessageStop or Error');
                assert.ok(whole.every(event => event.requestId === 'req-1'));
                const started = whole.filter(event => event.type === 'ToolCallStart').map(event => (event as { callId: string }).callId);
                const closed = whole.filter(event => event.type === 'ToolCallEnd' || event.type === 'ToolResult').map(event => (event as { callId: string }).callId);
                assert.deepEqual([...new Set(started)].filter(callId => !closed.includes(callId)), [], 'every call that started is ended or closed as not run');
                if (stream.errorSays) {
                    const error = whole.find(event => event.type === 'Error');
                    assert.ok(error?.type === 'Error' && error.error.message.includes(stream.errorSays), `the error says the provider's words: ${JSON.stringify(error)}`);
                }
            });

            it('decodes identically when split at every byte boundary', async () => {
                for (let cut = 1; cut < bytes.length; cut++) {
                    assert.deepEqual(await decode(protocol, cutAt(bytes, [cut])), whole, `split at byte ${cut}`);
                }
            });

            it('decodes identically when split at random boundaries', async () => {
                await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 60 }), async cuts => {
                    assert.deepEqual(await decode(protocol, cutAt(bytes, cuts)), whole);
                }), { numRuns: 150 });
            });
        });
    }
});
