import * as assert from 'node:assert/strict';
import { openAIChatBody, Session, SessionEvent, streamWire, WIRE_PROTOCOLS } from '@qodeassist/core';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';

describe('Session over the OpenAI Chat client', () => {
    const server = new FakeProviderServer();
    let events: SessionEvent[];
    let session: Session;
    let target: { url: string; model: string; apiKey?: string };

    before(async () => {
        await server.start();
    });
    after(() => server.stop());
    beforeEach(() => {
        server.reset();
        events = [];
        session = new Session('s1', request => streamWire(WIRE_PROTOCOLS['openai-chat'], request), openAIChatBody, batch => events.push(...batch));
        target = { url: `${server.url}/v1/chat/completions`, model: 'fake-model', apiKey: 'sk-session-secret' };
    });

    const terminals = () => events.filter(event => ['Finished', 'Failed', 'Cancelled'].includes(event.type));
    const settle = async () => {
        while (session.busy) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    };

    it('frames a request with RequestStarted and exactly one Finished, and keeps a multi-turn history', async () => {
        const first = await session.send('hello', target);
        await settle();
        await session.send('and again', target);
        await settle();
        assert.equal(events[0].type, 'RequestStarted');
        assert.deepEqual(terminals().map(event => event.type), ['Finished', 'Finished']);
        assert.equal(terminals()[0].requestId, first);
        assert.deepEqual(session.history.map(turn => turn.role), ['user', 'assistant', 'user', 'assistant']);
        assert.equal(session.history[1].text, 'Hello! How can I help you today?');
        const secondBody = JSON.parse(server.requests[1].body);
        assert.deepEqual(secondBody.messages.map((m: { content: string }) => m.content),
            ['hello', 'Hello! How can I help you today?', 'and again']);
        assert.equal(server.requests[1].headers.authorization, 'Bearer sk-session-secret');
    });

    it('cancel ends the request with one Cancelled event and no assistant turn', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        await session.send('long one', target);
        while (!events.some(event => event.type === 'TextDelta')) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        await session.cancel();
        assert.deepEqual(terminals().map(event => event.type), ['Cancelled']);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
        assert.deepEqual(session.history.map(turn => turn.role), ['user']);
    });

    it('send while in flight cancels the previous request first', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        const first = await session.send('slow', target);
        const second = await session.send('fast', target);
        await settle();
        assert.deepEqual(terminals().map(event => [event.type, event.requestId]), [['Cancelled', first], ['Finished', second]]);
    });

    it('a provider error becomes one Failed event with the redacted detail', async () => {
        server.enqueue({ kind: 'status', status: 401, body: '{"error":{"message":"bad key sk-session-secret"}}' });
        await session.send('hi', target);
        await settle();
        const failed = terminals();
        assert.equal(failed.length, 1);
        assert.equal(failed[0].type, 'Failed');
        assert.ok(!JSON.stringify(events).includes('sk-session-secret'), 'the key appears in no event');
    });
});
