import * as assert from 'node:assert/strict';
import type { McpServer, ToolCallContent } from '@agentclientprotocol/sdk';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdirSync } from 'node:fs';
import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { AcpTestClient } from './qodeassist-acp-harness';

/** A real 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** A Streamable HTTP MCP server on 127.0.0.1 whose `screenshot` returns text, a PNG, and an SVG (a type off the allowlist). */
class ScreenshotServer {
    private http: HttpServer | undefined;
    url = '';

    async start(): Promise<void> {
        this.http = createServer(async (request, response) => {
            const server = new Server({ name: 'shots', version: '1.0.0' }, { capabilities: { tools: {} } });
            server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'screenshot', description: 'Takes a screenshot', inputSchema: { type: 'object', properties: {} } }] }));
            server.setRequestHandler(CallToolRequestSchema, async () => ({
                content: [
                    { type: 'text', text: 'the login page' },
                    { type: 'image', mimeType: 'image/png', data: PNG },
                    { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from('<svg onload="x()"/>').toString('base64') }
                ]
            }));
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

describe('qodeassist-acp passes a tool result\'s images on to the ACP client', function () {
    this.timeout(60_000);
    const provider = new FakeProviderServer();
    const shots = new ScreenshotServer();
    const fixture = new ConfigFixture();
    let acp: AcpTestClient | undefined;

    before(async () => {
        await provider.start();
        await shots.start();
        writeFakeAgents(fixture, provider.url, 'fake-openai', 'user');
        mkdirSync(fixture.workspace, { recursive: true });
    });
    after(async () => {
        await provider.stop();
        await shots.stop();
        fixture.dispose();
    });
    afterEach(async () => {
        const client = acp;
        acp = undefined;
        if (client) {
            assert.equal(await client.close(), 0, client.stderr);
        }
    });

    it('the call\'s tool_call_update shows the text, then the PNG as an image content block; the SVG is not passed on', async () => {
        const client = acp = new AcpTestClient(['--config-dir', fixture.user, '--trust-workspace', fixture.workspace],
            { PATH: process.env.PATH, HOME: join(fixture.root, 'home'), ...FAKE_KEYS }, fixture.workspace);
        await client.initialize();
        const server: McpServer = { type: 'http', name: 'shots', url: shots.url, headers: [] };
        const { sessionId } = await client.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [server] });
        provider.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_1', name: 'mcp_shots_screenshot', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('It is the login page.') }
        );
        const response = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Take a screenshot' }] });
        assert.equal(response.stopReason, 'end_turn', client.stderr);
        const contents = client.updates.flatMap(({ update }) => update.sessionUpdate === 'tool_call_update' && update.content ? [update.content] : []);
        const images = (content: ToolCallContent[]) => content.flatMap(part => part.type === 'content' && part.content.type === 'image' ? [part.content] : []);
        const withImages = contents.filter(content => images(content).length > 0);
        assert.equal(withImages.length, 1, JSON.stringify(contents).slice(0, 2_000));
        assert.deepEqual(images(withImages[0]).map(image => ({ type: image.type, data: image.data, mimeType: image.mimeType })), [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
        const text = withImages[0][0];
        assert.ok(text.type === 'content' && text.content.type === 'text' && text.content.text.includes('the login page'), 'the text first');
        assert.ok(!JSON.stringify(client.updates).includes(Buffer.from('<svg onload="x()"/>').toString('base64')), 'the SVG is not passed on');
    });
});
