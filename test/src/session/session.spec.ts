import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
    ContentLoader, ContextAssembler, EnvironmentSecretsStore, HistoryBlock, Session, SessionAgent, sessionAgentFor, SessionEvent, SessionManager,
    SessionServices, TokenEstimator, ToolCall, compressHistory, compressWithRoster, summarizeWith, ToolContributorRegistry, FILE_TOOLS, createBuildTool,
    CommandBuildRunner, ToolKitExecutor, WorkspaceFiles, FixedPermissionPolicy
} from '@qodeassist/core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_AGENTS, FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';

const text = (value: string): HistoryBlock[] => [{ type: 'text', text: value }];
const READ_FILE = { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } };

describe('Session over configured agents and the fake provider', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const secrets = new EnvironmentSecretsStore(FAKE_KEYS);
    let events: SessionEvent[];

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        events = [];
    });

    const services = (overrides: Partial<SessionServices> = {}): SessionServices => {
        const estimator = new TokenEstimator();
        return { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator, ...overrides };
    };
    const agentNamed = (name: string): Promise<SessionAgent> => sessionAgentFor(fixture.load().agents.get(name)!, secrets);
    const open = async (name: string, overrides: Partial<SessionServices> = {}) => new Session('s1', await agentNamed(name), services(overrides), batch => events.push(...batch));
    const terminals = () => events.filter(event => ['Finished', 'Failed', 'Cancelled'].includes(event.type));
    const settle = async (session: Session) => {
        while (session.busy) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    };

    for (const fake of FAKE_AGENTS) {
        it(`${fake.protocol}: keeps a multi-turn history and sends it back in the protocol's shape`, async () => {
            const session = await open(fake.agent);
            const first = await session.send(text('hello'));
            await settle(session);
            await session.send(text('and again'));
            await settle(session);
            assert.deepEqual(events[0], { type: 'RequestStarted', requestId: first, agent: fake.agent, model: 'fake-model' });
            assert.equal(events[1].type, 'Manifest');
            assert.deepEqual(terminals().map(event => event.type), ['Finished', 'Finished']);
            assert.deepEqual(session.history.map(message => [message.role, message.blocks]), [
                ['user', text('hello')], ['assistant', text('Hello! How can I help you today?')],
                ['user', text('and again')], ['assistant', text('Hello! How can I help you today?')]
            ]);
            assert.ok(session.history[1].usage && session.history[1].usage.inputTokens > 0, 'usage is recorded on the answer');
            const second = server.requests[1].body;
            assert.equal(server.requests[1].protocol, fake.protocol);
            for (const expected of ['hello', 'Hello! How can I help you today?', 'and again', 'You are QodeAssist, an expert software developer']) {
                assert.ok(second.includes(expected), `${expected} missing from ${second}`);
            }
        });
    }

    it('runs the tool loop, records each round in history, and keeps pinned context byte-identical inside a turn', async () => {
        const linked = join(fixture.root, 'linked.ts');
        writeFileSync(linked, 'export const version = 1;');
        const calls: ToolCall[] = [];
        const session = await open('fake-openai', { tools: { execute: async call => { calls.push(call); return { content: `weather in ${String(call.arguments.city)}: sunny` }; } } });
        session.pinContext('linked', async () => ({ id: 'linked', label: 'Linked file linked.ts', text: readFileSync(linked, 'utf8') }));
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/reasoning-tool-calls.sse' });
        await session.send(text('weather?'), { tools: [READ_FILE] });
        await settle(session);
        assert.deepEqual(terminals().map(event => event.type), ['Finished']);
        assert.deepEqual(calls.map(call => call.arguments), [{ city: 'Paris' }, { city: 'Berlin – Mitte' }]);
        assert.deepEqual(session.history.map(message => [message.role, message.blocks.map(block => block.type)]), [
            ['user', ['text']], ['assistant', ['thinking', 'tool_use', 'tool_use']], ['user', ['tool_result', 'tool_result']], ['assistant', ['text']]
        ]);
        const [round1, round2] = server.requests.map(request => JSON.parse(request.body));
        assert.deepEqual(round2.messages.slice(0, round1.messages.length), round1.messages, 'the continuation replays the first request unchanged');
        assert.match(round1.messages[1].content[0].text, /Linked file linked.ts \(content as of this turn\):\nexport const version = 1;/);

        writeFileSync(linked, 'export const version = 2;');
        await session.send(text('and now?'));
        await settle(session);
        const round3 = JSON.parse(server.requests[2].body);
        const turnMessage = round3.messages.at(-1);
        assert.match(turnMessage.content[0].text, /version = 2/, 'the next send re-reads the pinned file');
        assert.ok(!JSON.stringify(round3.messages.slice(0, -1)).includes('Linked file'), 'pinned content is not stored in history');
    });

    it('a chat tool loop reads a file, edits it and builds, with every round in history', async () => {
        const workspace = fixture.workspace;
        writeFileSync(join(workspace, 'calc.js'), 'module.exports = (a, b) => a - b; // bug\n');
        const check = `const f = require('./calc.js'); if (f(2, 3) !== 5) { console.error('calc.js:1:1: error: add returned ' + f(2, 3)); process.exit(1); } console.log('ok')`;
        const registry = new ToolContributorRegistry();
        registry.register(() => [...FILE_TOOLS, createBuildTool(new CommandBuildRunner([process.execPath, '-e', check], workspace))]);
        const toolkit = new ToolKitExecutor(registry, 'chat-build', { files: new WorkspaceFiles([workspace]), permissions: new FixedPermissionPolicy(new Set(['read', 'write', 'execute'])) });
        const session = await open('fake-openai');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'b0', name: 'build_project', arguments: {} }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'r1', name: 'read_file', arguments: { path: 'calc.js' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: { path: 'calc.js', old_text: 'a - b; // bug', new_text: 'a + b;' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'b1', name: 'build_project', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('Fixed and built.') }
        );
        await session.send(text('the build fails, fix it'), { tools: toolkit.definitions(), executor: toolkit });
        await settle(session);
        assert.deepEqual(terminals().map(event => event.type), ['Finished']);
        const results = events.flatMap(event => event.type === 'ToolResult' ? [[event.name, event.isError, event.content.split('\n')[0]]] : []);
        assert.deepEqual(results, [
            ['build_project', true, 'The build failed (exit code 1).'], ['read_file', false, 'module.exports = (a, b) => a - b; // bug'],
            ['edit_file', false, 'Edited calc.js (1 replacement).'], ['build_project', false, 'The build succeeded.']
        ]);
        assert.match(results[0][2] as string, /failed/);
        assert.equal(readFileSync(join(workspace, 'calc.js'), 'utf8'), 'module.exports = (a, b) => a + b;\n');
        assert.equal(session.history.length, 1 + 4 * 2 + 1, 'user, four tool rounds (call + result), final answer');
        const firstBuild = JSON.parse(server.requests[1].body).messages.at(-1).content;
        assert.match(firstBuild, /Problems \(1 errors, 0 warnings\):\ncalc.js:1:1: error: add returned -1/);
    });

    it('cancel during the stream ends with one Cancelled event and no assistant turn', async () => {
        const session = await open('fake-openai');
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        await session.send(text('long one'));
        while (!events.some(event => event.type === 'TextDelta')) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        await session.cancel();
        assert.deepEqual(terminals().map(event => event.type), ['Cancelled']);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
        assert.deepEqual(session.history.map(message => message.role), ['user']);
    });

    it('cancel during tool execution ends with Cancelled and leaves no broken tool pair', async () => {
        const holder: { session?: Session } = {};
        const session = await open('fake-openai', {
            tools: { execute: async () => { void holder.session?.cancel(); await new Promise(resolve => setTimeout(resolve, 20)); return { content: 'late' }; } }
        });
        holder.session = session;
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/reasoning-tool-calls.sse' });
        await session.send(text('weather?'), { tools: [READ_FILE] });
        await settle(session);
        assert.deepEqual(terminals().map(event => event.type), ['Cancelled']);
        assert.equal(server.requests.length, 1);
        assert.deepEqual(session.history.map(message => message.role), ['user']);
    });

    it('send while in flight cancels the previous request first', async () => {
        const session = await open('fake-openai');
        server.when({ promptIncludes: 'slow', scenario: { kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 } });
        const first = await session.send(text('slow'));
        const second = await session.send(text('fast'));
        await settle(session);
        assert.deepEqual(terminals().map(event => [event.type, event.requestId]), [['Cancelled', first], ['Finished', second]]);
    });

    it('refuses an over-budget conversation with a Validation failure before sending', async () => {
        const session = await open('fake-ollama');
        await session.send(text('x'.repeat(200_000)));
        await settle(session);
        const terminal = terminals()[0];
        assert.ok(terminal.type === 'Failed' && terminal.error.category === 'Validation', JSON.stringify(terminal));
        assert.equal(server.requests.length, 0);
    });

    it('previews the next send for the token counter without sending or changing the history', async () => {
        const session = await open('fake-ollama');
        session.pinContext('linked', async () => ({ id: 'linked', label: 'Linked file a.ts', text: 'y'.repeat(400) }));
        const small = await session.preview(text('x'.repeat(4_000)));
        assert.equal(small.pinned[0].label, 'Linked file a.ts');
        assert.ok(small.task.tokens >= 1_000, JSON.stringify(small.task));
        assert.equal(small.refusal, undefined);
        const huge = await session.preview(text('x'.repeat(200_000)));
        assert.match(huge.refusal ?? '', /^The conversation needs about \d+ tokens but this agent allows \d+ .*Summarize the chat to continue/);
        assert.ok(huge.estimate > huge.limit);
        assert.equal(session.history.length, 0);
        assert.equal(server.requests.length, 0);
        assert.deepEqual(events, []);
    });

    it('a provider error becomes one Failed event, the key redacted', async () => {
        const session = await open('fake-claude');
        server.enqueue({ kind: 'status', status: 401, body: `{"error":{"message":"bad key ${FAKE_KEYS.FAKE_CLAUDE_API_KEY}"}}` });
        await session.send(text('hi'));
        await settle(session);
        assert.deepEqual(terminals().map(event => event.type), ['Failed']);
        assert.equal(server.requests[0].headers['x-api-key'], FAKE_KEYS.FAKE_CLAUDE_API_KEY);
        assert.ok(!JSON.stringify(events).includes(FAKE_KEYS.FAKE_CLAUDE_API_KEY), 'the key appears in no event');
    });

    it('a cloud provider without a key fails before sending, naming the variable to set', async () => {
        const agent = fixture.load().agents.get('fake-gemini')!;
        await assert.rejects(sessionAgentFor(agent, new EnvironmentSecretsStore({})), /Set the environment variable FAKE_GOOGLE_API_KEY/);
        assert.equal(server.requests.length, 0);
    });

    it('compresses a history through a compression agent session', async () => {
        const chat = await open('fake-openai');
        await chat.send(text('Please fix the failing build in a.ts'));
        await settle(chat);
        const compressor = await open('fake-ollama');
        const result = await compressHistory(chat.history, {
            compressedFrom: 'chat-7', limitTokens: 30_000, estimator: new TokenEstimator(), summarize: summarizeWith(compressor)
        });
        assert.equal(result.summary, 'Hello! How can I help you today?');
        assert.equal(result.history[0].compressedFrom, 'chat-7');
        const sent = JSON.parse(server.requests[1].body);
        assert.match(sent.messages.at(-1).content, /User: Please fix the failing build in a.ts\n\nAssistant: Hello!/);
        chat.restore(result.history);
        await chat.send(text('continue'));
        await settle(chat);
        assert.match(server.requests[2].body, /Summary of the conversation so far/);
    });

    it('compresses through the compression roster in a session of its own', async () => {
        const chat = await open('fake-openai');
        await chat.send(text('Remember the deadline is Friday'));
        await settle(chat);
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-openai"]\n[compression]\nagents = ["fake-ollama"]\n');
        try {
            const configuration = fixture.load();
            const sessions = new SessionManager(name => sessionAgentFor(configuration.agents.get(name)!, secrets), services());
            const result = await compressWithRoster(chat.history, { configuration, sessions, estimator: new TokenEstimator(), compressedFrom: 'chat-9' });
            assert.equal(result.history[0].compressedFrom, 'chat-9');
            const sent = server.requests[1];
            assert.equal(sent.protocol, 'ollama-chat');
            assert.match(JSON.parse(sent.body).messages[0].content, /You write summaries of coding conversations/);
            assert.equal(sessions.pooled('fake-ollama'), 1, 'the compression session goes back to the pool');
        } finally {
            writeFakeAgents(fixture, server.url);
        }
    });

    it('SessionManager reuses pooled sessions per agent, always handing them out empty', async () => {
        let resolved = 0;
        const manager = new SessionManager(async name => { resolved++; return agentNamed(name); }, services(), 1);
        const first = await manager.acquire('fake-openai', batch => events.push(...batch));
        first.setLayer('env.project', 'Project: demo');
        await first.send(text('hi'));
        await settle(first);
        await manager.release(first);
        assert.equal(manager.pooled('fake-openai'), 1);
        const again = await manager.acquire('fake-openai', () => undefined);
        assert.equal(again, first, 'the pooled session comes back');
        assert.deepEqual(again.history, []);
        const other = await manager.acquire('fake-openai', () => undefined);
        assert.notEqual(other, again);
        assert.equal(resolved, 1, 'agent, template and key are resolved once');
        server.reset();
        await again.send(text('fresh'));
        await settle(again);
        assert.ok(!server.requests[0].body.includes('Project: demo'), 'layers do not survive a release');
    });
});
