import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AcpAgentEntry, loadAcpAgents } from '../config/acp-agent-config';
import { ConfigIssue } from '../config/config-issue';
import { configLayers } from '../config/config-layers';
import { acpAgentStatus } from './acp-agent-check';
import { AcpAgentDefinition } from './acp-definition';
import { agentEnvironment } from './agent-environment';
import { AgentGatewayError } from './agent-gateway';

/** The bundled catalogue as the configuration layer loads it. */
function bundledCatalogue(): Map<string, AcpAgentEntry> {
    const issues: ConfigIssue[] = [];
    const agents = loadAcpAgents(configLayers({
        bundledAgents: dirname(require.resolve('@qodeassist/agents/package.json')),
        bundledProviders: dirname(require.resolve('@qodeassist/providers/package.json'))
    }), issues);
    assert.deepEqual(issues, []);
    return agents;
}

function definitionOf(entry: AcpAgentEntry): AcpAgentDefinition {
    return { name: entry.name, command: entry.command, args: [...entry.args], env: [...entry.env], ...(entry.gateway ? { gateway: entry.gateway } : {}) };
}

/** `env` without one variable. */
const without = (env: Record<string, string>, name: string) => Object.fromEntries(Object.entries(env).filter(([key]) => key !== name));

const GATEWAY_KEY = 'gw-key-0123456789abcdefghij';
/** The user's own provider keys and endpoints: in gateway mode none of them reaches an agent. */
const USER_VARIABLES = {
    ANTHROPIC_API_KEY: 'sk-ant-api03-USERKEYuserkeyUSERKEY00',
    ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
    OPENAI_API_KEY: 'sk-proj-USERKEYuserkeyUSERKEY01',
    OPENAI_BASE_URL: 'https://api.openai.com/v1',
    CODEX_API_KEY: 'codex-USERKEY-02',
    GEMINI_API_KEY: 'AIzaUSERKEYuserkeyUSERKEY03',
    GOOGLE_API_KEY: 'AIzaUSERKEYuserkeyUSERKEY04',
    DASHSCOPE_API_KEY: 'dashscope-USERKEY-05',
    OPENAI_MODEL: 'qwen3-coder-plus',
    GOOGLE_CLOUD_PROJECT: 'my-project',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '0'
};
const USER_KEYS = Object.entries(USER_VARIABLES).filter(([name]) => /KEY/.test(name)).map(([, value]) => value);

/** What each bundled agent gets in gateway mode on top of the scrubbed set; null: refused. */
const EXPECTED: Record<string, Record<string, string> | null> = {
    'claude-code': {
        ANTHROPIC_BASE_URL: 'https://gw.corp.example', ANTHROPIC_AUTH_TOKEN: GATEWAY_KEY, ANTHROPIC_CUSTOM_HEADERS: 'x-litellm-end-user-id: alice',
        // Set whatever the user's environment says: Claude Code would otherwise also ask api.anthropic.com.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', CLAUDE_CODE_DISABLE_FAST_MODE: '1'
    },
    codex: { OPENAI_BASE_URL: 'https://gw.corp.example/v1', OPENAI_API_KEY: GATEWAY_KEY },
    'gemini-cli': { GOOGLE_GEMINI_BASE_URL: 'https://gw.corp.example', GEMINI_API_KEY: GATEWAY_KEY, GOOGLE_CLOUD_PROJECT: 'my-project' },
    'qwen-code': { OPENAI_BASE_URL: 'https://gw.corp.example/v1', OPENAI_API_KEY: GATEWAY_KEY, OPENAI_MODEL: 'qwen3-coder-plus' },
    goose: null,
    opencode: null
};

describe('external agents in gateway mode', () => {
    let folder: string;
    let source: Record<string, string>;
    const base = { PATH: '/usr/bin:/bin', HOME: '/home/alice', LANG: 'C.UTF-8' };
    beforeEach(() => {
        folder = mkdtempSync(join(tmpdir(), 'qa-gateway-agents-'));
        writeFileSync(join(folder, 'gateway-key'), `${GATEWAY_KEY}\n`);
        source = {
            ...base, ...USER_VARIABLES, USER: 'alice',
            QODEASSIST_GATEWAY_URL: 'https://gw.corp.example/v1', QODEASSIST_GATEWAY_API_KEY_FILE: join(folder, 'gateway-key')
        };
    });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    it('the bundled catalogue is the one this table covers', () => {
        assert.deepEqual([...bundledCatalogue().keys()].sort(), Object.keys(EXPECTED).sort());
    });

    for (const [name, expected] of Object.entries(EXPECTED)) {
        it(`${name}: ${expected ? 'the gateway URL, its key and the identity where it reads headers, and no other key' : 'refused: it has no base-URL setting'}`, async () => {
            const definition = definitionOf(bundledCatalogue().get(name)!);
            if (!expected) {
                await assert.rejects(agentEnvironment(definition, source, { secrets: USER_KEYS, platform: 'linux' }), (error: unknown) =>
                    error instanceof AgentGatewayError && error.info.category === 'Config' && error.agent === name
                    && error.reason === `cannot be pointed at the gateway: ${name} has no base-URL setting`);
                return;
            }
            const env = await agentEnvironment(definition, source, { secrets: USER_KEYS, platform: 'linux' });
            assert.deepEqual(env, { ...base, USER: 'alice', ...expected });
            for (const key of USER_KEYS) {
                assert.ok(!JSON.stringify(env).includes(key), `${name} got the user's key ${key}`);
            }
        });
    }

    it('outside gateway mode the same entries pass the variables they name, as before', async () => {
        const direct = without(source, 'QODEASSIST_GATEWAY_URL');
        const env = await agentEnvironment(definitionOf(bundledCatalogue().get('codex')!), direct, { secrets: [], platform: 'linux' });
        assert.equal(env.OPENAI_API_KEY, USER_VARIABLES.OPENAI_API_KEY);
        assert.equal(env.CODEX_API_KEY, USER_VARIABLES.CODEX_API_KEY);
        assert.equal(env.OPENAI_BASE_URL, undefined, 'codex names no base URL variable of its own');
    });

    it('without a known user the identity header is not set; without a gateway key the start is refused, naming the key file variable', async () => {
        const claude = definitionOf(bundledCatalogue().get('claude-code')!);
        const anonymous = without(source, 'USER');
        const env = await agentEnvironment(claude, anonymous, { secrets: [], platform: 'linux' });
        assert.equal(env.ANTHROPIC_CUSTOM_HEADERS, undefined);
        assert.equal(env.ANTHROPIC_AUTH_TOKEN, GATEWAY_KEY);
        const keyless = without(source, 'QODEASSIST_GATEWAY_API_KEY_FILE');
        await assert.rejects(agentEnvironment(claude, keyless, { secrets: [], platform: 'linux' }),
            (error: unknown) => error instanceof AgentGatewayError && /QODEASSIST_GATEWAY_API_KEY_FILE/.test(error.message));
    });

    it('an identity that would add a header line of its own is refused', async () => {
        const claude = definitionOf(bundledCatalogue().get('claude-code')!);
        await assert.rejects(agentEnvironment(claude, { ...source, QODEASSIST_GATEWAY_USER: 'alice\nx-litellm-api-key: other' }, { secrets: [], platform: 'linux' }),
            (error: unknown) => error instanceof AgentGatewayError && /single header line/.test(error.message));
    });

    it('an agent whose API the gateway does not serve to agents is refused with the setting to change', async () => {
        const gemini = definitionOf(bundledCatalogue().get('gemini-cli')!);
        await assert.rejects(agentEnvironment(gemini, { ...source, QODEASSIST_GATEWAY_AGENT_APIS: 'openai,anthropic' }, { secrets: [], platform: 'linux' }),
            (error: unknown) => error instanceof AgentGatewayError && /speaks the Gemini API, which the gateway does not serve/.test(error.reason));
    });

    it('the configuration view and the picker show an agent that cannot be pointed at the gateway as unavailable, with why', async () => {
        const catalogue = bundledCatalogue();
        const goose = await acpAgentStatus(catalogue.get('goose')!, [folder], source);
        assert.equal(goose.installedAt, undefined);
        assert.equal(goose.unavailableInGateway, true);
        assert.match(goose.problem ?? '', /Unavailable in gateway mode: it cannot be pointed at the gateway: goose has no base-URL setting/);
        const codex = await acpAgentStatus(catalogue.get('codex')!, [folder], source);
        assert.equal(codex.unavailableInGateway, undefined);
        assert.doesNotMatch(codex.problem ?? '', /gateway/);
    });
});
