import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
    CancelledError, ToolCall, ToolExecutor, ToolLoopRunner, WIRE_PROTOCOLS, WireRequest
} from '@qodeassist/core';
import { FakeProviderServer, FIXTURES_DIR } from '../fake-provider/fake-provider-server';
import { PROTOCOL_CASES } from './protocol-cases';
import { drain } from './stream-summary';

/** Deterministic tools: the first call succeeds, any search fails, so both result shapes are replayed. */
class ScriptedTools implements ToolExecutor {
    readonly calls: ToolCall[] = [];
    async execute(call: ToolCall): Promise<{ content: string; isError?: boolean }> {
        this.calls.push(call);
        if (call.name === 'search_project') {
            return { content: 'Search failed: the pattern matches too many files.', isError: true };
        }
        return { content: `result of ${call.name} ${JSON.stringify(call.arguments)}` };
    }
}

describe('ToolLoopRunner', () => {
    const server = new FakeProviderServer();
    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => server.reset());

    const request = (testCase: typeof PROTOCOL_CASES[number], overrides: Partial<WireRequest> = {}): WireRequest => ({
        requestId: `loop-${testCase.protocol}`, url: `${server.url}${testCase.path}`, headers: testCase.headers, body: testCase.body,
        retry: { maxAttempts: 1 }, ...overrides
    });

    for (const testCase of PROTOCOL_CASES.filter(c => c.toolFixture)) {
        it(`${testCase.protocol}: runs two rounds and replays the continuation byte for byte`, async () => {
            server.enqueue({ kind: 'replay', fixture: testCase.toolFixture }, { kind: 'replay', fixture: testCase.textFixture });
            const tools = new ScriptedTools();
            const runner = new ToolLoopRunner(tools);
            const { events, turn } = await drain(runner.run(WIRE_PROTOCOLS[testCase.protocol], request(testCase)));

            assert.equal(turn?.stopReason, 'end_turn');
            assert.equal(server.requests.length, 2);
            assert.equal(tools.calls.length, 2);
            const results = events.filter(event => event.type === 'ToolResult');
            assert.deepEqual(results.map(result => [result.type === 'ToolResult' && result.isError]), [[tools.calls[0].name === 'search_project'], [tools.calls[1].name === 'search_project']]);
            assert.deepEqual(events.filter(event => event.type === 'MessageStop').map(event => event.type === 'MessageStop' && event.stopReason), ['tool_use', 'end_turn']);

            const golden = join(FIXTURES_DIR, testCase.protocol, 'continuation.golden.json');
            const sent = server.requests[1].body;
            if (process.env.UPDATE_GOLDEN === '1' || !existsSync(golden)) {
                writeFileSync(golden, sent);
            }
            assert.equal(sent, readFileSync(golden, 'utf8'), `continuation body differs from ${golden}; review and rerun with UPDATE_GOLDEN=1 if intended`);
            assert.deepEqual(runner.activeRequests, []);
        });
    }

    const openai = PROTOCOL_CASES[0];

    it('stops with a Tool error after maxRounds and cleans up', async () => {
        server.setDefault({ kind: 'replay', fixture: openai.toolFixture });
        const runner = new ToolLoopRunner(new ScriptedTools(), { maxRounds: 2 });
        const { events, turn } = await drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai)));
        assert.equal(turn, undefined);
        const last = events.at(-1);
        assert.equal(last?.type === 'Error' && last.error.category, 'Tool');
        assert.equal(server.requests.length, 3);
        assert.deepEqual(runner.activeRequests, []);
    });

    it('aborts instead of sending an empty continuation', async () => {
        server.enqueue({ kind: 'replay', fixture: openai.toolFixture });
        const runner = new ToolLoopRunner(new ScriptedTools());
        const { events } = await drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai, { body: { model: 'm', stream: true } })));
        const last = events.at(-1);
        assert.ok(last?.type === 'Error' && /Could not build the tool continuation/.test(last.error.message));
        assert.equal(server.requests.length, 1);
    });

    it('keeps two interleaved requests apart', async () => {
        server.setDefault({ kind: 'replay', fixture: openai.textFixture, chunkDelayMs: 5 });
        server.enqueue({ kind: 'replay', fixture: openai.toolFixture, chunkDelayMs: 5 }, { kind: 'replay', fixture: openai.toolFixture, chunkDelayMs: 5 });
        const runner = new ToolLoopRunner(new ScriptedTools());
        const first = drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai, { requestId: 'a' })));
        const second = drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai, { requestId: 'b' })));
        await new Promise(resolve => setTimeout(resolve, 20));
        assert.deepEqual(runner.activeRequests.sort(), ['a', 'b']);
        const [a, b] = await Promise.all([first, second]);
        assert.ok(a.events.every(event => event.requestId === 'a'));
        assert.ok(b.events.every(event => event.requestId === 'b'));
        assert.equal(a.turn?.stopReason, 'end_turn');
        assert.equal(b.turn?.stopReason, 'end_turn');
        assert.equal(server.requests.length, 4);
        assert.deepEqual(runner.activeRequests, []);
    });

    it('refuses a second loop with the same request id', async () => {
        server.setDefault({ kind: 'replay', fixture: openai.textFixture, chunkDelayMs: 20 });
        const runner = new ToolLoopRunner(new ScriptedTools());
        const first = drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai, { requestId: 'same' })));
        await new Promise(resolve => setTimeout(resolve, 10));
        await assert.rejects(drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai, { requestId: 'same' }))), /already running/);
        await first;
    });

    it('feeds a throwing tool back to the model as an error result and goes on', async () => {
        server.enqueue({ kind: 'replay', fixture: openai.toolFixture }, { kind: 'replay', fixture: openai.textFixture });
        const runner = new ToolLoopRunner({ execute: async () => { throw new Error('disk on fire'); } });
        const { events, turn } = await drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai)));
        assert.equal(turn?.stopReason, 'end_turn');
        const results = events.filter(event => event.type === 'ToolResult');
        assert.equal(results.length, 2);
        assert.ok(results.every(result => result.type === 'ToolResult' && result.isError && /disk on fire/.test(result.content)));
        assert.match(JSON.parse(server.requests[1].body).messages.at(-1).content, /Tool "get_weather" failed: disk on fire/);
    });

    it('cancels during tool execution and cleans up', async () => {
        server.enqueue({ kind: 'replay', fixture: openai.toolFixture });
        const controller = new AbortController();
        const runner = new ToolLoopRunner({
            execute: async () => {
                controller.abort();
                return { content: 'late' };
            }
        });
        await assert.rejects(drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai, { signal: controller.signal }))), CancelledError);
        assert.equal(server.requests.length, 1);
        assert.deepEqual(runner.activeRequests, []);
    });

    it('cleans up after a failed round', async () => {
        server.enqueue({ kind: 'status', status: 400 });
        const runner = new ToolLoopRunner(new ScriptedTools());
        const { events } = await drain(runner.run(WIRE_PROTOCOLS['openai-chat'], request(openai)));
        assert.equal(events.at(-1)?.type, 'Error');
        assert.deepEqual(runner.activeRequests, []);
    });
});
