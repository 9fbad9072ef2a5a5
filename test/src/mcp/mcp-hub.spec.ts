import * as assert from 'node:assert/strict';
import {
    ContentLoader, ContextAssembler, McpHub, Session, SessionEvent, TokenEstimator, ToolContributorRegistry, ToolKitExecutor, WIRE_PROTOCOLS, WorkspaceFiles
} from '@qodeassist/core';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'mcp');
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

describe('MCP client hub against the reference servers', function () {
    this.timeout(60_000);
    let root: string;
    let workspace: string;
    let hub: McpHub | undefined;
    let httpHost: ChildProcess | undefined;

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-hub-'));
        workspace = join(root, 'workspace');
        mkdirSync(join(workspace, '.qodeassist'), { recursive: true });
        mkdirSync(join(root, 'home', '.qodeassist'), { recursive: true });
        writeFileSync(join(workspace, 'hello.txt'), 'hello from the workspace\n');
    });
    afterEach(async () => {
        await hub?.dispose();
        hub = undefined;
        httpHost?.stdin?.end();
        httpHost?.kill();
        httpHost = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    const files = () => ({ user: join(root, 'home', '.qodeassist', 'mcp.json'), project: join(workspace, '.qodeassist', 'mcp.json') });
    const writeConfig = (where: 'user' | 'project', servers: Record<string, unknown>) => writeFileSync(files()[where], JSON.stringify({ mcpServers: servers }));
    const start = (options: ConstructorParameters<typeof McpHub>[1] = {}) => {
        // Consent is granted here: these specs are about connecting; consent has its own (mcp-trust.attack.spec).
        hub = new McpHub(files(), { backoffMs: 100, reloadDelayMs: 50, consent: { isGranted: () => true, grant: async () => undefined }, ...options }).start();
        return hub;
    };
    const tool = (name: string) => hub!.tools().find(candidate => candidate.name === name);
    const context = { requestId: 'r1', chatId: 'c1', files: undefined as unknown as WorkspaceFiles };

    it('connects stdio servers from both files (everything, filesystem), lists their tools namespaced, and calls them', async () => {
        writeConfig('user', { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });
        writeConfig('project', { files: { command: process.execPath, args: [FILESYSTEM, workspace] } });
        const states = await start().settled();
        assert.deepEqual(states.map(state => [state.name, state.status]), [['everything', 'ready'], ['files', 'ready']], JSON.stringify(states));
        const echo = tool('mcp_everything_echo');
        assert.ok(echo, hub!.tools().map(t => t.name).join(', '));
        assert.equal(echo.permission, 'execute', 'remote tools always ask');
        assert.equal((echo.inputSchema as { properties?: Record<string, unknown> }).properties?.message !== undefined, true);
        assert.match((await echo.run({ message: 'ping' }, context)).content, /ping/);
        const read = tool('mcp_files_read_text_file') ?? tool('mcp_files_read_file');
        assert.ok(read, hub!.tools().map(t => t.name).join(', '));
        assert.match((await read.run({ path: join(workspace, 'hello.txt') }, context)).content, /hello from the workspace/);
        const wrong = await read.run({ path: '/etc/passwd' }, context);
        assert.equal(wrong.isError, true, 'the server\'s own confinement answers as a tool error');
    });

    it('connects over Streamable HTTP (everything hosted on loopback) and reports a broken config and an unreachable server', async () => {
        httpHost = spawn(process.execPath, [join(FIXTURES, 'everything-http.mjs')], { stdio: ['pipe', 'pipe', 'ignore'] });
        const url = await new Promise<string>((resolve, reject) => {
            httpHost!.stdout!.once('data', chunk => resolve(String(chunk).trim()));
            httpHost!.once('exit', code => reject(new Error(`the HTTP host exited with ${code}`)));
        });
        writeConfig('user', { remote: { url, type: 'http' }, gone: { url: 'http://127.0.0.1:9/mcp', timeouts: { initializeMs: 2_000 } } });
        writeFileSync(files().project, '{"mcpServers": {"bad": {"command": ""}}}');
        const states = await start().settled();
        const byName = Object.fromEntries(states.map(state => [state.name, state]));
        assert.equal(byName.remote.status, 'ready');
        assert.ok(byName.remote.tools.includes('get-sum') || byName.remote.tools.includes('echo'), byName.remote.tools.join(', '));
        assert.equal(byName.gone.status, 'failed');
        assert.ok(byName.gone.error, 'the reason is shown');
        assert.ok((byName.gone.retryInMs ?? -1) >= 0, 'a retry is scheduled');
        assert.equal(hub!.issues.length, 1);
        assert.match(hub!.issues[0].message, /command: the command to start the server is empty/);
        assert.match((await tool('mcp_remote_echo')!.run({ message: 'over http' }, context)).content, /over http/);
    });

    it('a server that crashes mid-call gives a Tool error, and the hub starts it again', async () => {
        writeConfig('user', { crashy: { command: process.execPath, args: [join(FIXTURES, 'crashing-server.mjs')] } });
        await start().settled();
        const first = await tool('mcp_crashy_ok')!.run({}, context);
        const crashed = await tool('mcp_crashy_crash')!.run({}, context);
        assert.equal(crashed.isError, true);
        assert.match(crashed.content, /MCP server "crashy" failed during crash/);
        for (let waited = 0; hub!.states()[0].status !== 'ready' && waited < 20_000; waited += 50) {
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        const again = await tool('mcp_crashy_ok')!.run({}, context);
        assert.equal(again.isError, false, again.content);
        assert.notEqual(again.content, first.content, 'a new process answers');
    });

    it('applies an edited mcp.json without a restart', async () => {
        writeConfig('user', {});
        await start().settled();
        assert.deepEqual(hub!.states(), []);
        const changed = new Promise<void>(resolve => {
            const stop = hub!.onDidChange(() => {
                if (hub!.states().some(state => state.status === 'ready')) {
                    stop();
                    resolve();
                }
            });
        });
        writeConfig('user', { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });
        await changed;
        assert.ok(tool('mcp_everything_echo'));
        writeConfig('user', {});
        for (let waited = 0; hub!.states().length > 0 && waited < 10_000; waited += 50) {
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        assert.deepEqual(hub!.states(), []);
    });

    it('notices an mcp.json whose folder did not exist when the hub started', async () => {
        rmSync(join(workspace, '.qodeassist'), { recursive: true, force: true });
        await start().settled();
        assert.deepEqual(hub!.states(), []);
        mkdirSync(join(workspace, '.qodeassist'));
        writeConfig('project', { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });
        for (let waited = 0; !hub!.states().some(state => state.status === 'ready') && waited < 15_000; waited += 100) {
            await new Promise(resolve => setTimeout(resolve, 100));
        }
        assert.equal(hub!.states()[0]?.status, 'ready');
    });

    it('its tools run inside a chat tool loop against the fake provider, behind the permission gate', async () => {
        writeConfig('user', { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });
        await start().settled();
        const fake = new FakeProviderServer();
        await fake.start();
        try {
            fake.enqueue(
                { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: 'mcp_everything_echo', arguments: { message: 'from the model' } }]) },
                { kind: 'replay', recording: openAITextRecording('The server echoed it.') }
            );
            const registry = new ToolContributorRegistry();
            registry.register(() => hub!.tools());
            const asked: string[] = [];
            const executor = new ToolKitExecutor(registry, 'chat-1', {
                files: new WorkspaceFiles([workspace]),
                permissions: { ask: async request => { asked.push(request.tool); return 'allow-once'; } }
            });
            const estimator = new TokenEstimator();
            const events: SessionEvent[] = [];
            const session = new Session('s1', {
                name: 'fake', model: 'fake-model', protocol: WIRE_PROTOCOLS['openai-chat'], url: `${fake.url}/v1/chat/completions`, headers: {}, secrets: [],
                contextWindow: 32_000, maxOutputTokens: 1_000, systemPrompt: 'You help.',
                renderBody: ctx => ({ model: 'fake-model', stream: true, messages: ctx.history.map(message => ({ role: message.role, content: message.content.map(block => block.type === 'text' ? block.text : JSON.stringify(block)).join('') })), tools: ctx.tools.map(t => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) })
            }, { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator }, batch => events.push(...batch));
            await session.send([{ type: 'text', text: 'echo something' }], { tools: executor.definitions(), executor });
            for (let waited = 0; !events.some(event => event.type === 'Finished' || event.type === 'Failed') && waited < 20_000; waited += 20) {
                await new Promise(resolve => setTimeout(resolve, 20));
            }
            assert.deepEqual(events.filter(event => event.type === 'Failed'), []);
            assert.deepEqual(asked, ['mcp_everything_echo']);
            const result = events.find(event => event.type === 'ToolResult');
            assert.ok(result && result.type === 'ToolResult' && /from the model/.test(result.content), JSON.stringify(result));
            assert.ok(JSON.parse(fake.requests[0].body).tools.some((t: { function: { name: string } }) => t.function.name === 'mcp_everything_echo'));
            assert.match(fake.requests[1].body, /from the model/);
        } finally {
            await fake.stop();
        }
    });
});
