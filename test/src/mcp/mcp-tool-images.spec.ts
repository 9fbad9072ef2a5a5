import * as assert from 'node:assert/strict';
import {
    ContentLoader, ContextAssembler, McpHub, Session, SessionEvent, TokenEstimator, ToolContributorRegistry, ToolKitExecutor, WIRE_PROTOCOLS, WorkspaceFiles
} from '@qodeassist/core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledConfiguration } from '../config/golden-bodies';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
/** The PNG the reference server's get-tiny-image tool returns, read from its own source. */
const TINY_IMAGE = /MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"/.exec(readFileSync(require.resolve('@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js'), 'utf8'))![1];

describe('MCP tool images reach the model: the reference server\'s PNG in the body the fake provider received', function () {
    this.timeout(60_000);
    const configuration = bundledConfiguration();
    let root: string;
    let hub: McpHub;
    let fake: FakeProviderServer;

    before(async () => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-tool-images-'));
        mkdirSync(join(root, 'workspace'));
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
        hub = new McpHub({ user: join(root, 'mcp.json') }, { backoffMs: 60_000, reloadDelayMs: 50, consent: { isGranted: () => true, grant: async () => undefined } }).start();
        const states = await hub.settled();
        assert.equal(states[0]?.status, 'ready', JSON.stringify(states));
        fake = new FakeProviderServer();
        await fake.start();
    });
    after(async () => {
        await fake.stop();
        await hub.dispose();
        rmSync(root, { recursive: true, force: true });
    });

    /** One chat turn with the bundled agent's real template, the model asking for the image tool once. */
    const turn = async (agentName: string) => {
        const tool = hub.tools().find(candidate => candidate.name.includes('tiny'));
        assert.ok(tool, hub.tools().map(candidate => candidate.name).join(', '));
        const from = fake.requests.length;
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: tool.name, arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('It is the MCP logo.') }
        );
        const registry = new ToolContributorRegistry();
        registry.register(() => hub.tools());
        const executor = new ToolKitExecutor(registry, 'chat-1', { files: new WorkspaceFiles([join(root, 'workspace')]), permissions: { ask: async () => 'allow-once' } });
        const agent = configuration.agents.get(agentName)!;
        const estimator = new TokenEstimator();
        const events: SessionEvent[] = [];
        const session = new Session('s1', {
            name: agentName, model: 'fake-model', protocol: WIRE_PROTOCOLS['openai-chat'], url: `${fake.url}/v1/chat/completions`, headers: {}, secrets: [],
            contextWindow: 100_000, maxOutputTokens: 1_000, systemPrompt: 'You help.', images: agent.images,
            renderBody: ctx => agent.renderBody(ctx)
        }, { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator, reassembleRounds: true }, batch => events.push(...batch));
        await session.send([{ type: 'text', text: 'Show me the tiny image.' }], { tools: executor.definitions(), executor });
        for (let waited = 0; !events.some(event => event.type === 'Finished' || event.type === 'Failed') && waited < 20_000; waited += 20) {
            await new Promise(resolve => setTimeout(resolve, 20));
        }
        assert.deepEqual(events.filter(event => event.type === 'Failed'), []);
        assert.equal(fake.requests.length - from, 2);
        return { continuation: fake.requests[from + 1].body, session, events };
    };

    it('an agent that takes images (openai-chat): the PNG goes as a data URL in the user message after the tool message, and the history keeps it', async () => {
        const { continuation, session, events } = await turn('openai-chat');
        const messages = JSON.parse(continuation).messages as Array<{ role: string; content: unknown }>;
        const tool = messages.findIndex(message => message.role === 'tool');
        assert.match(String(messages[tool].content), /\[image image\/png, \d+ bytes\]/);
        const images = messages[tool + 1];
        assert.equal(images.role, 'user');
        assert.deepEqual((images.content as Array<{ type: string; image_url?: { url: string } }>).find(part => part.type === 'image_url')?.image_url, { url: `data:image/png;base64,${TINY_IMAGE}` });
        const result = session.history.flatMap(message => message.blocks).find(block => block.type === 'tool_result');
        assert.deepEqual(result?.type === 'tool_result' && result.images, [{ mediaType: 'image/png', data: TINY_IMAGE }]);
        const told = events.find(event => event.type === 'ToolResult');
        assert.ok(told?.type === 'ToolResult' && told.imageCount === 1 && !JSON.stringify(told).includes(TINY_IMAGE), 'the view is told the count, not the bytes');
    });

    it('an agent that takes no images (deepseek-chat): the continuation describes the image and holds none of its bytes', async () => {
        const { continuation } = await turn('deepseek-chat');
        assert.ok(!continuation.includes(TINY_IMAGE.slice(0, 200)), 'no image bytes reached the provider');
        assert.match(continuation, /\[image image\/png, \d+ bytes\]/);
    });
});
