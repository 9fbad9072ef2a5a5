import * as assert from 'node:assert/strict';
import { FakeProviderServer } from './fake-provider-server';
import { splitSseEvents } from './protocols';

async function post(url: string, body: object): Promise<Response> {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const userTurn = (text: string) => ({ messages: [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: text }] });

describe('FakeProviderServer', () => {
    let server: FakeProviderServer;
    beforeEach(async () => {
        server = new FakeProviderServer({ hangMs: 300 });
        await server.start();
    });
    afterEach(() => server.stop());

    it('binds 127.0.0.1 on a random port', () => {
        assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    });

    it('replays a recorded OpenAI stream byte for byte', async () => {
        const response = await post(`${server.url}/v1/chat/completions`, userTurn('hi'));
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('content-type'), 'text/event-stream');
        const text = await response.text();
        assert.match(text, /^data: \{"id":"chatcmpl-fx1"/);
        assert.ok(text.endsWith('data: [DONE]\n\n'));
        assert.equal(await server.requests[0].ended, 'completed');
        assert.equal(server.requests[0].recordsSent, splitSseEvents(text).length);
    });

    it('picks a rule by the last user message, not the history', async () => {
        server.when({ promptIncludes: 'earlier', scenario: { kind: 'status', status: 500 } })
            .when({ promptIncludes: 'now', scenario: { kind: 'status', status: 429, headers: { 'retry-after': '7' } } });
        const response = await post(`${server.url}/v1/chat/completions`, userTurn('answer now'));
        assert.equal(response.status, 429);
        assert.equal(response.headers.get('retry-after'), '7');
    });

    it('answers queued scenarios once, in order, before rules and default', async () => {
        server.enqueue({ kind: 'status', status: 401 }, { kind: 'status', status: 503 });
        const statuses = [];
        for (let i = 0; i < 3; i++) {
            statuses.push((await post(`${server.url}/v1/chat/completions`, userTurn('x'))).status);
        }
        assert.deepEqual(statuses, [401, 503, 200]);
    });

    it('keeps queued model answers for model requests: a model listing meanwhile gets its own queue or the fixture', async () => {
        server.enqueue({ kind: 'status', status: 401 });
        server.enqueueListing({ kind: 'status', status: 503 });
        assert.equal((await fetch(`${server.url}/v1/models`)).status, 503);
        assert.equal((await fetch(`${server.url}/v1/models`)).status, 200, 'then the recorded list');
        assert.equal((await post(`${server.url}/v1/chat/completions`, userTurn('x'))).status, 401, 'the queued answer waited for the model request');
    });

    it('answers from the request when the scenario is dynamic, after the first-byte delay', async () => {
        server.setDefault({
            kind: 'dynamic',
            respond: body => ({ kind: 'status', status: 200, body: JSON.stringify({ echo: JSON.parse(body).messages.at(-1).content }), firstByteDelayMs: 150 })
        });
        const started = Date.now();
        const response = await post(`${server.url}/v1/chat/completions`, userTurn('ping'));
        assert.deepEqual(await response.json(), { echo: 'ping' });
        assert.ok(Date.now() - started >= 140, `answered after ${Date.now() - started} ms`);
    });

    it('a client that gives up during the first-byte delay ends the request as aborted', async () => {
        server.setDefault({ kind: 'replay', recording: 'data: {}\n\n', firstByteDelayMs: 300 });
        const controller = new AbortController();
        const pending = fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(userTurn('x')), signal: controller.signal }).catch(() => undefined);
        await new Promise(resolve => setTimeout(resolve, 50));
        controller.abort();
        await pending;
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
        assert.equal(server.requests[0].recordsSent, 0);
    });

    it('resets the connection after the given number of records', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/text.sse', resetAfterRecords: 2 });
        const response = await post(`${server.url}/v1/chat/completions`, userTurn('x'));
        await assert.rejects(response.text());
        assert.equal(await server.requests[0].ended, 'reset');
        assert.equal(server.requests[0].recordsSent, 2);
    });

    it('ends a hang by itself after hangMs', async () => {
        server.enqueue({ kind: 'hang' });
        await assert.rejects(post(`${server.url}/v1/chat/completions`, userTurn('x')));
        assert.equal(await server.requests[0].ended, 'hung');
    });

    it('answers 404 with a message for an unknown route', async () => {
        const response = await post(`${server.url}/v1/unknown`, {});
        assert.equal(response.status, 404);
        assert.match(await response.text(), /no route for POST \/v1\/unknown/);
    });

    it('closes itself after its maximum lifetime', async () => {
        const shortLived = new FakeProviderServer({ maxLifetimeMs: 50 });
        const url = await shortLived.start();
        await new Promise(resolve => setTimeout(resolve, 150));
        await assert.rejects(post(`${url}/v1/chat/completions`, userTurn('x')));
    });
});
