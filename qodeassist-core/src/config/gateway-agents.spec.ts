import * as assert from 'node:assert/strict';
import { gatewaySettings } from './gateway';
import { AcpGatewaySchema, gatewayAgentApis, gatewayAgentBaseUrl } from './gateway-agents';
import { QodeAssistError } from '../wire/error-info';

describe('gateway-agents', () => {
    it('accepts the bindings the agents document: base URL, key and header variables per API', () => {
        for (const table of [
            { api: 'anthropic', base_url: 'ANTHROPIC_BASE_URL', key: 'ANTHROPIC_AUTH_TOKEN', headers: 'ANTHROPIC_CUSTOM_HEADERS' },
            { api: 'anthropic', base_url: 'ANTHROPIC_BASE_URL', key: 'ANTHROPIC_API_KEY' },
            { api: 'openai', base_url: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY' },
            { api: 'gemini', base_url: 'GOOGLE_GEMINI_BASE_URL', key: 'GEMINI_API_KEY' }
        ]) {
            assert.deepEqual(AcpGatewaySchema.parse(table), table);
        }
    });

    it('refuses a key, URL or header variable outside the allowlist, a URL in place of a name, and unknown fields', () => {
        const refused: Array<[Record<string, unknown>, RegExp]> = [
            [{ api: 'anthropic', base_url: 'ANTHROPIC_BASE_URL', key: 'LD_PRELOAD' }, /key = "LD_PRELOAD" is not a anthropic agent's key variable/],
            [{ api: 'openai', base_url: 'https://evil.example/v1', key: 'OPENAI_API_KEY' }, /base_url = "https:\/\/evil\.example\/v1" is not/],
            [{ api: 'openai', base_url: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY', headers: 'NODE_OPTIONS' }, /QodeAssist knows no headers variable of a openai agent/],
            [{ api: 'gemini', base_url: 'ANTHROPIC_BASE_URL', key: 'GEMINI_API_KEY' }, /use "GOOGLE_GEMINI_BASE_URL"/],
            [{ api: 'bedrock', base_url: 'ANTHROPIC_BASE_URL', key: 'ANTHROPIC_API_KEY' }, /anthropic|openai|gemini/],
            [{ api: 'openai', base_url: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY', url: 'https://evil.example' }, /url/]
        ];
        for (const [table, message] of refused) {
            const result = AcpGatewaySchema.safeParse(table);
            assert.equal(result.success, false, JSON.stringify(table));
            assert.match(result.error!.issues.map(issue => `${issue.message} ${JSON.stringify(issue)}`).join('\n'), message);
        }
    });

    it('joins the gateway URL per API as the providers do: the root for Anthropic and Gemini, the root with /v1 for OpenAI', () => {
        for (const url of ['https://gw.corp.example', 'https://gw.corp.example/v1/', 'https://gw.corp.example/V1']) {
            const gateway = gatewaySettings({ QODEASSIST_GATEWAY_URL: url })!;
            assert.equal(gatewayAgentBaseUrl(gateway, 'anthropic'), 'https://gw.corp.example');
            assert.equal(gatewayAgentBaseUrl(gateway, 'gemini'), 'https://gw.corp.example');
            assert.equal(gatewayAgentBaseUrl(gateway, 'openai'), 'https://gw.corp.example/v1');
        }
        const nested = gatewaySettings({ QODEASSIST_GATEWAY_URL: 'https://corp.example/litellm/v1', QODEASSIST_GATEWAY_KIND: 'anthropic' })!;
        assert.equal(gatewayAgentBaseUrl(nested, 'openai'), 'https://corp.example/litellm/v1');
        assert.equal(gatewayAgentBaseUrl(nested, 'anthropic'), 'https://corp.example/litellm');
    });

    it('serves every API to agents unless the administrator names fewer; an unknown name is a Config error', () => {
        assert.deepEqual([...gatewayAgentApis({})].sort(), ['anthropic', 'gemini', 'openai']);
        assert.deepEqual([...gatewayAgentApis({ QODEASSIST_GATEWAY_AGENT_APIS: ' OpenAI , anthropic' })].sort(), ['anthropic', 'openai']);
        assert.throws(() => gatewayAgentApis({ QODEASSIST_GATEWAY_AGENT_APIS: 'openai,vertex' }),
            (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Config' && /"vertex"/.test(error.message));
    });
});
