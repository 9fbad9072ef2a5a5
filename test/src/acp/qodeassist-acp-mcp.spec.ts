import * as assert from 'node:assert/strict';
import type { McpServer } from '@agentclientprotocol/sdk';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { AcpTestClient } from './qodeassist-acp-harness';
import { processAlive as alive } from '@qodeassist/core';

/**
 * A stdio MCP server written by the test: on start it leaves `<runs>/<pid>.json` (its whole
 * environment), then offers `lookup`, whose answer names the word and the variable X it sees; once
 * initialized it asks the client for its roots and leaves them in `<runs>/<pid>.roots`.
 */
function probeScript(runs: string): string {
    const sdk = (path: string) => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${path}`));
    return `const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(runs)}, process.pid + '.json'), JSON.stringify(process.env));
const server = new Server({ name: 'probe', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } }] }));
server.setRequestHandler(CallToolRequestSchema, async request => ({ content: [{ type: 'text', text: 'the probe says ' + request.params.arguments.word + ' (X=' + process.env.X + ')' }] }));
server.oninitialized = () => server.listRoots().then(
    answer => require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(runs)}, process.pid + '.roots'), JSON.stringify(answer.roots)),
    error => require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(runs)}, process.pid + '.roots'), JSON.stringify({ error: String(error) })));
server.connect(new StdioServerTransport());
`;
}

/** A Streamable HTTP MCP server on 127.0.0.1 (stateless): `weather` answers; every request is recorded with its headers. */
class HttpProbe {
    readonly requests: Array<{ method: string; authorization?: string }> = [];
    private http: HttpServer | undefined;
    url = '';

    async start(): Promise<void> {
        this.http = createServer(async (request, response) => {
            this.requests.push({ method: request.method ?? '', authorization: request.headers.authorization });
            const server = new Server({ name: 'remote', version: '1.0.0' }, { capabilities: { tools: {} } });
            server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'weather', description: 'The weather of a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }));
            server.setRequestHandler(CallToolRequestSchema, async call => ({ content: [{ type: 'text', text: `sunny in ${String(call.params.arguments?.city)}` }] }));
            const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
            response.on('close', () => void transport.close().then(() => server.close()));
            await server.connect(transport);
            await transport.handleRequest(request, response);
        });
        await new Promise<void>(resolve => this.http!.listen(0, '127.0.0.1', resolve));
        this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
    }

    async stop(): Promise<void> {
        this.http?.closeAllConnections();
        await new Promise(resolve => this.http ? this.http.close(resolve) : resolve(undefined));
    }
}

describe('qodeassist-acp connects the MCP servers a client passes in session/new (spawned)', function () {
    this.timeout(60_000);
    const provider = new FakeProviderServer();
    const remote = new HttpProbe();
    const fixture = new ConfigFixture();
    const home = join(fixture.root, 'home');
    const runs = join(fixture.root, 'runs');
    const probe = join(fixture.root, 'probe-server.js');
    let acp: AcpTestClient | undefined;

    const stdioServer = (): McpServer => ({ name: 'probe', command: process.execPath, args: [probe], env: [{ name: 'X', value: 'y' }] });
    const httpServer = (): McpServer => ({ type: 'http', name: 'remote', url: remote.url, headers: [{ name: 'Authorization', value: 'Bearer client-token' }] });
    const start = (args: string[], extraEnv: Record<string, string> = {}) => {
        acp = new AcpTestClient(['--config-dir', fixture.user, ...args], { PATH: process.env.PATH, HOME: home, ...FAKE_KEYS, ...extraEnv }, fixture.workspace);
        return acp;
    };
    const trusted = () => start(['--trust-workspace', fixture.workspace]);
    const started = () => readdirSync(runs).filter(name => name.endsWith('.json'));
    const pidOf = (file: string) => Number(file.replace(/\.json$/, ''));
    const modelRequests = () => provider.requests.filter(request => request.method === 'POST');
    const pause = (ms = 1_000) => new Promise(resolve => setTimeout(resolve, ms));

    before(async () => {
        await provider.start();
        await remote.start();
        // The agents are the user's: they load in a folder that is not trusted too.
        writeFakeAgents(fixture, provider.url, 'fake-openai', 'user');
        writeFileSync(probe, probeScript(runs));
        mkdirSync(fixture.workspace, { recursive: true });
    });
    after(async () => {
        await provider.stop();
        await remote.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        provider.reset();
        remote.requests.length = 0;
        rmSync(runs, { recursive: true, force: true });
        mkdirSync(runs, { recursive: true });
    });
    afterEach(async () => {
        const client = acp;
        acp = undefined;
        if (client) {
            assert.equal(await client.close(), 0, client.stderr);
        }
    });

    it('initialize advertises the HTTP (and SSE) MCP transports', async () => {
        const init = await trusted().initialize();
        assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
    });

    it('a stdio and an HTTP server: the model calls their tools, each asked through session/request_permission, and their results reach the model', async () => {
        const client = trusted();
        await client.initialize();
        const { sessionId } = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer(), httpServer()] });
        provider.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_1', name: 'mcp_probe_lookup', arguments: { word: 'zebra' } }, { id: 'call_2', name: 'mcp_remote_weather', arguments: { city: 'Oslo' } }]) },
            { kind: 'replay', recording: openAITextRecording('Zebras are sunny.') }
        );
        const response = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Look up zebra and the weather in Oslo' }] });
        assert.equal(response.stopReason, 'end_turn', client.stderr);
        const offered = (JSON.parse(modelRequests()[0].body).tools as Array<{ function: { name: string } }>).map(tool => tool.function.name);
        assert.ok(offered.includes('mcp_probe_lookup') && offered.includes('mcp_remote_weather'), offered.join(', '));
        assert.deepEqual(client.permissions.map(question => question.toolCall.rawInput), [{ word: 'zebra' }, { city: 'Oslo' }], 'each call was asked first');
        const results = (JSON.parse(modelRequests()[1].body).messages as Array<{ role: string; content: string }>).filter(message => message.role === 'tool').map(message => message.content);
        assert.ok(results.some(text => text.includes('the probe says zebra (X=y)')), results.join('\n'));
        assert.ok(results.some(text => text.includes('sunny in Oslo')), results.join('\n'));
        assert.ok(remote.requests.length > 0 && remote.requests.every(request => request.authorization === 'Bearer client-token'), 'the client\'s header went with every request');
    });

    it('a client\'s server that asks for roots gets the session\'s folder', async () => {
        const client = trusted();
        await client.initialize();
        await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        const deadline = Date.now() + 20_000;
        let roots: string[] = [];
        while ((roots = readdirSync(runs).filter(name => name.endsWith('.roots'))).length === 0 && Date.now() < deadline) {
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        assert.equal(roots.length, 1, client.stderr);
        assert.deepEqual(JSON.parse(readFileSync(join(runs, roots[0]), 'utf8')), [{ uri: pathToFileURL(fixture.workspace).href, name: basename(fixture.workspace) }]);
    });

    it('the tools of a session\'s servers are that session\'s only: another session of the same folder is not offered them', async () => {
        const client = trusted();
        await client.initialize();
        await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        const other = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [] });
        provider.enqueue({ kind: 'replay', recording: openAITextRecording('Hello.') });
        await client.agent.request('session/prompt', { sessionId: other.sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
        const offered = JSON.stringify(JSON.parse(modelRequests()[0].body).tools ?? []);
        assert.doesNotMatch(offered, /mcp_probe_lookup/);
    });

    it('attack: the stdio server sees the variable the client gave and none of qodeassist-acp\'s keys', async () => {
        const client = start(['--trust-workspace', fixture.workspace], { QODEASSIST_TEST_SECRET: 'sk-not-for-servers-42' });
        await client.initialize();
        await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        assert.equal(started().length, 1, client.stderr);
        const env = JSON.parse(readFileSync(join(runs, started()[0]), 'utf8')) as Record<string, string>;
        assert.equal(env.X, 'y');
        for (const [name, value] of Object.entries({ ...FAKE_KEYS, QODEASSIST_TEST_SECRET: 'sk-not-for-servers-42' })) {
            assert.equal(env[name], undefined, `${name} is not passed on`);
            assert.ok(!Object.values(env).includes(value), `the value of ${name} is not passed on`);
        }
    });

    it('the server process is gone once its session is closed, and once the connection ends', async () => {
        const client = trusted();
        await client.initialize();
        const first = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        const firstPid = pidOf(started()[0]);
        assert.ok(alive(firstPid), 'running while its session is open');
        await client.agent.request('session/close', { sessionId: first.sessionId });
        assert.equal(alive(firstPid), false, 'gone after session/close');

        await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        const secondPid = pidOf(started().find(file => pidOf(file) !== firstPid)!);
        assert.ok(alive(secondPid));
        acp = undefined;
        assert.equal(await client.close(), 0, client.stderr);
        assert.equal(alive(secondPid), false, 'gone after the client closed the connection');
    });

    it('session/load takes the client\'s servers too; loading again with another list stops the ones before', async () => {
        const client = trusted();
        await client.initialize();
        const { sessionId } = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [] });
        assert.deepEqual(started(), []);
        await client.agent.request('session/load', { sessionId, cwd: fixture.workspace, mcpServers: [stdioServer()] });
        assert.equal(started().length, 1, client.stderr);
        const pid = pidOf(started()[0]);
        assert.ok(alive(pid));
        await client.agent.request('session/load', { sessionId, cwd: fixture.workspace, mcpServers: [] });
        assert.equal(alive(pid), false, 'replaced by the new list: gone');
    });

    it('a malformed server list refuses session/new with invalid params naming the server and the fix; nothing starts', async () => {
        const client = trusted();
        await client.initialize();
        await assert.rejects(client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer(), { type: 'http', name: 'local-file', url: 'file:///etc/passwd', headers: [] }] }),
            (error: { code: number; message: string; data?: { category?: string } }) => {
                assert.equal(error.code, -32602);
                assert.equal(error.data?.category, 'Validation');
                assert.match(error.message, /"local-file" of session\/new has a file: URL\. Only http: and https: servers are connected\./);
                return true;
            });
        await pause();
        assert.deepEqual(started(), [], 'the valid server of the refused list did not start either');
    });

    it('attack: a managed policy that does not allow them: the stdio server never starts, the HTTP one is never contacted, and the session says why first', async () => {
        const managed = join(fixture.root, 'managed');
        mkdirSync(managed, { recursive: true });
        writeFileSync(join(managed, 'policy.toml'), 'allowed_mcp_servers = ["/opt/approved/mcp-server"]\n');
        const client = start(['--trust-workspace', fixture.workspace], { QODEASSIST_MANAGED_DIR: managed });
        await client.initialize({ fs: { readTextFile: true, writeTextFile: true }, session: { notices: {} } });
        const response = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer(), httpServer()] });
        await client.until(() => client.of(response.sessionId, 'available_commands_update').length > 0, 'the session\'s updates');
        await pause();
        assert.deepEqual(started(), [], 'the marker is absent: the process never started');
        assert.deepEqual(remote.requests, [], 'no request reached the HTTP server');
        const refused = (response._meta as { qodeassist: { mcpServers: { refused: Array<{ server: string; category: string; message: string }> } } }).qodeassist.mcpServers.refused;
        assert.deepEqual(refused.map(entry => [entry.server, entry.category]), [['probe', 'Config'], ['remote', 'Config']]);
        const updates = client.updates.filter(entry => entry.sessionId === response.sessionId).map(entry => entry.update);
        assert.equal(updates[0].sessionUpdate, 'notice', 'the first update says why');
        assert.ok(updates[0].sessionUpdate === 'notice' && updates[0].severity === 'error');
        assert.match(JSON.stringify(updates.slice(0, 2)), /managed by your administrator: allowed_mcp_servers does not include/);
    });

    it('in a folder that is not trusted the server waits for the user: asked through session/request_permission, "always" starts it and is kept', async () => {
        const client = start([]);
        await client.initialize();
        client.answer = 'reject_once';
        const declined = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        assert.deepEqual((declined._meta as { qodeassist: { mcpServers: { waitingForConsent: string[] } } }).qodeassist.mcpServers.waitingForConsent, ['probe']);
        await client.until(() => client.permissions.length === 1, 'the question');
        assert.equal(client.permissions[0].toolCall.title, 'Start the MCP server "probe"');
        await client.until(() => client.answerText(declined.sessionId).includes('was not started'), 'the reason');
        assert.deepEqual(started(), [], 'refused: the marker is absent');

        client.answer = 'allow_always';
        await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        await client.until(() => started().length === 1, 'the server\'s start');
        assert.match(readFileSync(join(fixture.user, 'consents.json'), 'utf8'), /"name": "probe"/);
        assert.equal(existsSync(join(fixture.workspace, '.qodeassist', 'consents.json')), false, 'nothing is written into the folder');
        const asked = client.permissions.length;
        await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [stdioServer()] });
        await client.until(() => started().length === 2, 'the consented server\'s start');
        await pause(300);
        assert.equal(client.permissions.length, asked, 'consented once: not asked again');
    });

    it('an HTTP server that needs a sign-in: the session names it and says the client must pass an Authorization header', async () => {
        let contacts = 0;
        const locked = createServer((request, response) => {
            contacts++;
            request.resume();
            response.writeHead(401, { 'www-authenticate': 'Bearer realm="locked"' }).end();
        });
        await new Promise<void>(resolve => locked.listen(0, '127.0.0.1', resolve));
        try {
            const client = trusted();
            await client.initialize();
            const url = `http://127.0.0.1:${(locked.address() as AddressInfo).port}/mcp`;
            const response = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [{ type: 'http', name: 'locked', url, headers: [] }] });
            await client.until(() => client.answerText(response.sessionId).includes('needs authorization') || client.answerText(response.sessionId).includes('answered 401'), 'the reason');
            assert.match(client.answerText(response.sessionId), /The MCP server "locked" answered 401 \(it needs authorization\); qodeassist-acp cannot sign in to it .*"Authorization" header/);
            const seen = contacts;
            await pause();
            assert.equal(contacts, seen, 'not retried: only new credentials help');
        } finally {
            locked.closeAllConnections();
            await new Promise(resolve => locked.close(resolve));
        }
    });
});
