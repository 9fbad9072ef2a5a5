import * as assert from 'node:assert/strict';
import { QodeAssistError } from './error-info';
import { ResponseEvent } from './events';
import { OpenAIChatDecoder } from './openai-chat-decoder';

function decodeAll(records: object[], done = true): ResponseEvent[] {
    const decoder = new OpenAIChatDecoder('r1');
    const events = records.flatMap(record => decoder.decode(JSON.stringify(record)));
    if (done) {
        decoder.decode('[DONE]');
    }
    return [...events, ...decoder.finish()];
}

const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

describe('OpenAIChatDecoder', () => {
    it('emits text deltas, usage and a normalized stop', () => {
        const events = decodeAll([
            delta({ role: 'assistant', content: '' }),
            delta({ content: 'Hi' }),
            delta({}, 'stop'),
            { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 2 } } }
        ]);
        assert.deepEqual(events, [
            { type: 'TextDelta', requestId: 'r1', text: 'Hi' },
            { type: 'Usage', requestId: 'r1', inputTokens: 3, outputTokens: 1, cachedTokens: 2, reasoningTokens: undefined },
            { type: 'MessageStop', requestId: 'r1', stopReason: 'end_turn' }
        ]);
    });

    it('assembles parallel tool calls from fragments by index', () => {
        const events = decodeAll([
            delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'read_file', arguments: '{"pa' } }] }),
            delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'find_file', arguments: '' } }] }),
            delta({ tool_calls: [{ index: 0, function: { arguments: 'th":"x.ts"}' } }] }),
            delta({ tool_calls: [{ index: 1, function: { arguments: '{"query":"y"}' } }] }),
            delta({}, 'tool_calls')
        ]);
        assert.deepEqual(events, [
            { type: 'ToolCallStart', requestId: 'r1', callId: 'a', name: 'read_file' },
            { type: 'ToolCallStart', requestId: 'r1', callId: 'b', name: 'find_file' },
            { type: 'ToolCallEnd', requestId: 'r1', callId: 'a', name: 'read_file', arguments: { path: 'x.ts' } },
            { type: 'ToolCallEnd', requestId: 'r1', callId: 'b', name: 'find_file', arguments: { query: 'y' } },
            { type: 'MessageStop', requestId: 'r1', stopReason: 'tool_use' }
        ]);
    });

    it('treats a new id at a reused index as a new call', () => {
        const events = decodeAll([
            delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'x', arguments: '{"n":1}' } }] }),
            delta({ tool_calls: [{ index: 0, id: 'b', function: { name: 'y', arguments: '{"n":2}' } }] }),
            delta({}, 'tool_calls')
        ]);
        assert.deepEqual(events.filter(e => e.type === 'ToolCallEnd').map(e => e.type === 'ToolCallEnd' && [e.callId, e.arguments]),
            [['a', { n: 1 }], ['b', { n: 2 }]]);
    });

    it('reads Mistral content chunks with thinking', () => {
        const events = decodeAll([delta({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'plan' }] }, { type: 'text', text: 'done' }] }, 'stop')]);
        assert.deepEqual(events.slice(0, 2), [
            { type: 'ThinkingDelta', requestId: 'r1', text: 'plan' },
            { type: 'TextDelta', requestId: 'r1', text: 'done' }
        ]);
    });

    it('reads reasoning_content as thinking', () => {
        const events = decodeAll([delta({ reasoning_content: 'hmm' }), delta({ content: 'ok' }, 'stop')]);
        assert.deepEqual(events.slice(0, 2), [
            { type: 'ThinkingDelta', requestId: 'r1', text: 'hmm' },
            { type: 'TextDelta', requestId: 'r1', text: 'ok' }
        ]);
    });

    it('keeps an unknown finish reason as providerReason', () => {
        const events = decodeAll([delta({ content: 'x' }, 'eos_token')]);
        assert.deepEqual(events.at(-1), { type: 'MessageStop', requestId: 'r1', stopReason: 'other', providerReason: 'eos_token' });
    });

    it('shows a streamed refusal as the answer and stops with content_filter', () => {
        const decoder = new OpenAIChatDecoder('r1');
        const events = [
            delta({ role: 'assistant', content: null, refusal: '' }),
            delta({ refusal: 'I can\'t help' }),
            delta({ refusal: ' with that.' }),
            delta({}, 'stop')
        ].flatMap(record => decoder.decode(JSON.stringify(record)));
        decoder.decode('[DONE]');
        events.push(...decoder.finish());
        assert.deepEqual(events, [
            { type: 'TextDelta', requestId: 'r1', text: 'I can\'t help' },
            { type: 'TextDelta', requestId: 'r1', text: ' with that.' },
            { type: 'MessageStop', requestId: 'r1', stopReason: 'content_filter', providerReason: 'refusal' }
        ]);
        assert.deepEqual(decoder.turn().native, { role: 'assistant', content: null, refusal: 'I can\'t help with that.' });
    });

    it('keeps an empty or null refusal field from changing a normal stop', () => {
        const events = decodeAll([delta({ role: 'assistant', content: '', refusal: null }), delta({ content: 'Hi', refusal: '' }, 'stop')]);
        assert.deepEqual(events.at(-1), { type: 'MessageStop', requestId: 'r1', stopReason: 'end_turn' });
    });

    it('lets a length stop win over a refusal cut short', () => {
        const events = decodeAll([delta({ refusal: 'I can\'t' }, 'length')]);
        assert.deepEqual(events.at(-1), { type: 'MessageStop', requestId: 'r1', stopReason: 'max_tokens' });
    });

    it('rejects a malformed record with a Provider error quoting it', () => {
        const decoder = new OpenAIChatDecoder('r1');
        assert.throws(() => decoder.decode('{"choices": [oops'), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Provider' && error.info.providerDetail === '{"choices": [oops');
    });

    it('reports a stream cut before any finish as a Network error', () => {
        const decoder = new OpenAIChatDecoder('r1');
        decoder.decode(JSON.stringify(delta({ content: 'partial' })));
        assert.throws(() => decoder.finish(), (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Network');
    });

    it('turns an error record into a Provider error', () => {
        const decoder = new OpenAIChatDecoder('r1');
        assert.throws(() => decoder.decode(JSON.stringify({ error: { message: 'overloaded' } })),
            (error: unknown) => error instanceof QodeAssistError && /overloaded/.test(error.message));
    });

    it('refuses tool arguments that are not a JSON object', () => {
        const decoder = new OpenAIChatDecoder('r1');
        decoder.decode(JSON.stringify(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 't', arguments: '[1,2' } }] }, 'tool_calls')));
        assert.throws(() => decoder.finish(), (error: unknown) => error instanceof QodeAssistError && /tool "t"/.test(error.message));
    });
});
