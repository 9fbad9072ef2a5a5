import * as assert from 'node:assert/strict';
import { createServer, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { defaultConfigRoots } from '../config/config-layers';
import { gatewayBaseUrl, gatewayHeadersFor, GatewaySettings } from '../config/gateway';
import { EnvironmentSecretsStore } from '../config/secrets-store';
import { listModels } from '../wire/model-listing';
import { loadConfiguration } from './configuration-loader';
import { prepareAgentTarget } from './agent-request';

const bundled = defaultConfigRoots();
const load = (gateway?: GatewaySettings) => loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, ...(gateway ? { gateway } : {}) });

/**
 * Every bundled concrete agent and the path its requests take through each kind of gateway,
 * below the gateway's root; `undefined`: the gateway does not serve it (another API, or FIM).
 */
const ROUTES: Record<string, { openai?: string; anthropic?: string }> = {
    'claude-chat': { anthropic: '/v1/messages' }, 'claude-completion': { anthropic: '/v1/messages' },
    'claude-compression': { anthropic: '/v1/messages' }, 'claude-refactor': { anthropic: '/v1/messages' },
    'claude-thinking-chat': { anthropic: '/v1/messages' },
    'codestral-fim': {},
    'deepseek-chat': { openai: '/v1/chat/completions' }, 'deepseek-completion': { openai: '/v1/chat/completions' },
    'gemini-chat': {}, 'gemini-completion': {}, 'gemini-compression': {}, 'gemini-refactor': {},
    // llama.cpp's and Mistral's endpoints carry /v1 themselves: through the gateway it is not doubled.
    'llamacpp-chat': { openai: '/v1/chat/completions' }, 'llamacpp-fim': {},
    'lmstudio-chat': { openai: '/v1/chat/completions' }, 'lmstudio-responses-chat': { openai: '/v1/responses' },
    'mistral-chat': { openai: '/v1/chat/completions' }, 'mistral-fim': {},
    'ollama-chat': {}, 'ollama-completion': {}, 'ollama-compression': {}, 'ollama-refactor': {},
    'ollama-fim-codellama': {}, 'ollama-fim-qwen25coder': {}, 'ollama-fim-starcoder2': {}, 'ollama-fim-suffix': {},
    'openai-chat': { openai: '/v1/chat/completions' }, 'openai-completion': { openai: '/v1/chat/completions' },
    'openai-compression': { openai: '/v1/chat/completions' }, 'openai-refactor': { openai: '/v1/chat/completions' },
    'openrouter-chat': { openai: '/v1/chat/completions' },
    'qwen-chat': { openai: '/v1/chat/completions' }, 'qwen-responses-chat': { openai: '/v1/responses' },
    'qwen3-coder-fim-chat': { openai: '/v1/chat/completions' },
    'responses-chat': { openai: '/v1/responses' }, 'responses-completion': { openai: '/v1/responses' },
    'responses-compression': { openai: '/v1/responses' }, 'responses-refactor': { openai: '/v1/responses' },
    'claude-next-edit': { anthropic: '/v1/messages' }, 'openai-next-edit': { openai: '/v1/chat/completions' }, 'ollama-next-edit': {},
    'zeta-ollama': {}, 'zeta-llamacpp': {}
};

const ROOT = 'https://gateway.example';
const KEY = 'sk-gateway-virtual-key-0123456789';

describe('gateway mode: every bundled agent\'s request URL through each kind of gateway', () => {
    const plain = load();
    it('the table below names every bundled concrete agent', () => {
        assert.deepEqual([...plain.agents.keys()].sort(), Object.keys(ROUTES).sort());
    });

    for (const kind of ['openai', 'anthropic'] as const) {
        // The README's form (with /v1) and the bare root reach the same paths.
        for (const url of [`${ROOT}/v1`, ROOT, `${ROOT}/v1/`]) {
            const gateway: GatewaySettings = { url: url.replace(/\/+$/, ''), kind, userHeader: 'x-litellm-end-user-id', user: 'alice' };
            it(`${kind} gateway at ${url}: each agent goes to exactly its path below ${ROOT}, with the gateway key and alice's identity, or is left out with a notice`, async () => {
                const configuration = load(gateway);
                const secrets = new EnvironmentSecretsStore({ QODEASSIST_GATEWAY_API_KEY: KEY });
                for (const [name, routes] of Object.entries(ROUTES)) {
                    const path = routes[kind];
                    const agent = configuration.agents.get(name);
                    if (path === undefined) {
                        assert.equal(agent, undefined, `${name} is not served by an ${kind} gateway`);
                        assert.ok(configuration.issues.some(issue => issue.severity === 'notice' && issue.message.includes('left out in gateway mode')
                            && (issue.message.includes(`agent "${name}"`) || issue.message.includes(`provider "${plain.agents.get(name)?.provider.instance.name}"`))),
                        `a notice says why ${name} is left out`);
                        continue;
                    }
                    assert.ok(agent, `${name} is served by an ${kind} gateway`);
                    const target = await prepareAgentTarget(agent, secrets);
                    assert.equal(target.url, `${ROOT}${path}`, name);
                    assert.equal(target.headers['x-litellm-end-user-id'], 'alice', `${name} carries the identity header`);
                    assert.equal(kind === 'openai' ? target.headers.authorization : target.headers['x-api-key'], kind === 'openai' ? `Bearer ${KEY}` : KEY, `${name} carries the gateway key`);
                }
                assert.deepEqual(configuration.issues.filter(issue => issue.severity === 'error'), []);
                for (const provider of configuration.providers.values()) {
                    assert.equal(provider.url, gatewayBaseUrl(gateway), 'model lists go to the gateway\'s base too');
                    assert.ok(!provider.url.includes('/v1/v1'));
                }
            });
        }
    }

    it('a FIM agent on a provider the gateway serves is left out, naming its endpoint, and its chat sibling stays', () => {
        const configuration = load({ url: `${ROOT}/v1`, kind: 'openai', userHeader: 'x-litellm-end-user-id' });
        assert.equal(configuration.agents.has('mistral-fim'), false);
        assert.ok(configuration.agents.has('mistral-chat'));
        const notice = configuration.issues.find(issue => issue.message.includes('agent "mistral-fim" is left out in gateway mode'));
        assert.match(notice?.message ?? '', /endpoint \/v1\/fim\/completions is not the chat endpoint of mistral/);
    });
});

describe('gateway mode: a model list (the Quick Setup\'s too) carries the identity header to the gateway, and nowhere else', () => {
    const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
    const server = createServer((request, response) => {
        seen.push({ url: request.url ?? '', headers: request.headers });
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'gpt-4o' }] }));
    });
    let origin = '';
    before(async () => {
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>(resolve => server.close(() => resolve())));
    beforeEach(() => seen.splice(0));

    it('lists the gateway\'s models at <root>/v1/models with the key and the user\'s identity', async () => {
        const gateway: GatewaySettings = { url: origin, kind: 'openai', userHeader: 'x-litellm-end-user-id', user: 'alice' };
        const base = gatewayBaseUrl(gateway);
        const models = await listModels('openai_compatible', { baseUrl: base, apiKey: KEY, headers: gatewayHeadersFor(base, gateway) });
        assert.deepEqual(models.map(model => model.id), ['gpt-4o']);
        assert.equal(seen.length, 1);
        assert.equal(seen[0].url, '/v1/models');
        assert.equal(seen[0].headers['x-litellm-end-user-id'], 'alice');
        assert.equal(seen[0].headers.authorization, `Bearer ${KEY}`);
    });

    it('a URL at another origin (one the user typed in the Quick Setup) gets no identity header', async () => {
        const gateway: GatewaySettings = { url: 'https://gateway.example/v1', kind: 'openai', userHeader: 'x-litellm-end-user-id', user: 'alice' };
        await listModels('openai_compatible', { baseUrl: `${origin}/v1`, headers: gatewayHeadersFor(`${origin}/v1`, gateway) });
        assert.equal(seen.length, 1);
        assert.equal(seen[0].headers['x-litellm-end-user-id'], undefined, 'the user\'s identity stayed home');
    });

    it('the identity header cannot replace the key\'s header', async () => {
        await listModels('openai_compatible', { baseUrl: `${origin}/v1`, apiKey: KEY, headers: { authorization: 'Bearer someone-else' } });
        assert.equal(seen[0].headers.authorization, `Bearer ${KEY}`);
    });
});
