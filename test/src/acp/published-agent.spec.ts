import * as assert from 'node:assert/strict';
import { AcpAgentClient, AcpEvent } from '@qodeassist/core';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { RecordingHost, recordEvents, Sandbox } from './acp-test-host';

/** The published adapter's entry point: Claude Code (its Agent SDK's cli.js) behind ACP, run with our node. */
const CLAUDE_CODE_ACP = join(dirname(require.resolve('@zed-industries/claude-code-acp/package.json')), 'dist', 'index.js');
/** The key the agent is given for its own provider (the fake one), and a key of QodeAssist's that must never reach it. */
const AGENT_KEY = 'sk-ant-agent-own-key-0123456789';
const OUR_KEY = 'sk-qodeassist-own-key-9876543210';

const sse = (events: Array<Record<string, unknown>>) => events.map(event => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-fake', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } };
/** Anthropic Messages streams as the API documents them: a text answer, or one tool call. */
const text = (answer: string) => sse([start,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: answer } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }, { type: 'message_stop' }]);
const toolUse = (id: string, name: string, input: Record<string, unknown>) => sse([start,
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name, input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }, { type: 'message_stop' }]);

interface ModelRequest {
    model?: string;
    max_tokens?: number;
    tools?: Array<{ name: string }>;
    messages?: Array<{ content: string | Array<{ type: string; content?: unknown }> }>;
}

/**
 * QodeAssist's ACP client against a real, published ACP agent from npm — Claude Code through
 * `@zed-industries/claude-code-acp` — whose model is the fake provider on 127.0.0.1 speaking the
 * Anthropic Messages API. The scripted model reads a file with the agent's ACP Read tool (served
 * by the IDE: the editor's unsaved text) and edits it with its Edit tool (asked through
 * session/request_permission, written through the IDE's writer).
 */
describe('a published ACP agent from npm (Claude Code) against the fake provider', function () {
    this.timeout(90_000);
    const server = new FakeProviderServer({ maxLifetimeMs: 300_000 });
    let sandbox: Sandbox;
    let client: AcpAgentClient | undefined;

    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => {
        server.reset();
        sandbox = new Sandbox();
    });
    afterEach(async () => {
        await client?.close();
        client = undefined;
        sandbox.dispose();
    });

    /** The model: Read the file first, then Edit it, then say it is done; side requests (a quota check without tools) get a short text. */
    function scriptModel(file: string, seen: string[]): void {
        server.setDefault({
            kind: 'dynamic', respond: body => {
                const request = JSON.parse(body || '{}') as ModelRequest;
                if (!request.tools?.length || (request.max_tokens ?? 0) <= 1) {
                    return { kind: 'replay', recording: text('ok') };
                }
                const results = (request.messages ?? []).flatMap(message => Array.isArray(message.content) ? message.content : []).filter(block => block.type === 'tool_result');
                seen.push(JSON.stringify(results.map(result => result.content)));
                if (results.length === 0) {
                    return { kind: 'replay', recording: toolUse('toolu_read', 'mcp__acp__Read', { file_path: file }) };
                }
                if (results.length === 1) {
                    return { kind: 'replay', recording: toolUse('toolu_edit', 'mcp__acp__Edit', { file_path: file, old_string: 'hello', new_string: 'hello, world' }) };
                }
                return { kind: 'replay', recording: text('The greeting is fixed.') };
            }
        });
    }

    function startClient(host: RecordingHost): AcpAgentClient {
        const home = join(sandbox.root, 'home');
        mkdirSync(home, { recursive: true });
        client = new AcpAgentClient({
            name: 'claude-code', command: process.execPath, args: [CLAUDE_CODE_ACP],
            env: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'DISABLE_TELEMETRY', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'DISABLE_AUTOUPDATER', 'CLAUDE_CONFIG_DIR']
        }, {
            host,
            // The backend's environment: the agent's own key and settings, and a key of QodeAssist's that is not named for it.
            env: {
                ...process.env, HOME: home, OPENAI_API_KEY: OUR_KEY, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: AGENT_KEY, DISABLE_TELEMETRY: '1',
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CONFIG_DIR: join(home, '.claude')
            },
            secrets: () => [OUR_KEY]
        });
        return client;
    }

    async function turn(host: RecordingHost): Promise<{ events: AcpEvent[]; end: AcpEvent }> {
        const agent = startClient(host);
        const info = await agent.start();
        assert.equal(info.protocolVersion, 1);
        assert.equal(info.name, '@zed-industries/claude-code-acp');
        const session = await agent.newSession();
        const events = recordEvents(session);
        const end = await session.prompt({ text: 'Fix the greeting in app.txt' }, { requestId: 'r1' });
        return { events, end };
    }

    it('a whole turn: the file read through the IDE (unsaved text), the edit asked with the agent\'s options and written through the IDE', async () => {
        const file = sandbox.write('workspace/app.txt', 'hello\n');
        const seen: string[] = [];
        scriptModel(file, seen);
        const host = new RecordingHost([sandbox.workspace]);
        // The file is open in an editor with a change not saved yet: the agent reads that.
        host.editors.set(file, 'hello\n// unsaved line\n');
        const { events, end } = await turn(host);

        assert.equal(end.type, 'Finished', JSON.stringify(end));
        assert.ok(seen.some(results => results.includes('// unsaved line')), 'the model got the editor\'s text through fs/read_text_file');
        assert.equal(host.prompts.length, 1);
        const prompt = host.prompts[0];
        assert.equal(prompt.toolCall.kind, 'edit');
        assert.ok(prompt.options.some(option => option.kind === 'allow_once') && prompt.options.some(option => option.kind.startsWith('reject')), JSON.stringify(prompt.options));
        assert.ok(prompt.toolCall.content.some(item => item.type === 'diff' && item.newText.includes('hello, world')));
        assert.deepEqual(host.writes.map(write => [write.path, write.content]), [[file, 'hello, world\n// unsaved line\n']]);
        assert.equal(readFileSync(file, 'utf8'), 'hello, world\n// unsaved line\n');
        const calls = events.filter(event => event.type === 'AcpToolCall').map(event => event.type === 'AcpToolCall' ? event.call : undefined);
        assert.ok(calls.some(call => call?.kind === 'read' && call.status === 'completed' && call.locations.some(location => location.path === file)));
        assert.ok(calls.some(call => call?.kind === 'edit' && call.status === 'completed'));
        assert.ok(events.some(event => event.type === 'AcpFileWrite'));
        assert.match(events.map(event => event.type === 'TextDelta' ? event.text : '').join(''), /The greeting is fixed\./);

        // The agent's provider got the agent's own key, and nothing of QodeAssist's.
        assert.ok(server.requests.length >= 3);
        for (const request of server.requests) {
            assert.equal(request.headers['x-api-key'], AGENT_KEY);
            assert.ok(!JSON.stringify(request.headers).includes(OUR_KEY) && !request.body.includes(OUR_KEY), 'QodeAssist\'s key never reached the agent');
        }
    });

    it('a rejected edit leaves the file as it was', async () => {
        const file = sandbox.write('workspace/app.txt', 'hello\n');
        scriptModel(file, []);
        const host = new RecordingHost([sandbox.workspace]);
        host.answer = async request => ({ optionId: request.options.find(option => option.kind.startsWith('reject'))!.optionId });
        const { end } = await turn(host);
        assert.notEqual(end.type, 'Failed', JSON.stringify(end));
        assert.equal(host.prompts.length, 1);
        assert.deepEqual(host.writes, []);
        assert.equal(readFileSync(file, 'utf8'), 'hello\n');
    });
});
