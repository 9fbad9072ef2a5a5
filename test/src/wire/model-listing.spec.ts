import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import {
    authHeaders, ClientApi, CLIENT_API_INFO, CLIENT_APIS, endpointUrl, listModels, MAX_ERROR_BODY_BYTES, MAX_MODEL_LIST_BYTES, QodeAssistError, WIRE_PROTOCOLS
} from '@qodeassist/core';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { HostileProvider } from './hostile-provider';

const MiB = 1024 * 1024;

describe('model listing per client_api', () => {
    const server = new FakeProviderServer();
    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => server.reset());

    const cases: Array<[ClientApi, string, string[]]> = [
        ['ollama', '', ['qwen2.5-coder:7b', 'llama3.1:8b']],
        ['openai', '/v1', ['gpt-4o-mini', 'gpt-5', 'o4-mini']],
        ['openrouter', '/api/v1', ['gpt-4o-mini', 'text-embedding-3-small', 'gpt-5', 'whisper-1', 'tts-1-hd', 'dall-e-3',
            'omni-moderation-latest', 'o4-mini', 'gpt-4o-realtime-preview', 'gpt-4o-mini-transcribe', 'babbage-002']],
        ['claude', '', ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001']],
        ['google', '/v1beta', ['gemini-2.5-flash', 'gemini-2.5-pro']]
    ];
    for (const [api, prefix, expected] of cases) {
        it(`${api} lists ${expected.length} models`, async () => {
            const models = await listModels(api, { baseUrl: `${server.url}${prefix}`, apiKey: 'k-123456' });
            assert.deepEqual(models.map(model => model.id), expected);
        });
    }

    it('sends each API its own auth header', async () => {
        await listModels('claude', { baseUrl: server.url, apiKey: 'k-claude' });
        await listModels('google', { baseUrl: `${server.url}/v1beta`, apiKey: 'k-google' });
        await listModels('openai', { baseUrl: `${server.url}/v1`, apiKey: 'k-openai' });
        assert.equal(server.requests[0].headers['x-api-key'], 'k-claude');
        assert.equal(server.requests[0].headers['anthropic-version'], '2023-06-01');
        assert.equal(server.requests[1].headers['x-goog-api-key'], 'k-google');
        assert.equal(server.requests[2].headers.authorization, 'Bearer k-openai');
    });

    it('follows Claude\'s pagination', async () => {
        server.enqueueListing({ kind: 'replay', recording: JSON.stringify({ data: [{ id: 'a' }], has_more: true, last_id: 'a' }) });
        const models = await listModels('claude', { baseUrl: server.url });
        assert.deepEqual(models.map(model => model.id), ['a', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001']);
        assert.equal(server.requests[1].path, '/v1/models');
    });

    it('turns 401 into an Auth error without the key', async () => {
        server.enqueueListing({ kind: 'status', status: 401, body: '{"error":{"message":"bad key k-secret-999"}}' });
        await assert.rejects(listModels('openai', { baseUrl: `${server.url}/v1`, apiKey: 'k-secret-999' }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Auth' && !JSON.stringify(error.info).includes('k-secret-999'));
    });

    it('treats a missing endpoint on an OpenAI-compatible server as no models', async () => {
        server.enqueueListing({ kind: 'status', status: 404 });
        assert.deepEqual(await listModels('openai_compatible', { baseUrl: `${server.url}/proxy` }), []);
        server.enqueueListing({ kind: 'status', status: 404 });
        await assert.rejects(listModels('openai', { baseUrl: `${server.url}/v1` }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Config');
    });

    it('says codestral cannot list models (Config)', async () => {
        await assert.rejects(listModels('codestral'), (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Config');
    });

    it('reports a non-JSON answer as a Provider error', async () => {
        server.enqueueListing({ kind: 'replay', recording: '<html>login</html>' });
        await assert.rejects(listModels('ollama', { baseUrl: server.url }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Provider' && error.info.providerDetail === '<html>login</html>');
    });

    it('has a chat endpoint and protocol for every HTTP client_api (sixteen), and a default URL for all but openai_compatible', () => {
        const http = CLIENT_APIS.filter(api => WIRE_PROTOCOLS[CLIENT_API_INFO[api].chatProtocol].framing !== 'host');
        assert.equal(http.length, 16);
        assert.deepEqual(CLIENT_APIS.filter(api => !http.includes(api)), ['theia'], 'the IDE\'s own models are the only API without HTTP');
        for (const api of http) {
            assert.ok(CLIENT_API_INFO[api].chatEndpoint.startsWith('/'), api);
            assert.equal(CLIENT_API_INFO[api].defaultUrl === undefined, api === 'openai_compatible', api);
        }
    });

    it('builds endpoint URLs with ${MODEL} encoded', () => {
        assert.equal(endpointUrl('https://g.example/v1beta/', CLIENT_API_INFO.google.chatEndpoint, 'gemini-2.5-flash'),
            'https://g.example/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
        assert.equal(endpointUrl('http://h', '/x/${MODEL}', 'a/b c'), 'http://h/x/a%2Fb%20c');
    });

    it('omits the Bearer header when there is no key', () => {
        assert.deepEqual(authHeaders('ollama', undefined), {});
        assert.deepEqual(authHeaders('claude', undefined), { 'anthropic-version': '2023-06-01' });
    });
});

describe('model listing: bounds on what the provider sends back', () => {
    const hostile = new HostileProvider();
    let url: string;
    before(async () => { url = await hostile.start(); });
    after(() => hostile.stop());
    beforeEach(() => { hostile.outcomes.length = 0; });

    it('a model list longer than 16 MiB → Provider naming the limit, not read to its end', async () => {
        hostile.answer = { status: 200, contentType: 'application/json', prefix: '{"data":[{"id":"', totalBytes: 200 * MiB };
        await assert.rejects(listModels('openai', { baseUrl: `${url}/v1` }), (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Provider'
            && error.info.message.startsWith(`The model list from ${url} is longer than 16 MiB (the limit on a model list), so it was not read.`));
        const outcome = await hostile.outcomes[0];
        assert.equal(outcome.closedEarly, true);
        assert.ok(outcome.bytesWritten < MAX_MODEL_LIST_BYTES + 16 * MiB, `the server got rid of ${outcome.bytesWritten} bytes`);
    });

    it('a 100 MB error body → read to 64 KiB, the detail cut and saying so, the connection closed', async () => {
        hostile.answer = { status: 500, contentType: 'text/plain', prefix: 'overloaded ', totalBytes: 100 * MiB };
        await assert.rejects(listModels('openai', { baseUrl: `${url}/v1` }), (error: unknown) => error instanceof QodeAssistError && error.info.status === 500
            && error.info.providerDetail === `overloaded ${'a'.repeat(2_000 - 'overloaded '.length)}… (the error body was longer than 64 KiB; the rest was not read)`);
        const outcome = await hostile.outcomes[0];
        assert.equal(outcome.closedEarly, true);
        assert.ok(outcome.bytesWritten < MAX_ERROR_BODY_BYTES + 16 * MiB, `the server got rid of ${outcome.bytesWritten} bytes`);
    });

    it('a redirect to another host is refused with a Config error, and the key never goes there', async () => {
        const elsewhere = new FakeProviderServer();
        await elsewhere.start();
        const redirecting = createServer((_request, response) => {
            response.writeHead(302, { location: `${elsewhere.url}/v1/models` });
            response.end();
        });
        await new Promise<void>(resolve => redirecting.listen(0, '127.0.0.1', resolve));
        const origin = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
        try {
            await assert.rejects(listModels('openai', { baseUrl: `${origin}/v1`, apiKey: 'k-secret' }), (error: unknown) => error instanceof QodeAssistError
                && error.info.category === 'Config' && error.info.message.includes(`redirected the request (HTTP 302) to ${elsewhere.url}`));
            assert.equal(elsewhere.requests.length, 0);
        } finally {
            redirecting.closeAllConnections();
            await new Promise(resolve => redirecting.close(resolve));
            await elsewhere.stop();
        }
    });
});
