import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAIChatDecoder, readServerSentEvents, ResponseEvent } from '@qodeassist/core';
import * as fc from 'fast-check';
import { FIXTURES_DIR } from '../fake-provider/fake-provider-server';

/** Decodes a recording delivered in the given pieces. */
async function decode(pieces: Uint8Array[]): Promise<ResponseEvent[]> {
    async function* source(): AsyncGenerator<Uint8Array> {
        yield* pieces;
    }
    const decoder = new OpenAIChatDecoder('req-1');
    const events: ResponseEvent[] = [];
    for await (const message of readServerSentEvents(source())) {
        events.push(...decoder.decode(message.data));
    }
    events.push(...decoder.finish());
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

const text = (events: ResponseEvent[], type: 'TextDelta' | 'ThinkingDelta') =>
    events.filter(event => event.type === type).map(event => (event as { text: string }).text).join('');

const FIXTURES: Array<{ file: string; check: (events: ResponseEvent[]) => void }> = [
    {
        file: 'openai-chat/text.sse',
        check: events => {
            assert.equal(text(events, 'TextDelta'), 'Hello! How can I help you today?');
            assert.deepEqual(events.at(-2), { type: 'Usage', requestId: 'req-1', inputTokens: 12, outputTokens: 9, cachedTokens: 0, reasoningTokens: 0 });
            assert.deepEqual(events.at(-1), { type: 'MessageStop', requestId: 'req-1', stopReason: 'end_turn' });
        }
    },
    {
        file: 'openai-chat/markdown-answer.sse',
        check: events => {
            assert.match(text(events, 'TextDelta'), /^## Reversing a string\n\nHere is a \*\*small\*\*/);
            assert.equal(events.at(-1)?.type, 'MessageStop');
        }
    },
    {
        file: 'openai-chat/reasoning-tool-calls.sse',
        check: events => {
            assert.equal(text(events, 'ThinkingDelta'), 'The userwants the weather in two cities.');
            assert.deepEqual(events.filter(event => event.type === 'ToolCallEnd'), [
                { type: 'ToolCallEnd', requestId: 'req-1', callId: 'call_a1', name: 'get_weather', arguments: { city: 'Paris' } },
                { type: 'ToolCallEnd', requestId: 'req-1', callId: 'call_b2', name: 'get_weather', arguments: { city: 'Berlin – Mitte' } }
            ]);
            assert.deepEqual(events.at(-1), { type: 'MessageStop', requestId: 'req-1', stopReason: 'tool_use' });
            assert.deepEqual(events.find(event => event.type === 'Usage'),
                { type: 'Usage', requestId: 'req-1', inputTokens: 80, outputTokens: 30, cachedTokens: 64, reasoningTokens: 11 });
        }
    }
];

describe('OpenAI Chat recorded streams', () => {
    for (const fixture of FIXTURES) {
        describe(fixture.file, () => {
            const bytes = new Uint8Array(readFileSync(join(FIXTURES_DIR, fixture.file)));
            let whole: ResponseEvent[];

            before(async () => {
                whole = await decode([bytes]);
            });

            it('decodes to the expected events', () => {
                fixture.check(whole);
            });

            it('decodes identically when split at every byte boundary', async () => {
                for (let cut = 1; cut < bytes.length; cut++) {
                    assert.deepEqual(await decode(cutAt(bytes, [cut])), whole, `split at byte ${cut}`);
                }
            });

            it('decodes identically when split at random boundaries', async () => {
                await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), async cuts => {
                    assert.deepEqual(await decode(cutAt(bytes, cuts)), whole);
                }), { numRuns: 200 });
            });
        });
    }
});
