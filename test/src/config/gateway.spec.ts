import * as assert from 'node:assert/strict';
import {
    ChatEvent, ChatFeature, ChatOwners, ConfigurationService, EnvironmentSecretsStore, gatewaySettings, GatewaySettings, QodeAssistRuntime
} from '@qodeassist/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { ConfigFixture } from './config-fixture';
import { FAKE_KEYS, writeFakeAgents } from './fake-agents';

const GATEWAY_KEY = 'sk-gateway-virtual-key-0123456789';

describe('gateway mode: every provider call through one gateway, with its key and the user\'s identity', () => {
    it('reads the gateway from the environment: URL, kind, user header and the user', () => {
        const cases: Array<[Record<string, string>, GatewaySettings | undefined]> = [
            [{}, undefined],
            [{ QODEASSIST_GATEWAY_URL: 'https://gw.corp.example/v1/', USER: 'alice' }, { url: 'https://gw.corp.example/v1', kind: 'openai', userHeader: 'x-litellm-end-user-id', user: 'alice' }],
            [{ QODEASSIST_GATEWAY_URL: 'https://gw.corp.example', QODEASSIST_GATEWAY_KIND: 'Anthropic', QODEASSIST_GATEWAY_USER_HEADER: 'x-litellm-customer-id', QODEASSIST_GATEWAY_USER_ENV: 'THEIACLOUD_USER', THEIACLOUD_USER: 'bob@corp', USER: 'root' },
                { url: 'https://gw.corp.example', kind: 'anthropic', userHeader: 'x-litellm-customer-id', user: 'bob@corp' }],
            [{ QODEASSIST_GATEWAY_URL: 'https://gw.corp.example/v1', QODEASSIST_GATEWAY_USER: 'carol', USER: 'root' }, { url: 'https://gw.corp.example/v1', kind: 'openai', userHeader: 'x-litellm-end-user-id', user: 'carol' }]
        ];
        for (const [env, expected] of cases) {
            assert.deepEqual(gatewaySettings(env), expected, JSON.stringify(env));
        }
    });

    describe('against the fake provider standing in for the gateway', () => {
        const server = new FakeProviderServer();
        const fixture = new ConfigFixture();
        let home: string;
        before(async () => {
            await server.start();
            writeFakeAgents(fixture, server.url, 'fake-openai', 'user');
        });
        after(async () => {
            await server.stop();
            fixture.dispose();
        });
        beforeEach(() => {
            server.reset();
            home = mkdtempSync(join(tmpdir(), 'qodeassist-gateway-'));
        });
        afterEach(() => rmSync(home, { recursive: true, force: true }));

        async function send(gateway: GatewaySettings, agent: string): Promise<ChatEvent[]> {
            const configuration = new ConfigurationService({ ...fixture.roots, gateway });
            const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({ ...FAKE_KEYS, QODEASSIST_GATEWAY_API_KEY: GATEWAY_KEY }), userHome: home });
            const feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
            const events: ChatEvent[] = [];
            feature.setHost({ onEvents: (_id, batch) => events.push(...batch), onNotice: () => undefined, requestToolPermission: async () => 'deny' });
            try {
                const { chatId } = await feature.open({ location: 'user' });
                await feature.send(chatId, { text: 'hello', attachments: [] }, { agent });
                const deadline = Date.now() + 10_000;
                while (!events.some(event => event.type === 'Finished' || event.type === 'Failed') && Date.now() < deadline) {
                    await new Promise(resolve => setTimeout(resolve, 10));
                }
                return events;
            } finally {
                feature.dispose();
                await feature.saved();
                runtime.dispose();
                configuration.dispose();
            }
        }
        const providerKeysAbsent = () => {
            for (const request of server.requests) {
                const seen = JSON.stringify(request.headers) + request.body;
                for (const key of Object.values(FAKE_KEYS)) {
                    assert.ok(!seen.includes(key), `the provider's own key ${key.slice(0, 8)}… never left for the gateway`);
                }
            }
        };

        it('openai kind: the request goes to the gateway\'s path with the gateway key and the user\'s header, never a provider key', async () => {
            server.setDefault({ kind: 'replay', recording: openAITextRecording('through the gateway') });
            const events = await send({ url: `${server.url}/gateway/v1`, kind: 'openai', userHeader: 'x-litellm-end-user-id', user: 'alice' }, 'fake-openai');
            assert.ok(events.some(event => event.type === 'Finished'), JSON.stringify(events.filter(event => event.type === 'Failed')));
            assert.equal(server.requests.length, 1);
            const request = server.requests[0];
            assert.equal(request.path, '/gateway/v1/chat/completions');
            assert.equal(request.headers.authorization, `Bearer ${GATEWAY_KEY}`);
            assert.equal(request.headers['x-litellm-end-user-id'], 'alice');
            assert.equal(JSON.parse(request.body).model, 'fake-model', 'the gateway routes by the agent\'s model');
            providerKeysAbsent();
        });

        it('an agent whose API the gateway does not speak is left out with a notice, and nothing is sent', async () => {
            const configuration = new ConfigurationService({ ...fixture.roots, gateway: { url: `${server.url}/gateway/v1`, kind: 'openai', userHeader: 'x-litellm-end-user-id' } });
            try {
                const current = configuration.current;
                assert.equal(current.agents.has('fake-claude'), false);
                assert.equal(current.agents.has('fake-gemini'), false);
                assert.ok(current.agents.has('fake-responses'), 'the Responses API goes through an OpenAI gateway too');
                assert.ok(current.issues.some(issue => issue.message.includes('provider "fake-claude-provider" is left out in gateway mode')));
                assert.equal(current.providers.get('fake-openai-provider')?.url, `${server.url}/gateway/v1`, 'model lists go to the gateway too');
            } finally {
                configuration.dispose();
            }
            const events = await send({ url: `${server.url}/gateway/v1`, kind: 'openai', userHeader: 'x-litellm-end-user-id' }, 'fake-claude');
            assert.ok(events.some(event => event.type === 'Failed'));
            assert.equal(server.requests.length, 0);
        });

        it('anthropic kind: Claude agents go to the gateway\'s /v1/messages with the gateway key as x-api-key', async () => {
            server.setDefault({ kind: 'replay', fixture: 'anthropic-messages/text.sse' });
            const events = await send({ url: `${server.url}/anthropic-gw`, kind: 'anthropic', userHeader: 'x-litellm-customer-id', user: 'bob' }, 'fake-claude');
            assert.ok(events.some(event => event.type === 'Finished'), JSON.stringify(events.filter(event => event.type === 'Failed')));
            const request = server.requests[0];
            assert.equal(request.path, '/anthropic-gw/v1/messages');
            assert.equal(request.headers['x-api-key'], GATEWAY_KEY);
            assert.equal(request.headers['x-litellm-customer-id'], 'bob');
            providerKeysAbsent();
        });
    });
});
