import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfigRoots } from '../config/config-layers';
import { EnvironmentSecretsStore } from '../config/secrets-store';
import { loadConfiguration } from './configuration-loader';
import { sessionAgentFor } from './agent-request';

describe('AgentFactory: [limits]', () => {
    let user: string;
    beforeEach(() => {
        user = mkdtempSync(join(tmpdir(), 'qodeassist-limits-'));
        mkdirSync(join(user, 'agents'));
    });
    afterEach(() => rmSync(user, { recursive: true, force: true }));

    const write = (name: string, text: string) => {
        const path = join(user, 'agents', `${name}.toml`);
        writeFileSync(path, `schema_version = 1\nname = "${name}"\n${text}\n`);
        return path;
    };
    const load = () => {
        const bundled = defaultConfigRoots();
        return loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user });
    };

    it('merges [limits] through extends key by key, the child winning, and hands them and the file to the session agent', async () => {
        write('slow-base', 'extends = "ollama-chat"\nabstract = true\n\n[limits]\ntotal = 1800\nidle = 300');
        const file = write('slow-chat', 'extends = "slow-base"\n\n[limits]\nidle = 600\nmax_tool_rounds = 80');
        const configuration = load();
        assert.deepEqual(configuration.issues.filter(issue => issue.severity === 'error'), []);
        const agent = configuration.agents.get('slow-chat')!;
        assert.deepEqual(agent.limits, { totalSeconds: 1800, idleSeconds: 600, maxToolRounds: 80 });
        const session = await sessionAgentFor(agent, new EnvironmentSecretsStore({}));
        assert.deepEqual([session.limits, session.file], [{ totalSeconds: 1800, idleSeconds: 600, maxToolRounds: 80 }, file]);
        assert.deepEqual(configuration.agents.get('ollama-chat')!.limits, {}, 'a bundled agent without [limits] keeps the defaults');
    });

    it('a bad value is a Config issue on the agent file naming the key, and only that agent is left out', () => {
        const file = write('broken', 'extends = "ollama-chat"\n\n[limits]\nmax_tool_rounds = -3');
        const configuration = load();
        const issues = configuration.issues.filter(issue => issue.file === file);
        assert.deepEqual(issues.map(issue => [issue.severity, issue.line, issue.field, issue.message]),
            [['error', 6, 'limits.max_tool_rounds', '[limits] max_tool_rounds must be 1 or more']]);
        assert.equal(configuration.agents.has('broken'), false);
        assert.equal(configuration.agents.has('ollama-chat'), true);
    });
});
