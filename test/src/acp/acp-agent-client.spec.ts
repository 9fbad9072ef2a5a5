import * as assert from 'node:assert/strict';
import { AcpAgentClient, AcpEvent, AcpToolCallEvent } from '@qodeassist/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentScript } from './scripted-acp-agent';
import { echoed, eventually, messageText, recordEvents, RecordingHost, Sandbox, scriptedAgent } from './acp-test-host';

describe('AcpAgentClient against the scripted ACP agent: a turn and its content', function () {
    this.timeout(30_000);
    let sandbox: Sandbox;
    let client: AcpAgentClient | undefined;

    beforeEach(() => { sandbox = new Sandbox(); });
    afterEach(async () => {
        await client?.close();
        client = undefined;
        sandbox.dispose();
    });

    const start = (script: AgentScript, host = new RecordingHost([sandbox.workspace])) => {
        client = new AcpAgentClient(scriptedAgent({ log: sandbox.log, ...script }), { host });
        return { client, host };
    };
    const received = () => readFileSync(sandbox.log, 'utf8').trim().split('\n').map(line => JSON.parse(line) as { method?: string; params?: Record<string, unknown> });
    const types = (events: readonly AcpEvent[]) => events.map(event => event.type);

    it('initializes with the host\'s capabilities and maps every update kind of a full turn to typed events', async () => {
        const { client } = start({
            modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code', description: 'Edits files' }] },
            afterNewSession: [{ update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'review', description: 'Review the diff', input: { hint: 'what to focus on' } }] } }],
            turns: [[
                { update: { sessionUpdate: 'plan', entries: [{ content: 'Read the file', priority: 'high', status: 'in_progress' }, { content: 'Fix it', priority: 'medium', status: 'pending' }] } },
                { update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Thinking about it' } } },
                { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello ' } } },
                { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'there' } } },
                { update: { sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: join(sandbox.workspace, 'a.ts'), line: 3 }], rawInput: { path: 'a.ts' } } },
                {
                    update: {
                        sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed',
                        content: [{ type: 'diff', path: join(sandbox.workspace, 'a.ts'), oldText: 'let a = 1;\n', newText: 'let a = 2;\n' }, { type: 'content', content: { type: 'text', text: 'done' } }]
                    }
                },
                { update: { sessionUpdate: 'current_mode_update', currentModeId: 'code' } },
                { update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'echoed user text' } } },
                { update: { sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.01, currency: 'USD' } } }
            ]]
        });
        const info = await client.start();
        assert.deepEqual({ name: info.name, version: info.version, loadSession: info.loadSession, prompt: info.prompt },
            { name: 'scripted-agent', version: '1.0.0', loadSession: true, prompt: { image: true, audio: false, embeddedContext: true } });
        const events: AcpEvent[] = [];
        const session = await client.newSession({ onEvent: event => events.push(event) });
        assert.deepEqual(session.modes?.availableModes.map(mode => mode.id), ['ask', 'code']);
        await eventually(events, event => event.type === 'AcpCommands');
        const end = await session.prompt({ text: 'Fix a.ts' }, { requestId: 'r1' });

        assert.deepEqual(end, { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        const initialize = received().find(message => message.method === 'initialize')!;
        assert.deepEqual(initialize.params!.clientCapabilities, { fs: { readTextFile: true, writeTextFile: true }, terminal: true });
        const newSession = received().find(message => message.method === 'session/new')!;
        assert.equal(newSession.params!.cwd, sandbox.workspace, 'the session runs in the workspace root');
        assert.deepEqual(session.commands, [{ name: 'review', description: 'Review the diff', hint: 'what to focus on' }]);
        assert.equal(session.modes?.currentModeId, 'code');

        const turn = events.filter(event => event.requestId === 'r1');
        assert.deepEqual(types(turn), [
            'RequestStarted', 'AcpPlan', 'ThinkingDelta', 'TextDelta', 'TextDelta', 'ToolCallStart', 'AcpToolCall', 'AcpToolCall', 'ToolResult',
            'AcpMode', 'AcpUserMessage', 'AcpUsage', 'Finished'
        ]);
        assert.deepEqual(turn[1], { type: 'AcpPlan', requestId: 'r1', entries: [{ content: 'Read the file', priority: 'high', status: 'in_progress' }, { content: 'Fix it', priority: 'medium', status: 'pending' }] });
        assert.equal(messageText(turn), 'Hello there');
        assert.deepEqual(turn[5], { type: 'ToolCallStart', requestId: 'r1', callId: 'call-1', name: 'Edit a.ts' });
        const updated = (turn[7] as AcpToolCallEvent).call;
        assert.equal(updated.kind, 'edit', 'the kind of the first event is kept by the update');
        assert.equal(updated.status, 'completed');
        assert.deepEqual(updated.locations, [{ path: join(sandbox.workspace, 'a.ts'), line: 3 }]);
        assert.deepEqual(updated.rawInput, { path: 'a.ts' });
        const diff = updated.content[0];
        assert.equal(diff.type, 'diff');
        assert.match(diff.type === 'diff' ? diff.patch ?? '' : '', /--- a\/a\.ts\n\+\+\+ b\/a\.ts\n@@ -1,1 \+1,1 @@\n-let a = 1;\n\+let a = 2;/);
        assert.deepEqual(turn[8], { type: 'ToolResult', requestId: 'r1', callId: 'call-1', name: 'Edit a.ts', content: 'Edited ' + join(sandbox.workspace, 'a.ts') + '\ndone', isError: false });
        assert.deepEqual(turn[9], { type: 'AcpMode', requestId: 'r1', currentModeId: 'code' });
        assert.deepEqual(turn[10], { type: 'AcpUserMessage', requestId: 'r1', content: { type: 'text', text: 'echoed user text' } });
        assert.deepEqual(turn[11], { type: 'AcpUsage', requestId: 'r1', used: 1200, size: 200000, cost: { amount: 0.01, currency: 'USD' } });
        const outside = events.filter(event => event.requestId !== 'r1');
        assert.deepEqual(types(outside), ['AcpMode', 'AcpCommands'], 'the modes of session/new and the commands sent after it come outside the turn');
    });

    it('sends linked files as embedded resources (unsaved editor text) and images when the agent accepts them, links and notes otherwise', async () => {
        const linked = sandbox.write('workspace/src/linked.ts', 'on disk\n');
        const { client, host } = start({ turns: [[]] });
        host.editors.set(linked, 'unsaved editor text\n');
        const session = await client.newSession();
        await session.prompt({ text: 'Look', files: [{ path: 'src/linked.ts' }, { path: 'notes.md', text: 'attached text' }], images: [{ data: 'aGVsbG8=', mimeType: 'image/png' }] }, { requestId: 'r1' });
        const prompt = received().find(message => message.method === 'session/prompt')!.params!.prompt as Array<Record<string, unknown>>;
        assert.deepEqual(prompt, [
            { type: 'resource', resource: { uri: `file://${linked}`, text: 'unsaved editor text\n' } },
            { type: 'resource', resource: { uri: `file://${join(sandbox.workspace, 'notes.md')}`, text: 'attached text' } },
            { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
            { type: 'text', text: 'Look' }
        ]);
        await client.close();

        const plain = start({ initialize: { agentCapabilities: { promptCapabilities: {} } }, turns: [[]] });
        const events: AcpEvent[] = [];
        const second = await plain.client.newSession({ onEvent: event => events.push(event) });
        await second.prompt({ text: 'Look', files: [{ path: linked }], images: [{ data: 'aGVsbG8=', mimeType: 'image/png' }] }, { requestId: 'r2' });
        const prompts = received().filter(message => message.method === 'session/prompt');
        assert.deepEqual(prompts[prompts.length - 1].params!.prompt, [
            { type: 'resource_link', uri: `file://${linked}`, name: 'linked.ts' },
            { type: 'text', text: 'Look' }
        ]);
        assert.ok(events.some(event => event.type === 'AcpNotice' && /image.*left out.*does not accept images/.test(event.title)), JSON.stringify(events));
    });

    it('names the other workspace roots in session/new only to an agent that takes additional directories', async () => {
        const second = sandbox.write('second/readme.md', 'x');
        const roots = [sandbox.workspace, join(second, '..')];
        const taking = start({ initialize: { agentCapabilities: { sessionCapabilities: { additionalDirectories: {} } } }, turns: [] }, new RecordingHost(roots));
        await taking.client.newSession();
        await taking.client.close();
        const plain = start({ turns: [] }, new RecordingHost(roots));
        await plain.client.newSession();
        const sessions = received().filter(message => message.method === 'session/new').map(message => message.params!.additionalDirectories);
        assert.deepEqual(sessions, [[join(sandbox.root, 'second')], undefined]);
    });

    it('replays a loaded session as events outside any turn and records its modes', async () => {
        const { client } = start({
            modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }] },
            load: [
                { update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'earlier question' } } },
                { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'earlier answer' } } }
            ],
            turns: []
        });
        const events: AcpEvent[] = [];
        const session = await client.loadSession('sess-old', { onEvent: event => events.push(event) });
        assert.equal(session.id, 'sess-old');
        assert.deepEqual(events.map(event => [event.type, event.requestId]), [
            ['AcpUserMessage', 'acp-load:sess-old'], ['TextDelta', 'acp-load:sess-old'], ['AcpMode', 'acp-load:sess-old']
        ]);
        assert.equal(received().find(message => message.method === 'session/load')!.params!.sessionId, 'sess-old');
    });

    it('switches modes through session/set_mode and refuses a mode the agent does not have', async () => {
        const { client } = start({ modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] }, turns: [] });
        const session = await client.newSession();
        const events = recordEvents(session);
        await session.setMode('code');
        assert.equal(session.modes?.currentModeId, 'code');
        assert.ok(events.some(event => event.type === 'AcpMode' && event.currentModeId === 'code'));
        await assert.rejects(session.setMode('yolo'), (error: Error) => /has no mode "yolo"; its modes are ask, code/.test(error.message));
        assert.deepEqual(received().filter(message => message.method === 'session/set_mode').map(message => message.params!.modeId), ['code']);
    });

    it('answers fs/read_text_file with line and limit from the disk', async () => {
        sandbox.write('workspace/lines.txt', 'one\ntwo\nthree\nfour\n');
        const { client } = start({ turns: [[{ request: 'fs/read_text_file', params: { path: join(sandbox.workspace, 'lines.txt'), line: 2, limit: 2 }, save: 'read', echo: true }]] });
        const session = await client.newSession();
        const events = recordEvents(session);
        await session.prompt({ text: 'read' }, { requestId: 'r1' });
        assert.deepEqual(echoed(events, 'read'), { content: 'two\nthree' });
    });
});
