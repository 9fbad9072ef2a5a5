import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpPermissionAnswer, AcpPermissionRequest, ChatEvent, ChatStorage, ConfigurationService, HistoryMessage, StoredChat } from '@qodeassist/core';
import { AgentScript, Step } from '../acp/scripted-acp-agent';
import { SCRIPTED_AGENT } from '../acp/acp-test-host';
import { ConfigFixture } from '../config/config-fixture';
import { ChatWindows, isTerminal, until } from './chat-harness';
import { processAlive } from '@qodeassist/core';

/** A chat answered by an external (ACP) agent: the scripted agent fixture, configured as `acp/scripted.toml` in the user layer. */
describe('chat with an external (ACP) agent', function () {
    this.timeout(30_000);
    const storage: ChatStorage = { location: 'user' };
    let fixture: ConfigFixture;
    let home: string;
    let log: string;
    let configuration: ConfigurationService;
    let windows: ChatWindows;
    let services: ConfigurationService[];

    beforeEach(() => {
        fixture = new ConfigFixture();
        mkdirSync(fixture.project, { recursive: true });
        home = mkdtempSync(join(tmpdir(), 'qodeassist-chat-acp-'));
        log = join(home, 'agent-log.jsonl');
        // The configuration is the test's own (its script): `configure` sets it before a window opens.
        windows = new ChatWindows(home, { forWorkspace: () => configuration }, 40);
        services = [];
    });
    afterEach(async () => {
        await windows.dispose();
        configuration?.dispose();
        services.forEach(service => service.dispose());
        rmSync(home, { recursive: true, force: true });
        fixture.dispose();
    });

    /** The scripted agent as a user-layer ACP agent; every message it receives is logged. */
    function configure(script: AgentScript): void {
        const args = [SCRIPTED_AGENT, JSON.stringify({ ...script, log })];
        fixture.user_('acp/scripted.toml', [
            'description = "A scripted agent for tests"',
            `command = ${JSON.stringify(process.execPath)}`,
            `args = [${args.map(arg => JSON.stringify(arg)).join(', ')}]`
        ].join('\n'));
        configuration = new ConfigurationService(fixture.roots);
    }

    /** A window: its host answers permission prompts with `answer` and writes through "its editor" (recorded). */
    function window(answer: (request: AcpPermissionRequest) => AcpPermissionAnswer, trusted = true, fresh = false) {
        // Untrusted: the project layer is not loaded, as the IDE does until the user trusts the folder.
        const untrusted = new ConfigurationService({ ...fixture.roots, project: undefined });
        services.push(untrusted);
        const prompts: AcpPermissionRequest[] = [];
        const writes: string[] = [];
        const { feature, events } = windows.open({
            keys: {}, freshOwners: fresh, configurations: { forWorkspace: () => trusted ? configuration : untrusted },
            host: {
                readOpenDocument: async path => path.endsWith('open.ts') ? 'unsaved editor text' : undefined,
                writeDocument: async (path, content) => {
                    writes.push(path);
                    writeFileSync(path, content);
                },
                requestAgentPermission: async (_chatId, request) => {
                    prompts.push(request);
                    return answer(request);
                }
            }
        });
        return { feature, events, prompts, writes };
    }

    const options = (extra: object = {}) => ({ agent: 'acp:scripted', workspacePath: fixture.workspace, ...extra });
    const allow = (request: AcpPermissionRequest) => ({ optionId: request.options.find(option => option.kind === 'allow_once')!.optionId });
    const reject = (request: AcpPermissionRequest) => ({ optionId: request.options.find(option => option.kind === 'reject_once')!.optionId });
    const ends = (events: ChatEvent[]) => events.filter(isTerminal);
    const received = () => existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(line => JSON.parse(line) as { method?: string; params?: Record<string, unknown> }) : [];
    const prompted = () => received().filter(message => message.method === 'session/prompt').map(message => JSON.stringify(message.params?.prompt));
    const onDisk = (chatId: string): StoredChat => JSON.parse(readFileSync(join(home, '.qodeassist', 'chats', `${chatId}.json`), 'utf8')) as StoredChat;
    const kinds = (message: HistoryMessage | undefined) => message?.blocks.map(block => block.type);

    const target = () => join(fixture.workspace, 'src', 'app.ts');
    /** A turn: thinking, text, a plan, a read tool call with a location, a permission-gated write through the client, the plan done. */
    const editTurn = (): Step[] => [
        { update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Looking at app.ts.' } } },
        { update: { sessionUpdate: 'plan', entries: [{ content: 'Read app.ts', priority: 'high', status: 'in_progress' }, { content: 'Fix the greeting', priority: 'medium', status: 'pending' }] } },
        { update: { sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'Read src/app.ts', kind: 'read', status: 'in_progress', locations: [{ path: target(), line: 1 }] } },
        { request: 'fs/read_text_file', params: { path: target() }, save: 'read', echo: true },
        { update: { sessionUpdate: 'tool_call_update', toolCallId: 'read-1', status: 'completed' } },
        { update: { sessionUpdate: 'tool_call', toolCallId: 'edit-1', title: 'Edit src/app.ts', kind: 'edit', status: 'pending', locations: [{ path: target() }] } },
        {
            permission: {
                toolCall: { toolCallId: 'edit-1', title: 'Edit src/app.ts', kind: 'edit', status: 'pending', locations: [{ path: target() }], content: [{ type: 'diff', path: target(), oldText: 'hello\n', newText: 'hello, world\n' }] },
                options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'always', name: 'Always allow', kind: 'allow_always' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }]
            },
            allowed: [
                { request: 'fs/write_text_file', params: { path: target(), content: 'hello, world\n' }, echo: true },
                { update: { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'completed' } }
            ],
            rejected: [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Not changed.' } } }]
        },
        { update: { sessionUpdate: 'plan', entries: [{ content: 'Read app.ts', priority: 'high', status: 'completed' }, { content: 'Fix the greeting', priority: 'medium', status: 'completed' }] } },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } } }
    ];

    it('streams a turn into the chat: text, thinking, a plan, tool calls; the write asked with the agent\'s options goes through the window\'s editor and can be undone', async () => {
        fixture.write(target(), 'hello\n');
        configure({ turns: [editTurn()], modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] } });
        const { feature, events, prompts, writes } = window(allow);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'Fix the greeting', attachments: [], turnId: 't1' }, options());
        await until(() => ends(events).length === 1, 'the turn to end');
        await feature.saved();

        assert.deepEqual(ends(events).map(event => event.type), ['Finished'], JSON.stringify(ends(events)));
        assert.equal(readFileSync(target(), 'utf8'), 'hello, world\n');
        assert.deepEqual(writes, [target()], 'the write went through the window\'s editor');
        assert.equal(prompts.length, 1);
        assert.deepEqual(prompts[0].options.map(option => option.name), ['Allow', 'Always allow', 'Reject']);
        assert.equal(prompts[0].toolCall.title, 'Edit src/app.ts');
        assert.ok(events.some(event => event.type === 'UserMessage' && event.turnId === 't1'));
        assert.ok(events.some(event => event.type === 'AcpMode' && event.availableModes?.length === 2), 'the modes reach the window');
        assert.ok(!events.some(event => event.type === 'ToolCallStart' || event.type === 'ToolResult'), 'the agent\'s tool calls come as AcpToolCall only');
        const write = events.find(event => event.type === 'AcpFileWrite');
        assert.ok(write && write.type === 'AcpFileWrite');

        const saved = onDisk(chatId);
        assert.deepEqual(kinds(saved.history[0]), ['text']);
        const answer = saved.history[1];
        assert.deepEqual(kinds(answer), ['thinking', 'agent_tool_call', 'text', 'agent_tool_call', 'file_edit', 'text', 'agent_plan']);
        const read = answer.blocks[1];
        assert.ok(read.type === 'agent_tool_call' && read.call.status === 'completed' && read.call.locations[0].path === target());
        const plan = answer.blocks.at(-1);
        assert.ok(plan?.type === 'agent_plan' && plan.entries.every(entry => entry.status === 'completed'));
        const edited = answer.blocks[3];
        assert.ok(edited.type === 'agent_tool_call' && edited.call.kind === 'edit' && edited.call.status === 'completed');
        const edit = answer.blocks[4];
        assert.ok(edit.type === 'file_edit' && edit.editId === write.editId);
        assert.equal(saved.edits[write.editId].state, 'applied');
        assert.match(saved.edits[write.editId].diff, /\+hello, world/);
        assert.deepEqual(saved.agentSession?.agent, 'scripted');
        await feature.setEditState(chatId, write.editId, 'undone');
        assert.equal(onDisk(chatId).edits[write.editId].state, 'undone');

        // The agent read the file through the IDE; the prompt carried the user's text.
        assert.ok(prompted()[0].includes('Fix the greeting'));
        await feature.setAgentMode(chatId, 'code');
        assert.ok(events.some(event => event.type === 'AcpMode' && event.currentModeId === 'code'));
        assert.ok(received().some(message => message.method === 'session/set_mode'));
    });

    it('a rejected write leaves the file as it was', async () => {
        fixture.write(target(), 'hello\n');
        configure({ turns: [editTurn()] });
        const { feature, events, prompts } = window(reject);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'Fix it', attachments: [] }, options());
        await until(() => ends(events).length === 1, 'the turn to end');
        assert.equal(prompts.length, 1);
        assert.equal(readFileSync(target(), 'utf8'), 'hello\n');
        assert.ok(!received().some(message => message.method === 'fs/write_text_file'));
        assert.ok(!events.some(event => event.type === 'AcpFileWrite'));
    });

    it('never starts an agent in an untrusted workspace: the message is kept with the reason', async () => {
        configure({ turns: [[{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'should not run' } } }]] });
        const { feature, events } = window(allow, false);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'Run', attachments: [] }, options());
        const failed = ends(events)[0];
        assert.ok(failed?.type === 'Failed');
        assert.match(failed.error.message, /trusted workspace/);
        assert.equal(existsSync(log), false, 'the agent was never started');
        await feature.saved();
        assert.deepEqual(onDisk(chatId).history.map(message => message.ended?.reason ?? 'sent'), ['sent', 'failed']);
    });

    it('a repository\'s own agent (.qodeassist/acp) never runs in an untrusted workspace, and is not offered', async () => {
        const marker = join(home, 'repository-agent-ran');
        fixture.project_('acp/evil.toml', [
            `command = ${JSON.stringify(process.execPath)}`,
            `args = ["-e", ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`)}]`
        ].join('\n'));
        configure({ turns: [] });
        const { feature, events } = window(allow, false);
        const { chatId } = await feature.open(storage);
        assert.ok(!(await feature.pickers.externalAgents(fixture.workspace)).some(choice => choice.name === 'acp:evil'));
        await feature.send(chatId, { text: 'Run', attachments: [] }, options({ agent: 'acp:evil' }));
        assert.equal(ends(events)[0]?.type, 'Failed');
        await new Promise(resolve => setTimeout(resolve, 300));
        assert.equal(existsSync(marker), false, 'the repository\'s program never ran');
        // Offered as unavailable (with the reason) when it is the user's own agent in an untrusted folder.
        const scripted = (await feature.pickers.externalAgents(fixture.workspace)).find(choice => choice.name === 'acp:scripted');
        assert.match(scripted?.unavailable ?? '', /trusted workspace/);
    });

    it('the picker offers an installed agent as it is and says how to install a missing one', async () => {
        fixture.user_('acp/missing.toml', 'command = "qodeassist-no-such-agent"\ninstall = "npm install -g no-such-agent"\n');
        configure({ turns: [] });
        const { feature } = window(allow);
        const choices = await feature.pickers.externalAgents(fixture.workspace);
        const scripted = choices.find(choice => choice.name === 'acp:scripted');
        assert.deepEqual({ kind: scripted?.kind, unavailable: scripted?.unavailable, description: scripted?.description }, { kind: 'acp', unavailable: undefined, description: 'A scripted agent for tests' });
        assert.match(choices.find(choice => choice.name === 'acp:missing')?.unavailable ?? '', /not installed.*npm install -g no-such-agent/);
    });

    it('an agent that could not start is started afresh at the next message (once it is installed, say)', async () => {
        const program = join(home, 'bin', 'my-agent');
        fixture.user_('acp/scripted.toml', `command = ${JSON.stringify(program)}\n`);
        configuration = new ConfigurationService(fixture.roots);
        const { feature, events } = window(allow);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'First', attachments: [] }, options());
        const first = ends(events)[0];
        assert.match(first?.type === 'Failed' ? first.error.message : '', /was not started/);
        // The user installs it: the same entry, the same command, now there.
        const script = JSON.stringify({ turns: [[{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'now it works' } } }]], log });
        mkdirSync(join(home, 'bin'), { recursive: true });
        writeFileSync(program, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(SCRIPTED_AGENT)} '${script}'\n`, { mode: 0o755 });
        await feature.send(chatId, { text: 'Again', attachments: [] }, options());
        await until(() => ends(events).length === 2, 'the second answer');
        assert.equal(ends(events)[1].type, 'Finished', JSON.stringify(ends(events)[1]));
    });

    it('an unknown or disabled external agent is a Config error that says what to do', async () => {
        configure({ turns: [] });
        const { feature, events } = window(allow);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'Hi', attachments: [] }, options({ agent: 'acp:nobody' }));
        const failed = ends(events)[0];
        assert.ok(failed?.type === 'Failed' && failed.error.category === 'Config');
        assert.match(failed.error.message, /no external agent named "nobody".*acp\/nobody\.toml/);
    });

    it('Stop cancels the turn: the agent gets session/cancel and what arrived is kept as stopped', async () => {
        configure({ turns: [[{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working…' } } }, { stall: true }]] });
        const { feature, events } = window(allow);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'Long task', attachments: [] }, options());
        await until(() => events.some(event => event.type === 'TextDelta'), 'the first text');
        await feature.cancel(chatId);
        await until(() => ends(events).length === 1, 'the turn to end');
        assert.equal(ends(events)[0].type, 'Cancelled');
        await until(() => received().some(message => message.method === 'session/cancel'), 'session/cancel');
        await feature.saved();
        const answer = onDisk(chatId).history[1];
        assert.equal(answer.ended?.reason, 'cancelled');
        assert.deepEqual(answer.blocks, [{ type: 'text', text: 'Working…' }]);
    });

    it('after a restart, the agent loads its session again; after an edit, a new session is told the conversation before it', async () => {
        const say = (text: string): Step[] => [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } }];
        configure({ turns: [say('first answer'), say('second answer')] });
        const first = window(allow);
        const { chatId } = await first.feature.open(storage);
        await first.feature.send(chatId, { text: 'first question', attachments: [] }, options());
        await until(() => ends(first.events).length === 1, 'the first answer');
        await first.feature.close(chatId);
        await windows.owners!.saved();

        // Another backend (fresh owners): the chat is read from its file and the agent asked to load the session.
        const second = window(allow, true, true);
        const opened = await second.feature.open(storage, chatId);
        assert.deepEqual(opened.chat?.history.map(message => message.role), ['user', 'assistant']);
        await second.feature.send(chatId, { text: 'second question', attachments: [] }, options());
        await until(() => ends(second.events).length === 1, 'the second answer');
        const loads = received().filter(message => message.method === 'session/load');
        assert.equal(loads.length, 1, 'the earlier session was loaded');
        assert.ok(!prompted().at(-1)!.includes('first question'), 'a loaded session knows the conversation: it is not sent again');

        // Edit and resend the second question: the session no longer matches the chat, a new one is told what came before.
        await second.feature.editAndSend(chatId, 1, { text: 'second question, edited', attachments: [] }, options());
        await until(() => ends(second.events).length === 2, 'the edited answer');
        const last = prompted().at(-1)!;
        assert.match(last, /first question/);
        assert.match(last, /first answer/);
        assert.match(last, /second question, edited/);
        assert.doesNotMatch(last, /second question"/);
    });

    it('closing the chat stops the agent process', async () => {
        const pidFile = join(home, 'pids.json');
        configure({ turns: [[{ spawnChild: pidFile }, { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } }]] });
        const { feature, events } = window(allow);
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, { text: 'Start', attachments: [] }, options());
        await until(() => ends(events).length === 1, 'the answer');
        const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as number[];
        assert.ok(pids.every(processAlive));
        await feature.close(chatId);
        await until(() => !pids.some(processAlive), 'the agent and its child to be gone');
    });
});
