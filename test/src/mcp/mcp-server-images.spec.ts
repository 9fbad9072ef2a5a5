import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpToolServer, ToolResultImage } from '@qodeassist/core';

const TOKEN = 'test-token-0123456789abcdef0123456789';
/** A real 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
const NOT_A_PNG = Buffer.from('<svg onload="x()"/>').toString('base64');

describe('MCP server mode: a tool\'s images in its result', function () {
    this.timeout(30_000);
    let server: McpToolServer;
    let client: Client | undefined;

    before(async () => {
        server = new McpToolServer({
            port: 0, token: TOKEN,
            // A tool set whose `screenshot` returns a PNG, and bytes that claim to be one and are not.
            toolsFor: () => ({
                definitions: () => [{ name: 'screenshot', description: 'Takes a screenshot', parameters: { type: 'object', properties: {} } }],
                execute: async () => ({
                    content: '[image image/png, 69 bytes]\n[image image/png, 19 bytes]',
                    images: [{ mediaType: 'image/png', data: PNG }, { mediaType: 'image/png', data: NOT_A_PNG }] satisfies ToolResultImage[]
                })
            })
        });
        await server.start();
    });
    afterEach(async () => {
        await client?.close();
        client = undefined;
    });
    after(() => server.stop());

    it('the text, then each image that keeps to the rules as an image part; bytes not of their type are not passed on', async () => {
        client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
        const result = await client.callTool({ name: 'screenshot', arguments: {} });
        assert.deepEqual(result.content, [
            { type: 'text', text: '[image image/png, 69 bytes]\n[image image/png, 19 bytes]' },
            { type: 'image', data: PNG, mimeType: 'image/png' }
        ]);
        assert.equal(result.isError, false);
    });
});
