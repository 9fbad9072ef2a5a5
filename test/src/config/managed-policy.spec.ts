import * as assert from 'node:assert/strict';
import {
    AnyTool, chatAgentFor, Configuration, createBuiltinTools, createToolKit, loadConfiguration, loadManagedPolicy, loadMcpConfig, ManagedPolicy, MANAGED_LABEL
} from '@qodeassist/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFixture } from './config-fixture';

/** The administrator's layer (QODEASSIST_MANAGED_DIR): its policy over every layer, and what user and project files cannot undo. */
describe('the administrator\'s managed layer and policy', () => {
    let fixture: ConfigFixture;
    let managed: string;
    beforeEach(() => {
        fixture = new ConfigFixture();
        managed = join(fixture.root, 'managed');
        mkdirSync(managed, { recursive: true });
    });
    afterEach(() => fixture.dispose());

    const write = (path: string, text: string) => fixture.write(join(managed, path), text);
    const load = (): Configuration => loadConfiguration({ ...fixture.roots, managed });
    const provider = (name: string, url: string) => `schema_version = 1\nname = "${name}"\nclient_api = "openai_compatible"\nurl = "${url}"\n`;
    const agent = (name: string, providerName: string) => `schema_version = 1\nname = "${name}"\nextends = "openai-base"\nprovider_instance = "${providerName}"\nmodel = "m"\n`;
    const managedNotices = (configuration: Configuration) => configuration.issues.filter(issue => issue.message.includes(MANAGED_LABEL));

    describe('allowed_origins: a provider elsewhere is left out with its agents, whichever layer defines it', () => {
        const layers: Array<['bundled' | 'user' | 'project', (fixture: ConfigFixture) => void, string, string]> = [
            ['bundled', () => undefined, 'openai', 'openai-chat'],
            ['user', f => { f.user_('providers/elsewhere.toml', provider('elsewhere', 'https://llm.example.org/v1')); f.user_('agents/elsewhere-chat.toml', agent('elsewhere-chat', 'elsewhere')); }, 'elsewhere', 'elsewhere-chat'],
            ['project', f => { f.project_('providers/repo.toml', provider('repo', 'https://attacker.example/v1')); f.project_('agents/repo-chat.toml', agent('repo-chat', 'repo')); }, 'repo', 'repo-chat']
        ];
        for (const [layer, setup, providerName, agentName] of layers) {
            it(`${layer}: ${providerName} and ${agentName} left out, with a notice naming the administrator`, () => {
                write('policy.toml', 'allowed_origins = ["http://localhost:11434", "https://gateway.corp.example"]\n');
                setup(fixture);
                const configuration = load();
                assert.equal(configuration.providers.has(providerName), false);
                assert.equal(configuration.agents.has(agentName), false);
                assert.ok(!configuration.rosters.chat.includes(agentName));
                assert.ok(managedNotices(configuration).some(issue => issue.message.includes(`${providerName} (`)), JSON.stringify(managedNotices(configuration)));
                // An allowed origin stays.
                assert.equal(configuration.providers.get('ollama')?.url, 'http://localhost:11434');
            });
        }

        it('a user\'s file of the same name cannot move a managed provider elsewhere', () => {
            write('policy.toml', 'allowed_origins = ["https://gateway.corp.example"]\n');
            write('providers/corp.toml', provider('corp', 'https://gateway.corp.example/v1'));
            fixture.user_('providers/corp.toml', provider('corp', 'https://elsewhere.example/v1'));
            fixture.project_('providers/corp.toml', provider('corp', 'https://attacker.example/v1'));
            assert.equal(load().providers.get('corp')?.url, 'https://gateway.corp.example/v1');
        });
    });

    describe('forbidden_agents: gone from every roster and picker; asking for one by name says why', () => {
        const cases: Array<[string, string, (fixture: ConfigFixture) => void]> = [
            ['a bundled agent', 'claude-chat', () => undefined],
            ['a user agent', 'mine', f => f.user_('agents/mine.toml', agent('mine', 'ollama-openai'))],
            ['a project agent', 'theirs', f => f.project_('agents/theirs.toml', agent('theirs', 'ollama-openai'))]
        ];
        for (const [name, agentName, setup] of cases) {
            it(name, () => {
                write('policy.toml', `forbidden_agents = ["${agentName}"]\n`);
                setup(fixture);
                const configuration = load();
                assert.equal(configuration.agents.has(agentName), false);
                assert.ok(!Object.values(configuration.rosters).some(roster => roster.includes(agentName)));
                assert.throws(() => chatAgentFor(configuration, { agent: agentName }), new RegExp(`"${agentName}" is ${MANAGED_LABEL}`));
            });
        }

        it('acp:* forbids every external agent, user and bundled', () => {
            write('policy.toml', 'forbidden_agents = ["acp:*"]\n');
            fixture.user_('acp/mine.toml', 'command = "mine"\n');
            assert.deepEqual([...load().acpAgents.keys()], []);
        });
    });

    it('rosters the managed layer sets, user and project roster files cannot change', () => {
        write('agents/rosters.toml', 'schema_version = 1\n\n[chat]\nagents = ["ollama-chat"]\n');
        fixture.user_('agents/rosters.toml', 'schema_version = 1\n\n[chat]\nagents = ["openai-chat"]\n');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n\n[chat]\nagents = ["claude-chat"]\n');
        assert.deepEqual(load().rosters.chat, ['ollama-chat']);
    });

    describe('max_tool_permission: a tool needing more is never offered, built-in or MCP', () => {
        // Stand-ins for an MCP server's tools: a built-in tool's shape under another name and permission class.
        const mcpTool = (name: string, permission: 'read' | 'write' | 'execute'): AnyTool => {
            const base = createBuiltinTools({ workspace: fixture.workspace }).find(tool => tool.name === 'read_file')!;
            return { ...base, name, permission };
        };
        const cases: Array<['read' | 'write' | 'execute', string[], string[]]> = [
            ['read', ['read_file'], ['edit_file', 'create_file', 'execute_terminal_command', 'mcp_write', 'mcp_run']],
            ['write', ['read_file', 'edit_file', 'mcp_write'], ['execute_terminal_command', 'mcp_run']],
            ['execute', ['read_file', 'edit_file', 'execute_terminal_command', 'mcp_run'], []]
        ];
        for (const [ceiling, offered, withheld] of cases) {
            it(ceiling, () => {
                mkdirSync(fixture.workspace, { recursive: true });
                write('policy.toml', `max_tool_permission = "${ceiling}"\n`);
                const policy = load().policy;
                const kit = createToolKit({
                    host: undefined, ownerId: 'chat', workspace: fixture.workspace, projectTrusted: true, settings: undefined, policy,
                    extraTools: () => [mcpTool('mcp_read', 'read'), mcpTool('mcp_write', 'write'), mcpTool('mcp_run', 'execute')]
                });
                const names = kit.definitions().map(tool => tool.name);
                offered.forEach(name => assert.ok(names.includes(name), `${name} offered under ${ceiling}`));
                withheld.forEach(name => assert.ok(!names.includes(name), `${name} withheld under ${ceiling}`));
            });
        }
    });

    it('allowed_mcp_servers: only the allowed command lines and URLs run, from the user\'s file or the project\'s', () => {
        write('policy.toml', 'allowed_mcp_servers = ["npx -y @modelcontextprotocol/server-github", "https://mcp.corp.example/*"]\n');
        const policy = load().policy;
        const user = fixture.user_('mcp.json', JSON.stringify({ mcpServers: {
            github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] },
            shell: { command: 'npx', args: ['-y', 'some-shell-server'] },
            corp: { url: 'https://mcp.corp.example/tools', type: 'http' }
        } }));
        const project = fixture.project_('mcp.json', JSON.stringify({ mcpServers: { repo: { command: 'node', args: ['./evil.js'] } } }));
        const { servers, issues } = loadMcpConfig({ user, project, policy: () => policy });
        assert.deepEqual(servers.map(server => server.name).sort(), ['corp', 'github']);
        assert.deepEqual(issues.filter(issue => issue.message.includes(MANAGED_LABEL)).map(issue => issue.message.match(/"(\w+)"/)?.[1]).sort(), ['repo', 'shell']);
    });

    it('a policy that cannot be read is the safe side: no provider origin, no MCP server, no tool beyond reading, and an error saying so', () => {
        write('policy.toml', 'allowed_origins = "not a list"\n');
        const configuration = load();
        const policy = configuration.policy as ManagedPolicy;
        assert.deepEqual([policy.allowedOrigins, policy.allowedMcpServers, policy.maxToolPermission], [[], [], 'read']);
        assert.equal(configuration.providers.size, 0);
        assert.ok(configuration.issues.some(issue => issue.severity === 'error' && issue.message.includes('cannot be read') && issue.message.includes(MANAGED_LABEL)));
    });

    it('no managed folder, or one without policy.toml: nothing is forbidden', () => {
        assert.equal(loadConfiguration(fixture.roots).policy, undefined);
        assert.deepEqual(loadManagedPolicy(managed, []), { dir: managed, forbiddenAgents: [] });
        writeFileSync(join(managed, 'README'), 'no policy here');
        assert.ok(load().providers.has('openai'));
    });
});
