import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceFiles } from '../tools/workspace-files';
import { MAX_MCP_RESULT_CHARS, McpHub } from './mcp-hub';

/** A stdio MCP server with one tool, `dump`, answering `chars` characters of numbered 12-character lines. */
function loudServerScript(): string {
    const sdk = (path: string) => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${path}`));
    return `
const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
const server = new Server({ name: 'loud', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'dump', description: 'Prints numbered lines', inputSchema: { type: 'object', properties: { chars: { type: 'number' } } } }]
}));
server.setRequestHandler(CallToolRequestSchema, async request => {
    let text = '';
    for (let i = 0; text.length < request.params.arguments.chars; i++) text += 'line ' + String(i).padStart(6, '0') + '\\n';
    return { content: [{ type: 'text', text: text.slice(0, request.params.arguments.chars) }] };
});
server.connect(new StdioServerTransport());
`;
}

function numberedLines(chars: number): string {
    let text = '';
    for (let i = 0; text.length < chars; i++) {
        text += `line ${String(i).padStart(6, '0')}\n`;
    }
    return text.slice(0, chars);
}

describe('MCP hub: what a server answers is bounded', function () {
    this.timeout(30_000);
    let root: string;
    let hub: McpHub | undefined;

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qa-mcp-hub-'));
        writeFileSync(join(root, 'loud.js'), loudServerScript());
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { loud: { command: process.execPath, args: [join(root, 'loud.js')] } } }));
    });
    afterEach(async () => {
        await hub?.dispose();
        hub = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    const dump = async (chars: number, options: ConstructorParameters<typeof McpHub>[1] = {}) => {
        hub = new McpHub({ user: join(root, 'mcp.json') }, { backoffMs: 60_000, reloadDelayMs: 50, ...options }).start();
        const states = await hub.settled();
        assert.deepEqual(states.map(state => state.status), ['ready'], JSON.stringify(states));
        const tool = hub.tools().find(candidate => candidate.name === 'mcp_loud_dump')!;
        return tool.run({ chars }, { requestId: 'r', chatId: 'c', files: new WorkspaceFiles([root]) });
    };

    it(`a text result over MAX_MCP_RESULT_CHARS keeps exactly its first ${MAX_MCP_RESULT_CHARS} characters and counts the rest`, async () => {
        // 120 000 characters of 12-character lines: the cut falls 8 characters into line 4166; 5834 line breaks follow it.
        const result = await dump(120_000);
        const text = numberedLines(120_000);
        assert.equal(result.content, `${text.slice(0, 50_000)}\n[… 70000 characters (5834 lines) cut here; the result is too long to show whole; ask the tool for less (a narrower query, a range or a page)]`);
        assert.equal(result.isError, false);
    });

    it('a result within the limit passes untouched, and the limit is an option of the hub', async () => {
        assert.equal((await dump(600)).content, numberedLines(600));
        await hub!.dispose();
        const capped = await dump(600, { maxResultChars: 120 });
        assert.equal(capped.content, `${numberedLines(120)}\n[… 480 characters (40 lines) cut here; the result is too long to show whole; ask the tool for less (a narrower query, a range or a page)]`);
    });
});
