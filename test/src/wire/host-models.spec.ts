import * as assert from 'node:assert/strict';
import {
    CancelledError, HostModelPart, HostModelRequest, HostModels, listModels, QodeAssistError, streamWire, ToolCall,
    ToolExecutor, ToolLoopRunner, WIRE_PROTOCOLS, WireRequest
} from '@qodeassist/core';
import { drain } from './stream-summary';

/** A host (the IDE's models) that answers each request with the next scripted rounds of parts, and keeps what it was asked. */
class ScriptedHost implements HostModels {
    readonly requests: HostModelRequest[] = [];
    constructor(private readonly rounds: HostModelPart[][][]) { }

    async list(): Promise<Array<{ id: string; name?: string; ready: boolean }>> {
        return [{ id: 'openai/gpt-test', name: 'GPT test', ready: true }, { id: 'ollama/qwen', ready: false }];
    }

    async *stream(request: HostModelRequest, signal?: AbortSignal): AsyncGenerator<HostModelPart[]> {
        this.requests.push(structuredClone(request));
        const round = this.rounds.shift();
        if (!round) {
            throw new QodeAssistError({ category: 'Provider', message: 'the script ran out' });
        }
        for (const batch of round) {
            if (signal?.aborted) {
                throw new CancelledError();
            }
            yield batch;
        }
    }
}

const protocol = WIRE_PROTOCOLS['theia-language-model'];
const body: HostModelRequest = {
    model: 'openai/gpt-test',
    messages: [{ actor: 'system', type: 'text', text: 'Be brief.' }, { actor: 'user', type: 'text', text: 'What is in notes.txt?' }],
    tools: [{ name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }]
};
const request = (host: HostModels | undefined, overrides: Partial<WireRequest> = {}): WireRequest =>
    ({ requestId: 'host-1', url: 'theia:', headers: {}, body, hostModels: host, ...overrides });

describe('client_api "theia": the IDE\'s own language models through the host port', () => {
    it('decodes text, thinking and usage parts into the common events, ending the turn', async () => {
        const host = new ScriptedHost([[
            [{ type: 'thinking', text: 'Look it up.', signature: 'sig-1' }],
            [{ type: 'text', text: 'It says ' }, { type: 'text', text: 'hello.' }],
            [{ type: 'usage', inputTokens: 42, outputTokens: 7, cachedTokens: 30 }, { type: 'end', reason: 'end_turn' }]
        ]]);
        const { events, turn } = await drain(streamWire(protocol, request(host)));
        assert.deepEqual(events.map(event => event.type), ['ThinkingDelta', 'TextDelta', 'TextDelta', 'Usage', 'MessageStop']);
        assert.deepEqual(events.find(event => event.type === 'Usage'), { type: 'Usage', requestId: 'host-1', inputTokens: 42, outputTokens: 7, cachedTokens: 30 });
        assert.equal(turn?.stopReason, 'end_turn');
        assert.deepEqual(turn?.blocks, [{ type: 'thinking', text: 'Look it up.', signature: 'sig-1' }, { type: 'text', text: 'It says hello.' }]);
        assert.deepEqual(host.requests[0], body, 'the rendered body reaches the host unchanged');
    });

    it('runs a tool round through the loop: the calls come back, the continuation replays them and the results in Theia\'s message shape', async () => {
        const host = new ScriptedHost([
            [[{ type: 'text', text: 'Reading.' }], [{ type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' }, { type: 'end', reason: 'tool_use' }]],
            [[{ type: 'text', text: 'It says hello.' }, { type: 'end', reason: 'end_turn' }]]
        ]);
        const executed: ToolCall[] = [];
        const tools: ToolExecutor = { execute: async call => { executed.push(call); return { content: 'hello' }; } };
        const { events, turn } = await drain(new ToolLoopRunner(tools).run(protocol, request(host)));
        assert.deepEqual(executed, [{ callId: 'call_1', name: 'read_file', arguments: { path: 'notes.txt' } }]);
        assert.deepEqual(events.filter(event => event.type === 'MessageStop').map(event => event.type === 'MessageStop' && event.stopReason), ['tool_use', 'end_turn']);
        assert.equal(turn?.stopReason, 'end_turn');
        assert.deepEqual(host.requests[1].messages.slice(2), [
            { actor: 'ai', type: 'text', text: 'Reading.' },
            { actor: 'ai', type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'notes.txt' } },
            { actor: 'user', type: 'tool_result', tool_use_id: 'call_1', name: 'read_file', content: 'hello' }
        ]);
    });

    it('turns a missing host, a bad body, a cut-short stream and bad tool arguments into typed errors', async () => {
        const cases: Array<[string, WireRequest, RegExp, string]> = [
            ['no host (the bench CLI)', request(undefined), /only exist inside a Theia IDE/, 'Config'],
            ['a body without messages', request(new ScriptedHost([[]]), { body: { model: 'x' } }), /must render a body with "model" and "messages"/, 'Config'],
            ['no end part', request(new ScriptedHost([[[{ type: 'text', text: 'half' }]]])), /closed the stream before finishing the answer/, 'Network'],
            ['arguments that are not an object', request(new ScriptedHost([[[{ type: 'tool_call', id: 'c', name: 'read_file', arguments: '[1]' }, { type: 'end', reason: 'tool_use' }]]])),
                /not a JSON object/, 'Provider']
        ];
        for (const [name, wireRequest, message, category] of cases) {
            const { events } = await drain(streamWire(protocol, wireRequest));
            const last = events.at(-1);
            assert.equal(last?.type, 'Error', name);
            if (last?.type === 'Error') {
                assert.match(last.error.message, message, name);
                assert.equal(last.error.category, category, `${name}: ${last.error.message}`);
            }
        }
    });

    it('stops when the caller cancels, as cancelled and not as an error', async () => {
        const abort = new AbortController();
        const host = new ScriptedHost([[[{ type: 'text', text: 'one' }], [{ type: 'text', text: 'two' }], [{ type: 'end', reason: 'end_turn' }]]]);
        const stream = streamWire(protocol, request(host, { signal: abort.signal }));
        await stream.next();
        abort.abort();
        await assert.rejects(stream.next(), CancelledError);
    });

    it('lists the host\'s models for a theia provider, and says where they exist when there is no host', async () => {
        assert.deepEqual(await listModels('theia', { hostModels: new ScriptedHost([]) }), [{ id: 'openai/gpt-test', displayName: 'GPT test' }, { id: 'ollama/qwen' }]);
        await assert.rejects(listModels('theia'), (error: QodeAssistError) => error.info.category === 'Config' && /inside a Theia IDE/.test(error.message));
    });
});
