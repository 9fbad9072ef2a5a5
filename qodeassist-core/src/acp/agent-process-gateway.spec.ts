import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acpLimits, AcpAgentDefinition } from './acp-definition';
import { AgentGatewayError } from './agent-gateway';
import { AgentProcess } from './agent-process';

/** A tiny "agent": writes the environment it was started with to the file its argument names, then exits. */
const ENV_DUMPER = 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.env))';

/** The environment a real child process received, once it has exited. */
async function startAndRead(definition: AcpAgentDefinition, workspace: string, env: Record<string, string>): Promise<Record<string, string>> {
    const agent = await AgentProcess.start(definition, { workspaceRoots: [workspace], env, secrets: () => [], limits: acpLimits() });
    try {
        const exit = await agent.exited;
        assert.equal(exit.code, 0, agent.stderrTail());
    } finally {
        await agent.stop();
    }
    return JSON.parse(readFileSync(definition.args![2], 'utf8')) as Record<string, string>;
}

describe('an agent process started in gateway mode', function () {
    this.timeout(20_000);
    let folder: string;
    let workspace: string;
    let env: Record<string, string>;
    const gatewayKey = 'gw-key-process-0123456789abcdef';
    const userKey = 'sk-ant-api03-USERprocessKEY0123456789';
    beforeEach(() => {
        folder = mkdtempSync(join(tmpdir(), 'qa-gateway-process-'));
        workspace = join(folder, 'workspace');
        mkdirSync(workspace);
        writeFileSync(join(folder, 'gateway-key'), gatewayKey);
        env = {
            PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: folder, USER: 'alice', ANTHROPIC_API_KEY: userKey,
            QODEASSIST_GATEWAY_URL: 'http://127.0.0.1:4000', QODEASSIST_GATEWAY_API_KEY_FILE: join(folder, 'gateway-key'), QODEASSIST_GATEWAY_USER_HEADER: 'x-litellm-customer-id'
        };
    });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    it('receives the gateway URL, the gateway key and the identity header through its [gateway] variables, and not the user\'s key', async () => {
        const received = await startAndRead({
            name: 'claude-like', command: process.execPath, args: ['-e', ENV_DUMPER, join(folder, 'env.json')], env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
            gateway: { api: 'anthropic', base_url: 'ANTHROPIC_BASE_URL', key: 'ANTHROPIC_AUTH_TOKEN', headers: 'ANTHROPIC_CUSTOM_HEADERS' }
        }, workspace, env);
        assert.equal(received.ANTHROPIC_BASE_URL, 'http://127.0.0.1:4000');
        assert.equal(received.ANTHROPIC_AUTH_TOKEN, gatewayKey);
        assert.equal(received.ANTHROPIC_CUSTOM_HEADERS, 'x-litellm-customer-id: alice');
        assert.equal(received.ANTHROPIC_API_KEY, undefined);
        assert.ok(!JSON.stringify(received).includes(userKey), 'the user\'s direct key never reached the agent');
        assert.equal(received.QODEASSIST_GATEWAY_API_KEY_FILE, undefined, 'the key file\'s path is not handed on either');
    });

    it('an OpenAI agent receives the gateway URL with /v1', async () => {
        const received = await startAndRead({
            name: 'codex-like', command: process.execPath, args: ['-e', ENV_DUMPER, join(folder, 'env.json')], env: ['OPENAI_API_KEY'],
            gateway: { api: 'openai', base_url: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY' }
        }, workspace, { ...env, OPENAI_API_KEY: 'sk-proj-USERprocessKEY0123456789' });
        assert.equal(received.OPENAI_BASE_URL, 'http://127.0.0.1:4000/v1');
        assert.equal(received.OPENAI_API_KEY, gatewayKey);
    });

    it('an agent that cannot be pointed at the gateway is refused with a typed error naming it, and never runs', async () => {
        const marker = join(folder, 'env.json');
        await assert.rejects(AgentProcess.start({ name: 'keyless', command: process.execPath, args: ['-e', ENV_DUMPER, marker], env: ['ANTHROPIC_API_KEY'] },
            { workspaceRoots: [workspace], env, secrets: () => [], limits: acpLimits() }),
        (error: unknown) => error instanceof AgentGatewayError && error.agent === 'keyless' && /ACP agent "keyless" was not started in gateway mode: it cannot be pointed at the gateway: keyless has no base-URL setting/.test(error.message));
        await new Promise(resolve => setTimeout(resolve, 300));
        assert.equal(existsSync(marker), false, 'the agent\'s program never ran');
    });
});
