import * as assert from 'node:assert/strict';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpConsentStore } from '../mcp/mcp-consent';
import { WorkspaceFiles } from '../tools/workspace-files';
import { clientMcpServerConfigs } from './client-mcp-servers';
import { SessionMcpServers, startQuestion } from './session-mcp-servers';

describe('A client\'s SSE MCP server for one session', function () {
    it('the start question quotes a program or argument that holds spaces, so it never reads like another command line', () => {
        const question = startQuestion('s', { name: 'g', transport: 'stdio', command: '/repo/npx -y x', args: ['a b', 'plain'], timeouts: { initializeMs: 1, listMs: 1, callMs: 1 } } as never);
        const text = JSON.stringify(question.toolCall.content);
        assert.ok(text.includes('\\"/repo/npx -y x\\" \\"a b\\" plain'), text);
    });

    this.timeout(30_000);
    let root: string;
    let http: HttpServer | undefined;
    let servers: SessionMcpServers | undefined;
    const authorizations: Array<string | undefined> = [];

    before(async () => {
        root = mkdtempSync(join(tmpdir(), 'qa-acp-sse-'));
        const transports = new Map<string, SSEServerTransport>();
        http = createServer(async (request, response) => {
            authorizations.push(request.headers.authorization);
            if (request.method === 'GET' && request.url === '/sse') {
                const transport = new SSEServerTransport('/messages', response);
                transports.set(transport.sessionId, transport);
                const server = new Server({ name: 'legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
                server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] }));
                server.setRequestHandler(CallToolRequestSchema, async call => ({ content: [{ type: 'text', text: `echo: ${String(call.params.arguments?.text)}` }] }));
                await server.connect(transport);
            } else {
                const id = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('sessionId') ?? '';
                await transports.get(id)?.handlePostMessage(request, response);
            }
        });
        await new Promise<void>(resolve => http!.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
        await servers?.close();
        http?.closeAllConnections();
        await new Promise(resolve => http ? http.close(resolve) : resolve(undefined));
        rmSync(root, { recursive: true, force: true });
    });

    it('connects over SSE with the client\'s headers, and its tool answers as mcp_<server>_<tool>', async () => {
        const url = `http://127.0.0.1:${(http!.address() as AddressInfo).port}/sse`;
        servers = new SessionMcpServers(clientMcpServerConfigs([{ type: 'sse', name: 'legacy', url, headers: [{ name: 'Authorization', value: 'Bearer sse-token' }] }]), {
            policy: undefined, trusted: true, consent: new McpConsentStore(join(root, 'consents.json')).forWorkspace(root), hub: { backoffMs: 60_000 }
        });
        const states = await servers.settled(10_000);
        assert.deepEqual(states.map(state => [state.name, state.status, state.transport]), [['legacy', 'ready', 'sse']], JSON.stringify(states));
        const echo = servers.tools().find(tool => tool.name === 'mcp_legacy_echo');
        assert.ok(echo, servers.tools().map(tool => tool.name).join(', '));
        const result = await echo.run({ text: 'ping' }, { requestId: 'r1', chatId: 'c1', files: new WorkspaceFiles([root]) });
        assert.equal(result.content, 'echo: ping');
        assert.ok(authorizations.length >= 2 && authorizations.every(value => value === 'Bearer sse-token'), JSON.stringify(authorizations));
    });
});
