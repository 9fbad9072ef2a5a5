import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { EnvironmentSecretsStore } from '@qodeassist/core';
import { FakeProviderServer } from '@qodeassist/test';
import { QodeAssistChatClient, SessionEvent } from '../common/chat-protocol';
import { QodeAssistChatServiceImpl } from './chat-service-impl';

describe('QodeAssistChatServiceImpl', () => {
    const server = new FakeProviderServer();
    const received: Array<{ sessionId: string; event: SessionEvent }> = [];
    const client: QodeAssistChatClient = { onSessionEvents: (sessionId, events) => received.push(...events.map(event => ({ sessionId, event }))) };
    let service: QodeAssistChatServiceImpl;

    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => {
        server.reset();
        received.length = 0;
        service = new QodeAssistChatServiceImpl(new EnvironmentSecretsStore({ OPENAI_API_KEY: 'sk-backend-only-key' }));
        service.setClient(client);
    });

    async function finished(): Promise<void> {
        while (!received.some(({ event }) => ['Finished', 'Failed', 'Cancelled'].includes(event.type))) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }

    it('streams a session\'s events to the client tagged with its session id', async () => {
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', { url: `${server.url}/v1/`, model: 'm', apiKeyRef: 'openai' });
        await finished();
        assert.ok(received.every(entry => entry.sessionId === sessionId));
        assert.equal(received.filter(({ event }) => event.type === 'TextDelta').length, 9);
        assert.equal(server.requests[0].path, '/v1/chat/completions');
    });

    it('resolves the key on the backend and never puts it in an event', async () => {
        server.enqueue({ kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-backend-only-key"}}' });
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', { url: server.url + '/v1', model: 'm', apiKeyRef: 'openai' });
        await finished();
        assert.equal(server.requests[0].headers.authorization, 'Bearer sk-backend-only-key');
        assert.equal(received.at(-1)?.event.type, 'Failed');
        assert.ok(!JSON.stringify(received).includes('sk-backend-only-key'));
    });

    it('sends no Authorization header when the key reference has no value', async () => {
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', { url: server.url + '/v1', model: 'm', apiKeyRef: 'ollama' });
        await finished();
        assert.equal(server.requests[0].headers.authorization, undefined);
    });

    it('refuses a send to an unknown session with a message saying what to do', async () => {
        await assert.rejects(service.send('nope', 'hi', { url: server.url, model: 'm', apiKeyRef: 'openai' }), /Start a new chat/);
    });

    it('cancels every request when the connection closes', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        const sessionId = await service.openSession();
        await service.send(sessionId, 'long', { url: server.url + '/v1', model: 'm', apiKeyRef: 'openai' });
        while (!received.some(({ event }) => event.type === 'TextDelta')) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        service.dispose();
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });
});
