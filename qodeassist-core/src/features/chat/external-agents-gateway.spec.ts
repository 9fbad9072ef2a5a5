import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigurationProvider, ConfigurationService } from '../../agents/configuration-service';
import { loadAcpAgents } from '../../config/acp-agent-config';
import { configLayers } from '../../config/config-layers';
import { externalAgentChoices } from './agent-turn';

/** The chat picker's external agents when the backend runs in gateway mode. */
describe('the chat\'s agent picker in gateway mode', () => {
    const variables = ['QODEASSIST_GATEWAY_URL', 'QODEASSIST_GATEWAY_API_KEY', 'QODEASSIST_GATEWAY_AGENT_APIS'] as const;
    let saved: Record<string, string | undefined>;
    let workspace: string;
    beforeEach(() => {
        saved = Object.fromEntries(variables.map(name => [name, process.env[name]]));
        workspace = mkdtempSync(join(tmpdir(), 'qa-gateway-picker-'));
    });
    afterEach(() => {
        for (const name of variables) {
            if (saved[name] === undefined) {
                delete process.env[name];
            } else {
                process.env[name] = saved[name];
            }
        }
        rmSync(workspace, { recursive: true, force: true });
    });

    /** The bundled catalogue in a trusted workspace. */
    function configurations(): ConfigurationProvider {
        const acpAgents = loadAcpAgents(configLayers({
            bundledAgents: dirname(require.resolve('@qodeassist/agents/package.json')),
            bundledProviders: dirname(require.resolve('@qodeassist/providers/package.json'))
        }), []);
        const service = { current: { acpAgents, acpAwaitingConsent: new Map() }, roots: { project: join(workspace, '.qodeassist') } } as unknown as ConfigurationService;
        return { forWorkspace: () => service };
    }

    it('offers the agents without a base-URL setting disabled, with the reason; the others are judged as usual', async () => {
        process.env.QODEASSIST_GATEWAY_URL = 'https://gw.corp.example';
        process.env.QODEASSIST_GATEWAY_API_KEY = 'gw-picker-key-0123456789abcdef';
        const choices = new Map((await externalAgentChoices(configurations(), workspace)).map(choice => [choice.name, choice.unavailable ?? '']));
        for (const name of ['acp:goose', 'acp:opencode']) {
            assert.match(choices.get(name)!, new RegExp(`Unavailable in gateway mode: it cannot be pointed at the gateway: ${name.slice(4)} has no base-URL setting`));
        }
        for (const name of ['acp:claude-code', 'acp:codex', 'acp:gemini-cli', 'acp:qwen-code']) {
            assert.doesNotMatch(choices.get(name)!, /gateway/, name);
        }
    });

    it('outside gateway mode no agent is unavailable for the gateway\'s sake', async () => {
        delete process.env.QODEASSIST_GATEWAY_URL;
        const choices = await externalAgentChoices(configurations(), workspace);
        assert.equal(choices.length, 6);
        assert.ok(choices.every(choice => !/gateway/.test(choice.unavailable ?? '')));
    });
});
