import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceFiles } from '../tools/workspace-files';
import { McpElicitationAnswer, McpElicitationPrompt, McpElicitationRequest } from './mcp-elicitation';
import { FeatureServerFixture, until } from './mcp-features.spec-support';
import { McpHub } from './mcp-hub';

const SCHEMA = { type: 'object' as const, properties: { title: { type: 'string' as const } }, required: ['title'] };

/** Records where each question was shown and answers it at once. */
class RecordingUser implements McpElicitationPrompt {
    readonly asked: McpElicitationRequest[] = [];
    async ask(request: McpElicitationRequest): Promise<McpElicitationAnswer> {
        this.asked.push(request);
        return { action: 'accept', content: { title: 'from the user' } };
    }
}

/** A promise with its resolve, for holding a server's tool until the spec lets it go on. */
function gate(): { opened: Promise<void>; open(): void } {
    let open!: () => void;
    const opened = new Promise<void>(resolve => { open = resolve; });
    return { opened, open };
}

describe('MCP elicitation goes to the call that asked', function () {
    this.timeout(30_000);
    let fixture: FeatureServerFixture | undefined;
    afterEach(async () => {
        await fixture?.dispose();
        fixture = undefined;
    });

    it('Streamable HTTP: with two calls running on one server, the older one\'s question appears in the older call\'s chat', async () => {
        const askNow = gate();
        const holdDone = gate();
        let asking = false;
        let holding = false;
        fixture = new FeatureServerFixture(server => {
            server.registerTool('ask', { description: 'Asks once told to' }, async extra => {
                asking = true;
                await askNow.opened;
                // Related to this call: the SDK sends the question on the call's own response stream.
                const result = await server.server.elicitInput({ message: 'Title?', requestedSchema: SCHEMA }, { relatedRequestId: extra.requestId });
                return { content: [{ type: 'text', text: JSON.stringify(result.content ?? {}) }] };
            });
            server.registerTool('hold', { description: 'Runs until told to stop' }, async () => {
                holding = true;
                await holdDone.opened;
                return { content: [{ type: 'text', text: 'held' }] };
            });
        });
        const user = new RecordingUser();
        await fixture.start({ elicitation: user });
        const older = fixture.run('ask', {}, undefined, 'chat-older');
        await until(() => asking, 'the older call to reach the server');
        const newer = fixture.run('hold', {}, undefined, 'chat-newer');
        await until(() => holding, 'the newer call to reach the server');
        askNow.open();
        const answered = await older;
        holdDone.open();
        await newer;
        assert.deepEqual(user.asked.map(request => [request.chatId, request.message]), [['chat-older', 'Title?']]);
        assert.equal(answered.content, '{"title":"from the user"}');
    });

    it('stdio relates no question to a call: it goes to the newest running call', async () => {
        const root = mkdtempSync(join(tmpdir(), 'qa-mcp-routing-'));
        const sdk = (path: string) => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${path}`));
        // `ask` waits until `hold` runs, then asks; `hold` waits until `ask` has its answer.
        writeFileSync(join(root, 'server.js'), `
const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
const server = new Server({ name: 'stdio-asker', version: '1.0.0' }, { capabilities: { tools: {} } });
let holding; const held = new Promise(resolve => { holding = resolve; });
let answered; const done = new Promise(resolve => { answered = resolve; });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
    { name: 'ask', inputSchema: { type: 'object' } }, { name: 'hold', inputSchema: { type: 'object' } }
] }));
server.setRequestHandler(CallToolRequestSchema, async request => {
    if (request.params.name === 'hold') { holding(); await done; return { content: [{ type: 'text', text: 'held' }] }; }
    await held;
    const result = await server.elicitInput({ message: 'Title?', requestedSchema: ${JSON.stringify(SCHEMA)} });
    answered();
    return { content: [{ type: 'text', text: JSON.stringify(result.content || {}) }] };
});
server.connect(new StdioServerTransport());
`);
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { srv: { command: process.execPath, args: [join(root, 'server.js')] } } }));
        const user = new RecordingUser();
        const hub = new McpHub({ user: join(root, 'mcp.json') }, { backoffMs: 60_000, reloadDelayMs: 50, elicitation: user }).start();
        try {
            assert.deepEqual((await hub.settled(20_000)).map(state => state.status), ['ready']);
            const run = (name: string, chatId: string) => hub.tools().find(tool => tool.name === `mcp_srv_${name}`)!.run({}, { requestId: 'r', chatId, files: new WorkspaceFiles([root]) });
            const older = run('ask', 'chat-older');
            await new Promise(resolve => setTimeout(resolve, 200)); // The older call is sent first.
            const newer = run('hold', 'chat-newer');
            await Promise.all([older, newer]);
            assert.deepEqual(user.asked.map(request => request.chatId), ['chat-newer']);
        } finally {
            await hub.dispose();
            rmSync(root, { recursive: true, force: true });
        }
    });
});
