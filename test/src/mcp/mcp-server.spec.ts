import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createBuiltinTools, McpToolServer, PermissionRequest, ToolContributorRegistry, ToolKitExecutor, WorkspaceFiles } from '@qodeassist/core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOKEN = 'test-token-0123456789abcdef0123456789';
const BRIDGE = require.resolve('@qodeassist/core/bin/qodeassist-mcp.js');

describe('MCP server mode (the official SDK client against it)', function () {
    this.timeout(30_000);
    let workspace: string;
    let server: McpToolServer;
    const asked: PermissionRequest[] = [];
    const answers: Array<'allow-once' | 'deny'> = [];
    const clients: Client[] = [];

    before(async () => {
        workspace = mkdtempSync(join(tmpdir(), 'qodeassist-mcp-'));
        mkdirSync(join(workspace, 'src'));
        writeFileSync(join(workspace, 'src', 'app.ts'), 'export function main() {\n    return 42;\n}\n');
        writeFileSync(join(workspace, 'notes.txt'), 'draft\n');
        server = new McpToolServer({
            port: 0, token: TOKEN,
            toolsFor: clientId => {
                const registry = new ToolContributorRegistry();
                const tools = createBuiltinTools({ workspace });
                registry.register(() => tools);
                return new ToolKitExecutor(registry, `mcp:${clientId}`, {
                    files: new WorkspaceFiles([workspace]),
                    permissions: { ask: async permission => { asked.push(permission); return answers.shift() ?? 'deny'; } }
                });
            }
        });
        await server.start();
    });
    afterEach(async () => {
        await Promise.all(clients.splice(0).map(client => client.close()));
    });
    after(async () => {
        await server.stop();
        rmSync(workspace, { recursive: true, force: true });
    });

    const authorized = { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } };
    async function connect(transport: 'http' | 'sse'): Promise<Client> {
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(transport === 'http'
            ? new StreamableHTTPClientTransport(new URL(server.url), authorized)
            : new SSEClientTransport(new URL(server.sseUrl), { ...authorized, eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers as Record<string, string>, authorization: `Bearer ${TOKEN}` } }) } }));
        clients.push(client);
        return client;
    }
    const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text: string }>).map(part => part.text).join('');

    for (const transport of ['http', 'sse'] as const) {
        it(`${transport}: lists the ToolKit and calls read and search tools confined to the workspace`, async () => {
            const client = await connect(transport);
            const names = (await client.listTools()).tools.map(tool => tool.name);
            for (const expected of ['read_file', 'search_project', 'edit_file', 'execute_terminal_command']) {
                assert.ok(names.includes(expected), names.join(', '));
            }
            assert.match(text(await client.callTool({ name: 'read_file', arguments: { path: 'src/app.ts' } })), /return 42;/);
            assert.match(text(await client.callTool({ name: 'search_project', arguments: { query: 'main' } })), /src\/app\.ts/);
            const outside = await client.callTool({ name: 'read_file', arguments: { path: '/etc/passwd' } });
            assert.equal(outside.isError, true);
            assert.match(text(outside), /outside the workspace/i);
        });
    }

    it('a write tool goes through the permission gate: denied changes nothing, allowed writes', async () => {
        const client = await connect('http');
        answers.push('deny');
        const denied = await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } });
        assert.equal(denied.isError, true);
        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'draft\n');
        assert.equal(asked.at(-1)?.tool, 'edit_file');
        assert.match(asked.at(-1)?.chatId ?? '', /^mcp:/);
        answers.push('allow-once');
        const allowed = await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } });
        assert.equal(allowed.isError, false, text(allowed));
        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'final\n');
    });

    it('works through the stdio bridge a desktop client launches', async () => {
        const client = new Client({ name: 'desktop', version: '1.0.0' });
        await client.connect(new StdioClientTransport({
            command: process.execPath, args: [BRIDGE], stderr: 'pipe',
            env: { PATH: process.env.PATH ?? '', QODEASSIST_MCP_URL: server.url, QODEASSIST_MCP_TOKEN: TOKEN }
        }));
        clients.push(client);
        assert.ok((await client.listTools()).tools.some(tool => tool.name === 'read_file'));
        assert.match(text(await client.callTool({ name: 'read_file', arguments: { path: 'src/app.ts' } })), /export function main/);
    });

    it('refuses requests without the token, with a wrong token, from a foreign origin or host, and oversize bodies', async () => {
        const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
        const port = new URL(server.url).port;
        const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const cases: Array<{ name: string; headers: Record<string, string>; body?: string; status: number }> = [
            { name: 'no token', headers: base, status: 401 },
            { name: 'wrong token', headers: { ...base, authorization: 'Bearer wrong-token-0123456789abcdef012345' }, status: 401 },
            { name: 'foreign origin', headers: { ...base, authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' }, status: 403 },
            { name: 'rebound host', headers: { ...base, authorization: `Bearer ${TOKEN}`, host: `evil.example:${port}` }, status: 403 },
            { name: 'oversize body', headers: { ...base, authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024) }), status: 413 }
        ];
        for (const entry of cases) {
            const status = await post(server.url, entry.headers, entry.body ?? initialize);
            assert.equal(status, entry.status, entry.name);
        }
        await assert.rejects(new Client({ name: 'anon', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(server.url))));
    });

    it('100 concurrent calls from 10 clients all complete, and every session closes afterwards', async () => {
        const before = server.sessionCount;
        const many = await Promise.all(Array.from({ length: 10 }, () => connect('http')));
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => many[i % 10].callTool(
            i % 2 ? { name: 'read_file', arguments: { path: 'src/app.ts' } } : { name: 'search_project', arguments: { query: 'return' } }
        )));
        assert.deepEqual(results.filter(result => result.isError), []);
        assert.ok(results.every(result => /42|return/.test(text(result))));
        await Promise.all(many.map(client => (client.transport as StreamableHTTPClientTransport).terminateSession()));
        assert.equal(server.sessionCount, before);
    });

    it('closes a client\'s session when it disconnects', async () => {
        const before = server.sessionCount;
        const http = await connect('http');
        const sse = await connect('sse');
        assert.equal(server.sessionCount, before + 2);
        await (http.transport as StreamableHTTPClientTransport).terminateSession();
        await sse.close();
        await http.close();
        clients.splice(0);
        for (let waited = 0; server.sessionCount > before && waited < 5_000; waited += 20) {
            await new Promise(resolve => setTimeout(resolve, 20));
        }
        assert.equal(server.sessionCount, before);
    });
});

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, res => {
            res.resume();
            resolve(res.statusCode ?? 0);
        });
        req.on('error', error => (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error));
        req.end(body);
    });
}
