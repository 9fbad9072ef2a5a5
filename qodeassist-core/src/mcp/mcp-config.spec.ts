import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MCP_TIMEOUTS, loadMcpConfig, mcpToolName } from './mcp-config';
import { bridgeSettings } from './stdio-bridge';

describe('MCP configuration', () => {
    let root: string;
    beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'qa-mcp-config-')); });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('reads stdio, http and sse servers; the project replaces a user server of the same name; timeouts default generously', () => {
        const user = join(root, 'user.json');
        const project = join(root, 'project.json');
        writeFileSync(user, JSON.stringify({ mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] }, docs: { url: 'http://127.0.0.1:9000/sse', type: 'sse' } } }));
        writeFileSync(project, JSON.stringify({ mcpServers: { git: { command: 'node', args: ['git.js'], env: { A: '1' }, timeouts: { callMs: 5_000 } }, api: { url: 'http://127.0.0.1:9001/mcp', headers: { authorization: 'Bearer x' } } } }));
        const { servers, issues } = loadMcpConfig({ user, project });
        assert.deepEqual(issues, []);
        assert.deepEqual(servers.map(server => [server.name, server.transport, server.source === project]), [['git', 'stdio', true], ['docs', 'sse', false], ['api', 'http', true]]);
        const git = servers[0];
        assert.ok(git.transport === 'stdio');
        assert.deepEqual([git.command, git.args, git.env, git.timeouts], ['node', ['git.js'], { A: '1' }, { ...DEFAULT_MCP_TIMEOUTS, callMs: 5_000 }]);
        assert.ok(DEFAULT_MCP_TIMEOUTS.callMs >= 300_000 && DEFAULT_MCP_TIMEOUTS.initializeMs >= 30_000);
    });

    it('a missing file is no servers; broken JSON or a wrong shape is an issue naming the file and the fix', () => {
        const broken = join(root, 'broken.json');
        const shape = join(root, 'shape.json');
        writeFileSync(broken, '{"mcpServers": ');
        writeFileSync(shape, JSON.stringify({ mcpServers: { 'bad name': { command: 'x' } } }));
        assert.deepEqual(loadMcpConfig({ user: join(root, 'none.json') }), { servers: [], issues: [] });
        const { servers, issues } = loadMcpConfig({ user: broken, project: shape });
        assert.deepEqual(servers, []);
        assert.equal(issues[0].file, broken);
        assert.match(issues[0].message, /not valid JSON .* Fix the file/);
        assert.match(issues[1].message, /mcpServers\.bad name: a server name uses letters/);
    });

    it('an HTTP entry takes a pre-registered OAuth client ({client_id, client_secret, scope, authorization_server}) and nothing else in "oauth"', () => {
        const file = join(root, 'oauth.json');
        const oauth = { client_id: 'qa', client_secret: 's3cret-value', scope: 'repo', authorization_server: 'https://github.com/login/oauth' };
        writeFileSync(file, JSON.stringify({ mcpServers: { github: { url: 'https://api.githubcopilot.com/mcp/', oauth } } }));
        const read = loadMcpConfig({ user: file });
        assert.deepEqual(read.issues, []);
        assert.deepEqual((read.servers[0] as { oauth?: unknown }).oauth, oauth);
        writeFileSync(file, JSON.stringify({ mcpServers: { github: { url: 'https://api.githubcopilot.com/mcp/', oauth: { client_id: 'qa', redirect_uri: 'https://evil.example/cb' } } } }));
        const refused = loadMcpConfig({ user: file });
        assert.deepEqual(refused.servers, []);
        assert.match(refused.issues[0].message, /mcpServers\.github\.oauth: .*redirect_uri/);
    });

    it('names remote tools mcp_<server>_<tool>, safe for every provider and at most 64 characters', () => {
        assert.equal(mcpToolName('git', 'log'), 'mcp_git_log');
        assert.equal(mcpToolName('my.server', 'read file'), 'mcp_my_server_read_file');
        const long = mcpToolName('server', 'x'.repeat(100));
        assert.equal(long.length, 64);
        assert.notEqual(long, mcpToolName('server', `${'x'.repeat(99)}y`));
    });

    it('the stdio bridge takes its URL and token from flags or the environment and says what is missing', () => {
        assert.deepEqual(bridgeSettings(['--url', 'http://127.0.0.1:1/mcp'], { QODEASSIST_MCP_TOKEN: 't' }), { url: 'http://127.0.0.1:1/mcp', token: 't' });
        assert.deepEqual(bridgeSettings(['--token=abc'], { QODEASSIST_MCP_URL: 'http://u' }), { url: 'http://u', token: 'abc' });
        assert.throws(() => bridgeSettings([], {}), /No server URL: pass --url or set QODEASSIST_MCP_URL/);
        assert.throws(() => bridgeSettings(['--url', 'http://u'], {}), /No token: set QODEASSIST_MCP_TOKEN/);
    });
});
