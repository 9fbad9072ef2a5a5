import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpHub } from './mcp-hub';
import { ConfigIssue } from '../config/config-issue';
import { agentChainRefusal, loadManagedPolicy, mcpServerPolicyRefusal, originRefusal } from '../config/managed-policy';

describe('the managed policy: what a named folder, its policy.toml and each rule mean', () => {
    let root: string;
    beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'qodeassist-managed-')); });
    afterEach(() => {
        chmodSync(root, 0o700);
        rmSync(root, { recursive: true, force: true });
    });

    it('a named folder that does not exist is the safe side, like an unreadable policy: no origin, no MCP server, no external agent, reading only — and says to mount it', () => {
        const issues: ConfigIssue[] = [];
        const missing = join(root, 'not-mounted');
        const policy = loadManagedPolicy(missing, issues);
        assert.deepEqual([policy.allowedOrigins, policy.allowedMcpServers, policy.maxToolPermission, policy.forbiddenAgents], [[], [], 'read', ['acp:*']]);
        assert.deepEqual(issues.map(issue => [issue.severity, issue.file]), [['error', missing]]);
        assert.match(issues[0].message, /the administrator's folder .*not-mounted \(QODEASSIST_MANAGED_DIR\) does not exist, so QodeAssist allows no provider, MCP server, external agent or tool beyond reading \(managed by your administrator\)/);
        assert.match(issues[0].fix ?? '', /mount the administrator's folder at .*not-mounted, or unset QODEASSIST_MANAGED_DIR/);
    });

    it('a file where the folder should be, or a policy.toml that cannot be opened, fails closed too', () => {
        writeFileSync(join(root, 'file'), '');
        assert.deepEqual(loadManagedPolicy(join(root, 'file'), []).allowedOrigins, []);
        if (process.getuid?.() !== 0) {
            writeFileSync(join(root, 'policy.toml'), 'forbidden_agents = []\n', { mode: 0o000 });
            const issues: ConfigIssue[] = [];
            assert.deepEqual(loadManagedPolicy(root, issues).allowedOrigins, []);
            assert.match(issues[0].message, /cannot be read \(EACCES\)/);
        }
    });

    it('a folder without policy.toml forbids nothing', () => {
        assert.deepEqual(loadManagedPolicy(root, []), { dir: root, forbiddenAgents: [] });
    });

    it('forbidding an agent forbids every agent built on it, at any depth, naming the rule', () => {
        writeFileSync(join(root, 'policy.toml'), 'forbidden_agents = ["openai-chat", "outside-*"]\n');
        const policy = loadManagedPolicy(root, []);
        assert.equal(agentChainRefusal(policy, ['mine', 'mid', 'openai-chat', 'openai-base']), `it extends "openai-chat", and forbidden_agents in ${join(root, 'policy.toml')} lists "openai-chat"`);
        assert.equal(agentChainRefusal(policy, ['outside-chat']), `forbidden_agents in ${join(root, 'policy.toml')} lists "outside-*" (matching "outside-chat")`);
        assert.equal(agentChainRefusal(policy, ['mine', 'openai-base']), undefined);
        assert.equal(originRefusal(policy, 'https://x.example'), undefined);
    });

    it('allowed_origins refusals name the origin', () => {
        writeFileSync(join(root, 'policy.toml'), 'allowed_origins = ["https://gateway.corp.example"]\n');
        assert.equal(originRefusal(loadManagedPolicy(root, []), 'https://evil.example/v1'), `allowed_origins in ${join(root, 'policy.toml')} does not include https://evil.example`);
    });

    describe('allowed_mcp_servers: command, arguments, env names and cwd', () => {
        const policyWith = (entries: string) => {
            writeFileSync(join(root, 'policy.toml'), `allowed_mcp_servers = [${entries}]\n`);
            const issues: ConfigIssue[] = [];
            const policy = loadManagedPolicy(root, issues);
            assert.deepEqual(issues, []);
            return policy;
        };

        it('a command line entry (the older form) allows that command with no env and no cwd', () => {
            const policy = policyWith('"npx -y @modelcontextprotocol/server-github"');
            const server = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] };
            assert.equal(mcpServerPolicyRefusal(policy, server), undefined);
            assert.equal(mcpServerPolicyRefusal(policy, { ...server, env: { NODE_OPTIONS: '--require /tmp/x.js' } }),
                'allowed_mcp_servers allows "npx -y @modelcontextprotocol/server-github" with no env, and this server sets NODE_OPTIONS');
            assert.match(mcpServerPolicyRefusal(policy, { ...server, cwd: '/repo' }) ?? '', /with no cwd, and this server sets cwd \/repo/);
            assert.equal(mcpServerPolicyRefusal(policy, { command: 'npx', args: ['-y', 'other'] }), 'allowed_mcp_servers does not include the command "npx -y other"');
        });

        it('a command line entry never allows a program or argument whose own text holds the spaces (a repository file named "npx -y …")', () => {
            const policy = policyWith('"npx -y @modelcontextprotocol/server-github"');
            for (const server of [
                { command: 'npx -y @modelcontextprotocol/server-github', args: [] },
                { command: 'npx', args: ['-y @modelcontextprotocol/server-github'] },
                { command: 'npx -y', args: ['@modelcontextprotocol/server-github'] }
            ]) {
                assert.match(mcpServerPolicyRefusal(policy, server) ?? '', /holds spaces .*only a table entry/, JSON.stringify(server));
            }
        });

        it('a table entry lists the env names and the cwd allowed; any other name, or another folder, is refused', () => {
            const policy = policyWith('{ command = "npx", args = ["-y", "@modelcontextprotocol/server-github"], env = ["GITHUB_TOKEN"], cwd = "/srv/mcp" }');
            const server = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: 'ghp_x' }, cwd: '/srv/mcp' };
            assert.equal(mcpServerPolicyRefusal(policy, server), undefined);
            assert.match(mcpServerPolicyRefusal(policy, { ...server, env: { GITHUB_TOKEN: 'x', NODE_OPTIONS: '--require /tmp/x.js' } }) ?? '', /with env GITHUB_TOKEN only, and this server sets NODE_OPTIONS/);
            assert.match(mcpServerPolicyRefusal(policy, { ...server, cwd: '/repo' }) ?? '', /in \/srv\/mcp only, and this server sets cwd \/repo/);
            assert.match(mcpServerPolicyRefusal(policy, { ...server, args: ['-y', '@modelcontextprotocol/server-github', '--extra'] }) ?? '', /does not include the command/);
        });

        it('an entry that is neither is a policy error: the policy fails closed', () => {
            writeFileSync(join(root, 'policy.toml'), 'allowed_mcp_servers = [{ program = "npx" }]\n');
            const issues: ConfigIssue[] = [];
            assert.deepEqual(loadManagedPolicy(root, issues).allowedMcpServers, []);
            assert.ok(issues.some(issue => issue.severity === 'error'));
        });

        it('attack: the allowed command with env.NODE_OPTIONS=--require <file> does not run, so the file\'s marker is never written', async function () {
            this.timeout(30_000);
            const marker = join(root, 'marker');
            const started = join(root, 'started');
            const payload = join(root, 'payload.js');
            const server = join(root, 'server.js');
            writeFileSync(payload, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
            writeFileSync(server, `require('node:fs').writeFileSync(${JSON.stringify(started)}, 'ran');\n`);
            mkdirSync(join(root, 'managed'));
            writeFileSync(join(root, 'managed', 'policy.toml'), `allowed_mcp_servers = [${JSON.stringify(`${process.execPath} ${server}`)}]\n`);
            const policy = loadManagedPolicy(join(root, 'managed'), []);
            const run = async (env?: Record<string, string>) => {
                writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { tools: { command: process.execPath, args: [server], ...env ? { env } : {} } } }));
                const hub = new McpHub({ user: join(root, 'mcp.json'), policy: () => policy }, { backoffMs: 60_000, reloadDelayMs: 50 }).start();
                try {
                    return await hub.settled(10_000);
                } finally {
                    await hub.dispose();
                }
            };
            await run({ NODE_OPTIONS: `--require ${payload}` });
            assert.equal(existsSync(marker), false, 'the payload never ran');
            assert.equal(existsSync(started), false, 'nothing was started');
            // The same command without the variable is allowed, and does start: the refusal above was the env, not the command.
            await run();
            assert.equal(existsSync(started), true);
            assert.equal(existsSync(marker), false);
        });
    });
});
