import * as assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAITextStreamRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { AcpTestClient } from './qodeassist-acp-harness';

describe('qodeassist-acp driven by the ACP SDK\'s client side (spawned)', function () {
    this.timeout(30_000);
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const home = join(fixture.root, 'home');
    const notes = join(fixture.workspace, 'notes.md');
    const app = join(fixture.workspace, 'src', 'app.ts');
    const APP = 'export const port = 8080;\n';
    let acp: AcpTestClient;

    const env = () => ({ PATH: process.env.PATH, HOME: home, ...FAKE_KEYS });
    const start = (args: string[] = ['--trust-workspace', fixture.workspace]) =>
        new AcpTestClient(['--config-dir', fixture.user, ...args], env(), fixture.workspace);
    const newSession = async () => (await acp.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [] })).sessionId;
    const modelRequests = () => server.requests.filter(request => request.method === 'POST');

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n\n[chat]\nagents = ["fake-openai", "fake-claude"]\n');
        fixture.write(notes, 'On disk: the API is frozen until Friday.\n');
        fixture.write(join(home, '.qodeassist', 'skills', 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from the git log\n---\nList the changes.\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(async () => {
        server.reset();
        fixture.write(app, APP);
        acp = start();
        await acp.initialize();
    });
    afterEach(async () => {
        assert.equal(await acp.close(), 0, acp.stderr);
    });

    it('initialize: ACP v1, the agent\'s name, session/load, and prompts with images and embedded files', async () => {
        const init = await acp.initialize();
        assert.equal(init.protocolVersion, 1);
        assert.equal(init.agentInfo?.name, 'qodeassist');
        assert.deepEqual(init.agentCapabilities?.promptCapabilities, { image: true, audio: false, embeddedContext: true });
        assert.equal(init.agentCapabilities?.loadSession, true);
        assert.deepEqual(init.authMethods, []);
    });

    it('session/new: the chat roster\'s agent picked, the agent, mode and role pickers as options, Act and Plan as modes, skills as slash commands', async () => {
        const response = await acp.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [] });
        const agent = response.configOptions?.find(option => option.id === 'agent');
        assert.ok(agent && agent.type === 'select');
        assert.equal(agent.currentValue, 'fake-openai');
        assert.equal(agent.category, 'model');
        assert.ok(agent.options.some(option => 'value' in option && option.value === 'fake-claude'), 'project agents load in a trusted folder');
        assert.equal(response.modes?.currentModeId, 'act');
        assert.deepEqual(response.modes?.availableModes.map(mode => mode.id), ['act', 'plan']);
        assert.equal(response.configOptions?.find(option => option.id === 'mode')?.currentValue, 'act');
        assert.ok(response.configOptions?.some(option => option.id === 'role'));
        await acp.until(() => acp.of(response.sessionId, 'available_commands_update').length > 0, 'the slash commands');
        assert.deepEqual(acp.of(response.sessionId, 'available_commands_update')[0].availableCommands,
            [{ name: 'release-notes', description: 'Write release notes from the git log', input: { hint: 'what to do with it' } }]);
    });

    it('a prompt whose answer streams: message chunks in order, then end_turn; the key went to the provider, never to the client', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['The ', 'API ', 'is ', 'frozen.']), chunkDelayMs: 30 });
        const sessionId = await newSession();
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Is the API frozen?' }] });
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(acp.answerText(sessionId), 'The API is frozen.');
        assert.ok(acp.of(sessionId, 'agent_message_chunk').length >= 2, 'the answer came in pieces as it streamed');
        assert.equal(modelRequests()[0].headers.authorization, `Bearer ${FAKE_KEYS.FAKE_OPENAI_API_KEY}`);
        assert.match(JSON.stringify(JSON.parse(modelRequests()[0].body).messages.at(-1)), /Is the API frozen\?/);
        assert.ok(!JSON.stringify(acp.updates).includes(FAKE_KEYS.FAKE_OPENAI_API_KEY));
    });

    it('a prompt with an embedded file and a file link: both reach the model, the link read through the client (its unsaved text)', async () => {
        acp.editors.set(notes, 'Unsaved: the API is frozen until Monday.\n');
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Noted.') });
        const sessionId = await newSession();
        await acp.agent.request('session/prompt', {
            sessionId, prompt: [
                { type: 'text', text: 'Compare these' },
                { type: 'resource', resource: { uri: `file://${app}`, text: 'export const port = 9090;\n', mimeType: 'text/x-typescript' } },
                { type: 'resource_link', uri: `file://${notes}`, name: 'notes.md' }
            ]
        });
        const body = modelRequests()[0].body;
        assert.match(body, /Attached file src\/app.ts:\\n```\\nexport const port = 9090;/);
        assert.match(body, /Attached file notes.md:\\n```\\nUnsaved: the API is frozen until Monday./);
        assert.ok(acp.calls.includes(`read ${notes}`));
    });

    it('a tool call: read_file goes through the client\'s fs (unsaved text), shown as a read tool call with its location', async () => {
        acp.editors.set(notes, 'Unsaved: the API is frozen until Monday.\n');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_1', name: 'read_file', arguments: { path: 'notes.md' } }]) },
            { kind: 'replay', recording: openAITextRecording('Frozen until Monday.') }
        );
        const sessionId = await newSession();
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Read the notes' }] });
        assert.equal(response.stopReason, 'end_turn');
        assert.ok(acp.calls.includes(`read ${notes}`), acp.calls.join('\n'));
        const started = acp.of(sessionId, 'tool_call');
        assert.equal(started.length, 1);
        assert.equal(started[0].kind, 'read');
        const updates = acp.of(sessionId, 'tool_call_update').filter(update => update.toolCallId === started[0].toolCallId);
        assert.ok(updates.some(update => update.title === 'Read notes.md' && update.locations?.[0]?.path === notes));
        const done = updates.at(-1)!;
        assert.equal(done.status, 'completed');
        assert.match(JSON.stringify(done.content), /Unsaved: the API is frozen until Monday/);
        assert.match(JSON.parse(modelRequests()[1].body).messages.find((message: { role: string }) => message.role === 'tool').content, /Unsaved: the API is frozen until Monday/);
        assert.equal(acp.answerText(sessionId), 'Frozen until Monday.');
    });

    const editTurn = () => server.enqueue(
        { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_7', name: 'edit_file', arguments: { path: 'src/app.ts', old_text: '8080', new_text: '9090' } }]) },
        { kind: 'replay', recording: openAITextRecording('Done.') }
    );

    it('a write asks permission first (with its diff); allowed once, it is written through the client and shown with its diff', async () => {
        editTurn();
        const sessionId = await newSession();
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Use port 9090' }] });
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(acp.permissions.length, 1);
        const question = acp.permissions[0];
        assert.deepEqual(question.options.map(option => option.kind), ['allow_once', 'allow_always', 'reject_once']);
        assert.equal(question.toolCall.kind, 'edit');
        assert.deepEqual(question.toolCall.content, [{ type: 'diff', path: app, oldText: APP, newText: 'export const port = 9090;\n' }]);
        const toolCallId = acp.of(sessionId, 'tool_call')[0].toolCallId;
        assert.equal(question.toolCall.toolCallId, toolCallId);
        assert.deepEqual(acp.calls.filter(call => !call.startsWith('read')), [`permission ${toolCallId}`, `write ${app}`], 'asked, then written');
        assert.equal(readFileSync(app, 'utf8'), 'export const port = 9090;\n');
        const done = acp.of(sessionId, 'tool_call_update').filter(update => update.toolCallId === toolCallId).at(-1)!;
        assert.equal(done.status, 'completed');
        assert.deepEqual(done.content?.[0], { type: 'diff', path: app, oldText: APP, newText: 'export const port = 9090;\n' });
    });

    it('a write the user rejects is not written: the file is unchanged, the call failed, and the model is told', async () => {
        acp.answer = 'reject_once';
        editTurn();
        const sessionId = await newSession();
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Use port 9090' }] });
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(acp.permissions.length, 1);
        assert.ok(!acp.calls.some(call => call.startsWith('write')), acp.calls.join('\n'));
        assert.equal(readFileSync(app, 'utf8'), APP);
        const toolCallId = acp.of(sessionId, 'tool_call')[0].toolCallId;
        assert.equal(acp.of(sessionId, 'tool_call_update').filter(update => update.toolCallId === toolCallId).at(-1)!.status, 'failed');
        assert.match(modelRequests()[1].body, /The user denied edit_file/);
    });

    it('a client without fs: QodeAssist\'s own confined tools write the file (after the same question), and a path out of the folder is refused', async () => {
        await acp.initialize({});
        const outside = join(fixture.root, 'outside.txt');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_1', name: 'edit_file', arguments: { path: 'src/app.ts', old_text: '8080', new_text: '7070' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_2', name: 'create_file', arguments: { path: '../outside.txt', content: 'escaped' } }]) },
            { kind: 'replay', recording: openAITextRecording('Done.') }
        );
        const sessionId = await newSession();
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Use port 7070' }] });
        assert.deepEqual(acp.calls.filter(call => !call.startsWith('permission')), [], 'nothing went through the client but the questions');
        assert.equal(readFileSync(app, 'utf8'), 'export const port = 7070;\n');
        const [edit, create] = acp.of(sessionId, 'tool_call').map(call => call.toolCallId);
        assert.deepEqual(acp.of(sessionId, 'tool_call_update').filter(update => update.toolCallId === edit).at(-1)!.content?.[0],
            { type: 'diff', path: app, oldText: APP, newText: 'export const port = 7070;\n' });
        assert.equal(acp.of(sessionId, 'tool_call_update').filter(update => update.toolCallId === create).at(-1)!.status, 'failed');
        assert.equal(existsSync(outside), false);
    });

    it('allow always: the same tool is not asked about again in the session', async () => {
        acp.answer = 'allow_always';
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_1', name: 'edit_file', arguments: { path: 'src/app.ts', old_text: '8080', new_text: '8081' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_2', name: 'edit_file', arguments: { path: 'src/app.ts', old_text: '8081', new_text: '8082' } }]) },
            { kind: 'replay', recording: openAITextRecording('Done twice.') }
        );
        const sessionId = await newSession();
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Bump the port twice' }] });
        assert.equal(acp.permissions.length, 1);
        assert.equal(readFileSync(app, 'utf8'), 'export const port = 8082;\n');
    });

    it('session/cancel mid-answer: the prompt ends with stopReason cancelled and the provider request is aborted', async () => {
        const pieces = Array.from({ length: 200 }, (_, index) => `word${index} `);
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(pieces), chunkDelayMs: 50 });
        const sessionId = await newSession();
        const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Write a lot' }] });
        await acp.until(() => acp.answerText(sessionId).length > 0, 'the first chunk');
        await assert.rejects(acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And another' }] }),
            (error: { code: number; message: string }) => error.code === -32600 && /already running in this session/.test(error.message));
        await acp.agent.notify('session/cancel', { sessionId });
        const response = await prompt;
        assert.equal(response.stopReason, 'cancelled');
        assert.equal(await modelRequests()[0].ended, 'aborted-by-client');
        assert.ok(!acp.answerText(sessionId).includes('word199'));
    });

    it('cancel while a permission question is open: the prompt ends cancelled, and the late "allow" writes nothing', async () => {
        acp.answer = 'hold';
        editTurn();
        const sessionId = await newSession();
        const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Use port 9090' }] });
        await acp.until(() => acp.permissions.length === 1, 'the permission question');
        await acp.agent.notify('session/cancel', { sessionId });
        assert.equal((await prompt).stopReason, 'cancelled');
        acp.release('allow_once');
        await new Promise(resolve => setTimeout(resolve, 300));
        assert.ok(!acp.calls.some(call => call.startsWith('write')), acp.calls.join('\n'));
        assert.equal(readFileSync(app, 'utf8'), APP);
        assert.equal(modelRequests().length, 1, 'the tool round never went back to the model');
    });

    it('with the client\'s terminal, a command runs there after the permission answer, shown as the call\'s terminal, with no keys in its environment', async () => {
        await acp.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_3', name: 'execute_terminal_command', arguments: { command: 'echo terminal-ok' } }]) },
            { kind: 'replay', recording: openAITextRecording('It printed terminal-ok.') }
        );
        const sessionId = await newSession();
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Run echo' }] });
        assert.equal(response.stopReason, 'end_turn');
        const toolCallId = acp.of(sessionId, 'tool_call')[0].toolCallId;
        assert.deepEqual(acp.calls, [`permission ${toolCallId}`, 'terminal echo terminal-ok']);
        assert.equal(acp.permissions[0].toolCall.kind, 'execute');
        assert.equal(acp.permissions[0].toolCall.title, 'Run echo terminal-ok');
        assert.equal(acp.terminals.length, 1);
        assert.deepEqual(acp.terminals[0].env, []);
        assert.equal(acp.terminals[0].cwd, fixture.workspace);
        assert.ok(acp.terminals[0].released, 'the terminal was released');
        const updates = acp.of(sessionId, 'tool_call_update').filter(update => update.toolCallId === toolCallId);
        assert.deepEqual(updates.find(update => update.content?.[0]?.type === 'terminal')?.content, [{ type: 'terminal', terminalId: 'term-1' }], JSON.stringify(updates));
        assert.equal(updates.at(-1)!.status, 'completed');
        assert.match(modelRequests()[1].body, /\$ echo terminal-ok\\nterminal-ok\\n\\n\[exited with code 0\]/);
    });

    it('bad prompts get typed JSON-RPC errors naming the cause, and the server keeps serving', async () => {
        const sessionId = await newSession();
        await assert.rejects(acp.agent.request('session/prompt', { sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'hi' }] }),
            (error: { code: number; message: string }) => error.code === -32002 && /no session no-such-session/.test(error.message));
        await assert.rejects(acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }),
            (error: { code: number; message: string; data: { category: string } }) => error.code === -32602 && /not audio/.test(error.message) && error.data.category === 'Validation');
        await assert.rejects(acp.agent.request('session/prompt', { sessionId, prompt: [] }),
            (error: { code: number; message: string }) => error.code === -32602 && /prompt is empty/.test(error.message));
        await assert.rejects(acp.agent.request('session/prompt', { sessionId } as never), (error: { code: number }) => error.code === -32602);
        await assert.rejects(acp.agent.request('session/set_config_option', { sessionId, configId: 'agent', value: 'no-such-agent' }),
            (error: { code: number; message: string }) => error.code === -32602 && /no chat agent "no-such-agent"/.test(error.message) && /fake-openai/.test(error.message));
        assert.equal(modelRequests().length, 0, 'nothing was sent for a bad prompt');
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Still here.') });
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(acp.answerText(sessionId), 'Still here.');
    });

    it('a provider failure is a typed JSON-RPC error with its category; the key never appears in it', async () => {
        server.enqueue({ kind: 'status', status: 401, body: JSON.stringify({ error: { message: `bad key ${FAKE_KEYS.FAKE_OPENAI_API_KEY}` } }) });
        const sessionId = await newSession();
        await assert.rejects(acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }),
            (error: { code: number; message: string; data: { category: string } }) => {
                assert.equal(error.data.category, 'Auth');
                assert.equal(error.code, -32000);
                assert.ok(!JSON.stringify(error).includes(FAKE_KEYS.FAKE_OPENAI_API_KEY), JSON.stringify(error));
                return true;
            });
    });

    it('the agent picker: set_config_option switches the agent that answers', async () => {
        const sessionId = await newSession();
        const { configOptions } = await acp.agent.request('session/set_config_option', { sessionId, configId: 'agent', value: 'fake-claude' });
        assert.equal(configOptions.find(option => option.id === 'agent')?.currentValue, 'fake-claude');
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
        assert.equal(modelRequests()[0].protocol, 'anthropic-messages');
        assert.equal(acp.answerText(sessionId), 'Hello! How can I help you today?');
    });

    it('the tool-round limit ends the turn with the max_turn_requests stop reason, not an error', async () => {
        fixture.project_('agents/fake-openai-short.toml', 'schema_version = 1\nname = "fake-openai-short"\nextends = "fake-openai"\npipelines = ["chat"]\n\n[limits]\nmax_tool_rounds = 1\n');
        const read = (id: string) => ({ kind: 'replay' as const, recording: openAIToolCallsRecording([{ id, name: 'read_file', arguments: { path: 'notes.md' } }]) });
        server.enqueue(read('call_1'), read('call_2'));
        const sessionId = await newSession();
        await acp.agent.request('session/set_config_option', { sessionId, configId: 'agent', value: 'fake-openai-short' });
        const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Keep reading' }] });
        assert.equal(response.stopReason, 'max_turn_requests');
        assert.equal(modelRequests().length, 2, 'the second round was asked for, its tool calls not run');
        assert.equal(acp.calls.filter(call => call.startsWith('read ')).length, 1);
    });

    it('session/list lists the saved chats of the folder, newest first, with their titles; another folder\'s chats apart', async () => {
        assert.deepEqual((await acp.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).agentCapabilities?.sessionCapabilities?.list, {});
        server.enqueue({ kind: 'replay', recording: openAITextRecording('One.') }, { kind: 'replay', recording: openAITextRecording('Two.') },
            { kind: 'replay', recording: openAITextRecording('Elsewhere.') });
        const first = await newSession();
        await acp.agent.request('session/prompt', { sessionId: first, prompt: [{ type: 'text', text: 'First topic' }] });
        const second = await newSession();
        await acp.agent.request('session/prompt', { sessionId: second, prompt: [{ type: 'text', text: 'Second topic' }] });
        // A second trusted folder with the same agents, served by the same process.
        const other = join(fixture.root, 'other-folder');
        cpSync(fixture.project, join(other, '.qodeassist'), { recursive: true });
        assert.equal(await acp.close(), 0, acp.stderr);
        acp = start(['--trust-workspace', fixture.workspace, '--trust-workspace', other]);
        await acp.initialize();
        const elsewhere = (await acp.agent.request('session/new', { cwd: other, mcpServers: [] })).sessionId;
        await acp.agent.request('session/prompt', { sessionId: elsewhere, prompt: [{ type: 'text', text: 'Other topic' }] });
        const listed = (await acp.agent.request('session/list', { cwd: fixture.workspace })).sessions;
        // Earlier tests' chats of this folder are listed too, older than these two.
        assert.deepEqual(listed.slice(0, 2).map(session => [session.sessionId, session.cwd, session.title]),
            [[second, fixture.workspace, 'Second topic'], [first, fixture.workspace, 'First topic']]);
        assert.ok(listed.every(session => session.cwd === fixture.workspace) && !listed.some(session => session.sessionId === elsewhere));
        assert.ok(listed.every(session => typeof session.updatedAt === 'string'));
        const all = (await acp.agent.request('session/list', {})).sessions.map(session => session.sessionId);
        assert.ok([first, second, elsewhere].every(id => all.includes(id)), JSON.stringify(all));
    });

    it('plan mode as a session mode: read tools only and a plan asked for; Act brings the tools back with the plan pinned', async () => {
        const sessionId = await newSession();
        await acp.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
        await acp.until(() => acp.of(sessionId, 'current_mode_update').length > 0, 'the mode update');
        assert.equal(acp.of(sessionId, 'current_mode_update')[0].currentModeId, 'plan');
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Plan: 1. Change the port.') });
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Plan the port change' }] });
        const planned = JSON.parse(modelRequests().at(-1)!.body) as { messages: unknown[]; tools?: Array<{ function: { name: string } }> };
        const offered = (planned.tools ?? []).map(tool => tool.function.name);
        assert.ok(offered.includes('read_file') && !offered.includes('edit_file') && !offered.includes('create_file'), offered.join(', '));
        assert.match(JSON.stringify(planned.messages), /You are in plan mode/);
        await acp.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'act' });
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Done.') });
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Go' }] });
        const acting = JSON.parse(modelRequests().at(-1)!.body) as { messages: unknown[]; tools?: Array<{ function: { name: string } }> };
        assert.ok((acting.tools ?? []).some(tool => tool.function.name === 'edit_file'));
        assert.match(JSON.stringify(acting.messages), /The plan agreed in plan mode.*Change the port/);
    });

    it('session/load in a new process replays the saved chat and goes on with it', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('First answer.') });
        const sessionId = await newSession();
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'First question' }] });
        assert.equal(await acp.close(), 0, acp.stderr);
        acp = start();
        await acp.initialize();
        await acp.agent.request('session/load', { sessionId, cwd: fixture.workspace, mcpServers: [] });
        assert.deepEqual(acp.updates.filter(entry => entry.sessionId === sessionId).slice(0, 2).map(entry => entry.update),
            [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'First question' } }, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'First answer.' } }]);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Second answer.') });
        await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Second question' }] });
        const messages = JSON.parse(modelRequests().at(-1)!.body).messages as Array<{ role: string; content: unknown }>;
        assert.match(JSON.stringify(messages), /First question.*First answer\..*Second question/);
    });

    it('a folder the user did not trust: its own agents are not loaded, and nothing of it is used', async () => {
        assert.equal(await acp.close(), 0, acp.stderr);
        acp = start([]);
        await acp.initialize();
        const response = await acp.agent.request('session/new', { cwd: fixture.workspace, mcpServers: [] });
        const agent = response.configOptions?.find(option => option.id === 'agent');
        assert.ok(agent && agent.type === 'select');
        assert.ok(!agent.options.some(option => 'value' in option && option.value.startsWith('fake-')), JSON.stringify(agent.options));
        await acp.until(() => /project configuration not loaded: workspace not trusted \(skipped \.qodeassist\/agents, \.qodeassist\/providers\)/.test(acp.stderr), 'the notice on stderr');
    });
});
