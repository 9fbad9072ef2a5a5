import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ChainedSecretsStore, ChatOwners, EnvironmentSecretsStore, FileSecretsStore, QodeAssistRuntime, RecordingWritableSecretsStore } from '@qodeassist/core';
import { FAKE_KEYS, openAITextRecording, openAIToolCallsRecording, useFakeProviderSuite, writeFakeAgents } from '@qodeassist/test';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ChatEvent, ChatInput, ChatSessionEvent, ChatStorage, QodeAssistChatClient, SessionEvent, StoredChat } from '../common/chat-protocol';
import { QodeAssistChatServiceImpl } from './chat-service-impl';
import { useChatService } from './chat-service.spec-support';

describe('QodeAssistChatServiceImpl', () => {
    const suite = useFakeProviderSuite();
    const { server, fixture, configurations } = suite;
    const received: Array<{ sessionId: string; event: SessionEvent }> = [];
    const permissionAnswers: Array<'allow-once' | 'allow-chat' | 'deny'> = [];
    const client: QodeAssistChatClient = {
        // The session's events; the chat's own (UserMessage, History) are checked where they matter.
        onSessionEvents: (sessionId, events) => received.push(...events.flatMap(event => 'requestId' in event ? [{ sessionId, event: event as SessionEvent }] : [])),
        requestToolPermission: async () => permissionAnswers.shift() ?? 'deny',
        requestAgentPermission: async () => ({ cancelled: true }),
        getDiagnostics: async () => [{ path: `${fixture.workspace}/notes.txt`, line: 1, column: 1, severity: 'error', message: 'spelling' }],
        readOpenDocument: async path => path.endsWith('open.txt') ? 'unsaved editor text' : undefined,
        writeDocument: async (path, content, options) => {
            writes.push({ path, created: options.created });
            writeFileSync(path, content);
        },
        onChatNotice: (_chatId, message) => notices.push(message)
    };
    const writes: Array<{ path: string; created: boolean }> = [];
    const notices: string[] = [];
    const input = (text: string): ChatInput => ({ text, attachments: [] });
    let home: string;
    let storage: ChatStorage;
    const open = async () => (await service.openSession(storage)).chatId;
    const connection = useChatService(configurations, client, 'qodeassist-home-');
    let service: QodeAssistChatServiceImpl;

    beforeEach(() => {
        received.length = 0;
        writes.length = 0;
        notices.length = 0;
        ({ service, home } = connection);
        storage = { location: 'user' };
    });

    async function finished(count = 1): Promise<SessionEvent> {
        for (;;) {
            const terminal = received.filter(({ event }) => ['Finished', 'Failed', 'Cancelled'].includes(event.type))[count - 1];
            if (terminal) {
                return terminal.event;
            }
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }

    it('answers with the chat roster\'s first agent and tags events with the session id', async () => {
        const sessionId = await open();
        await service.send(sessionId, input('hi'), {});
        assert.equal((await finished()).type, 'Finished');
        assert.ok(received.every(entry => entry.sessionId === sessionId));
        assert.deepEqual(received[0].event, { type: 'RequestStarted', requestId: received[0].event.requestId, agent: 'fake-openai', model: 'fake-model' });
        // The provider's nine deltas arrive within the coalescing interval, joined into fewer messages.
        const deltas = received.flatMap(({ event }) => event.type === 'TextDelta' ? [event.text] : []);
        assert.equal(deltas.join(''), 'Hello! How can I help you today?');
        assert.ok(deltas.length >= 1 && deltas.length < 9, `${deltas.length} deltas`);
        assert.equal(server.requests[0].path, '/v1/chat/completions');
    });

    it('uses the agent the user chose instead of the roster', async () => {
        const sessionId = await open();
        await service.send(sessionId, input('hi'), { agent: 'fake-claude' });
        assert.equal((await finished()).type, 'Finished');
        assert.equal(server.requests[0].protocol, 'anthropic-messages');
    });

    it('resolves the key on the backend and never puts it in an event', async () => {
        server.enqueue({ kind: 'status', status: 401, body: `{"error":{"message":"Incorrect API key provided: ${FAKE_KEYS.FAKE_OPENAI_API_KEY}"}}` });
        const sessionId = await open();
        await service.send(sessionId, input('hi'), {});
        const terminal = await finished();
        assert.ok(terminal.type === 'Failed' && terminal.error.message.endsWith('The key of provider "fake-openai-provider" is read from the environment variable FAKE_OPENAI_API_KEY.'));
        assert.equal(server.requests[0].headers.authorization, `Bearer ${FAKE_KEYS.FAKE_OPENAI_API_KEY}`);
        assert.ok(!JSON.stringify(received).includes(FAKE_KEYS.FAKE_OPENAI_API_KEY));
    });

    it('reports an unknown chosen agent as a Config failure without sending', async () => {
        const sessionId = await open();
        await service.send(sessionId, input('hi'), { agent: 'nobody' });
        const terminal = await finished();
        assert.ok(terminal.type === 'Failed' && terminal.error.category === 'Config' && /no agent named "nobody"/.test(terminal.error.message));
        assert.equal(server.requests.length, 0);
    });

    it('gives a tools agent the workspace tools and asks the frontend before writing', async () => {
        fixture.write(`${fixture.workspace}/notes.txt`, 'draft');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'w1', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'w2', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'final', new_text: 'shipped' } }]) },
            { kind: 'replay', recording: openAITextRecording('Done.') }
        );
        permissionAnswers.push('allow-once', 'deny');
        const sessionId = await open();
        await service.send(sessionId, input('finalize the notes'), { workspacePath: fixture.workspace });
        assert.equal((await finished()).type, 'Finished');
        assert.equal(readFileSync(`${fixture.workspace}/notes.txt`, 'utf8'), 'final', 'the first edit was allowed, the second denied');
        const results = received.filter(({ event }) => event.type === 'ToolResult').map(({ event }) => event.type === 'ToolResult' && event.isError);
        assert.deepEqual(results, [false, true]);
        assert.ok(JSON.parse(server.requests[0].body).tools.length >= 7);
    });

    it('honours the tool settings: disabled tools, build command, diagnostics from the frontend, skills', async () => {
        fixture.write(`${fixture.workspace}/.qodeassist/skills/tone/SKILL.md`, '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'd1', name: 'get_diagnostics', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('One spelling error.') }
        );
        const sessionId = await open();
        await service.send(sessionId, input('/tone check the notes'), {
            workspacePath: fixture.workspace,
            tools: {
                disabled: ['execute_terminal_command'], allowedCommands: [], commandTimeoutSeconds: 30, commandOutputLimit: 10_000,
                buildCommand: 'make all', allowOutsideWorkspace: false, useGitignore: true
            }
        });
        assert.equal((await finished()).type, 'Finished');
        const first = JSON.parse(server.requests[0].body);
        const names = first.tools.map((tool: { function: { name: string } }) => tool.function.name);
        assert.ok(names.includes('build_project') && names.includes('get_diagnostics') && names.includes('load_skill'));
        assert.ok(!names.includes('execute_terminal_command'));
        assert.match(first.messages[0].content, /- tone: Write kindly/, 'the skills catalog is a system layer');
        assert.deepEqual(first.messages.at(-1).content.map((part: { text: string }) => part.text), ['<skill name="tone">\nBe kind.\n</skill>', 'check the notes']);
        const second = JSON.parse(server.requests[1].body).messages;
        assert.equal(second.filter((message: { role: string }) => message.role === 'tool').at(-1).content, 'notes.txt:1:1: error: spelling');
        // The continuation was assembled again: the working set follows the problems it just read.
        assert.match(second.at(-1).content.map((part: { text: string }) => part.text).join(''), /<working_set>\nGoal: check the notes[\s\S]*Next to repair: notes.txt:1:1: error: spelling/);
    });

    it('honours the skill settings: turned off, no catalog, no load_skill and "/tone" is plain text; an extra folder adds its skills', async () => {
        fixture.write(`${fixture.workspace}/.qodeassist/skills/tone/SKILL.md`, '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        const extra = join(fixture.workspace, '..', 'team-skills');
        fixture.write(join(extra, 'review', 'SKILL.md'), '---\nname: review\ndescription: Review like the team\n---\nBe thorough.\n');
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Plain.') });
        const sessionId = await open();
        await service.send(sessionId, input('/tone check the notes'), { workspacePath: fixture.workspace, skills: { enabled: false, folders: [] } });
        assert.equal((await finished()).type, 'Finished');
        const body = JSON.parse(server.requests[0].body);
        assert.ok(!(body.tools ?? []).some((tool: { function: { name: string } }) => tool.function.name === 'load_skill'));
        assert.doesNotMatch(JSON.stringify(body.messages), /Write kindly/);
        assert.deepEqual(body.messages.at(-1).content.map((part: { text: string }) => part.text), ['/tone check the notes']);
        assert.deepEqual(await service.listSkills(fixture.workspace, { enabled: false, folders: [] }), []);
        const listed = (await service.listSkills(fixture.workspace, { enabled: true, folders: [extra] })).map(skill => skill.name);
        assert.ok(listed.includes('tone') && listed.includes('review'), listed.join(', '));
    });

    it('lets read_file see an open editor\'s unsaved text through the frontend', async () => {
        fixture.write(`${fixture.workspace}/open.txt`, 'saved text');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'o1', name: 'read_file', arguments: { path: 'open.txt' } }]) },
            { kind: 'replay', recording: openAITextRecording('Read it.') }
        );
        const sessionId = await open();
        await service.send(sessionId, input('read open.txt'), { workspacePath: fixture.workspace });
        assert.equal((await finished()).type, 'Finished');
        const tool = JSON.parse(server.requests[1].body).messages.filter((message: { role: string }) => message.role === 'tool').at(-1);
        assert.match(tool.content, /^unsaved editor text\n\[this is the editor's text, with changes not yet saved\]$/);
    });

    async function saved(chatId: string, where = join(home, '.qodeassist', 'chats')): Promise<StoredChat> {
        const file = join(where, `${chatId}.json`);
        for (let i = 0; i < 200 && !existsSync(file); i++) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        await service.closeSession(chatId).catch(() => undefined);
        return JSON.parse(readFileSync(file, 'utf8'));
    }

    it('saves a chat after every answer and reopens it with its history in a new connection', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('First answer.') });
        const chatId = await open();
        await service.send(chatId, input('remember 42'), {});
        assert.equal((await finished()).type, 'Finished');
        const stored = await saved(chatId);
        assert.equal(stored.version, 1);
        assert.equal(stored.title, 'remember 42');
        assert.deepEqual(stored.history.map(m => [m.role, m.blocks]), [['user', [{ type: 'text', text: 'remember 42' }]], ['assistant', [{ type: 'text', text: 'First answer.' }]]]);
        assert.ok(stored.history[1].usage, 'usage is saved with the answer');

        const next = connection.connect(client);
        const listed = await next.listChats(storage);
        assert.deepEqual(listed.chats.map(c => [c.id, c.title, c.messages]), [[chatId, 'remember 42', 2]]);
        const reopened = await next.openSession(storage, chatId);
        assert.equal(reopened.chat?.history.length, 2);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('It was 42.') });
        await next.send(chatId, input('what was it?'), {});
        assert.equal((await finished(2)).type, 'Finished');
        const sent = JSON.parse(server.requests[1].body).messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join('\n');
        assert.match(sent, /remember 42[\s\S]*First answer\.[\s\S]*what was it\?/, 'the restored history seeds the new session');
        await next.saved();
        assert.match(await next.exportChat(storage, chatId), /^# remember 42\n[\s\S]*## You\n\nwhat was it\?\n\n## QodeAssist\n\nIt was 42\.\n$/);
        await next.renameChat(storage, chatId, 'The answer');
        await assert.rejects(next.deleteChat(storage, chatId), /This chat is open in a window; close its view before deleting it/);
        await next.closeSession(chatId);
        assert.equal((await next.listChats(storage)).chats[0].title, 'The answer');
        await next.deleteChat(storage, chatId);
        assert.deepEqual((await next.listChats(storage)).chats, []);
        next.dispose();
    });

    it('renames an open chat while it answers; the save after the answer keeps the new title', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Answer.') });
        const chatId = await open();
        await service.send(chatId, input('original title'), {});
        await service.renameChat(storage, chatId, '  Renamed ');
        await assert.rejects(service.renameChat(storage, chatId, ' '), /A chat title cannot be empty/);
        assert.equal((await finished()).type, 'Finished');
        await service.saved();
        assert.equal((await saved(chatId)).title, 'Renamed');
    });

    it('keeps workspace chats in the workspace\'s .qodeassist/chats', async () => {
        storage = { location: 'workspace', workspacePath: fixture.workspace };
        const chatId = await open();
        await service.send(chatId, input('in the workspace'), {});
        await finished();
        assert.equal((await saved(chatId, join(fixture.workspace, '.qodeassist', 'chats'))).title, 'in the workspace');
        rmSync(join(fixture.workspace, '.qodeassist', 'chats'), { recursive: true, force: true });
    });

    it('writes edits through the frontend, records them with their diff, and saves undo state', async () => {
        fixture.write(`${fixture.workspace}/edit-me.txt`, 'alpha\n');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: { path: 'edit-me.txt', old_text: 'alpha', new_text: 'beta' } }]) },
            { kind: 'replay', recording: openAITextRecording('Edited.') }
        );
        permissionAnswers.push('allow-once');
        const chatId = await open();
        await service.send(chatId, input('edit it'), { workspacePath: fixture.workspace });
        assert.equal((await finished()).type, 'Finished');
        assert.deepEqual(writes, [{ path: join(fixture.workspace, 'edit-me.txt'), created: false }]);
        assert.equal(readFileSync(join(fixture.workspace, 'edit-me.txt'), 'utf8'), 'beta\n');
        const result = received.find(({ event }) => event.type === 'ToolResult')?.event;
        assert.ok(result?.type === 'ToolResult' && result.fileEdit);
        assert.equal(result.fileEdit.path, 'edit-me.txt');
        assert.match(result.fileEdit.diff, /-alpha\n\+beta/);
        await service.setEditState(chatId, 'e1', 'undone');
        const stored = await saved(chatId);
        assert.equal(stored.edits.e1.state, 'undone');
        assert.equal(stored.edits.e1.diff, result.fileEdit.diff);
    });

    it('names the protected place an Undo or Apply would write, links followed, and nothing for an ordinary file', async () => {
        fixture.write(`${fixture.workspace}/.vscode/settings.json`, '{}\n');
        fixture.write(`${fixture.workspace}/plain.txt`, 'plain\n');
        symlinkSync('.vscode', join(fixture.workspace, 'harmless'));
        assert.equal(await service.protectedLocation(fixture.workspace, join(fixture.workspace, 'harmless', 'settings.json')), '.vscode/settings.json');
        assert.equal(await service.protectedLocation(fixture.workspace, join(fixture.workspace, '.qodeassist', 'agents', 'x.toml')), '.qodeassist/agents/x.toml');
        assert.equal(await service.protectedLocation(fixture.workspace, join(fixture.workspace, 'plain.txt')), undefined);
    });

    it('keys each edit apart when the provider reuses a tool call id in the next request', async () => {
        fixture.write(`${fixture.workspace}/twice.txt`, 'one\n');
        const edit = (from: string, to: string) => openAIToolCallsRecording([{ id: 'call_0', name: 'edit_file', arguments: { path: 'twice.txt', old_text: from, new_text: to } }]);
        server.enqueue(
            { kind: 'replay', recording: edit('one', 'two') }, { kind: 'replay', recording: openAITextRecording('First.') },
            { kind: 'replay', recording: edit('two', 'three') }, { kind: 'replay', recording: openAITextRecording('Second.') }
        );
        permissionAnswers.push('allow-chat');
        const chatId = await open();
        await service.send(chatId, input('first'), { workspacePath: fixture.workspace });
        await finished(1);
        await service.send(chatId, input('second'), { workspacePath: fixture.workspace });
        assert.equal((await finished(2)).type, 'Finished');
        const ids = received.flatMap(({ event }) => event.type === 'ToolResult' ? [(event as ChatSessionEvent).editId] : []);
        assert.deepEqual(ids, ['call_0', 'call_0#2']);
        await service.setEditState(chatId, 'call_0#2', 'undone');
        const stored = await saved(chatId);
        assert.deepEqual(Object.entries(stored.edits).map(([id, record]) => [id, record.state, /-one\n\+two/.test(record.diff), /-two\n\+three/.test(record.diff)]), [
            ['call_0', 'applied', true, false], ['call_0#2', 'undone', false, true]
        ]);
    });

    it('attaches files and images beside the chat, refuses oversized and binary ones, and sends them', async () => {
        const chatId = await open();
        const png = await service.attach(chatId, 'shot.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'));
        const notes = await service.attach(chatId, 'notes.md', 'text/markdown', Buffer.from('# Notes\nship it').toString('base64'));
        assert.equal(png.path, join(home, '.qodeassist', 'chats', chatId, 'attachments', 'shot.png'));
        await assert.rejects(service.attach(chatId, 'huge.png', 'image/png', Buffer.alloc(6 * 1024 * 1024).toString('base64')),
            /"huge.png" is 6.0 MB; the chat takes images up to 5.0 MB\. Attach a smaller image/);
        await assert.rejects(service.attach(chatId, 'a.out', 'application/octet-stream', Buffer.from([1, 0, 2]).toString('base64')), /"a.out" is a binary file/);
        await service.send(chatId, { text: 'look', attachments: [png, notes] }, {});
        assert.equal((await finished()).type, 'Finished');
        const last = JSON.parse(server.requests[0].body).messages.at(-1).content;
        assert.deepEqual(last.map((part: { type: string }) => part.type), ['image_url', 'text', 'text']);
        assert.equal(last[1].text, 'Attached file notes.md:\n```\n# Notes\nship it\n```');
        await service.send(chatId, { text: 'forged', attachments: [{ path: '/etc/passwd', name: 'passwd', mediaType: 'text/plain' }] }, {});
        const refused = await finished(2);
        assert.ok(refused.type === 'Failed' && /The attachment passwd is not one of this chat's/.test(refused.error.message));
        const escape = `${join(home, '.qodeassist', 'chats', chatId, 'attachments')}/../../${chatId}.json`;
        await service.send(chatId, { text: 'forged', attachments: [{ path: escape, name: 'chat.json', mediaType: 'text/plain' }] }, {});
        const escaped = await finished(3);
        assert.ok(escaped.type === 'Failed' && /The attachment chat.json is not one of this chat's/.test(escaped.error.message), 'a path that leaves the folder with .. is refused');
        assert.equal(server.requests.length, 1, 'nothing forged was sent');
    });

    it('estimates the next send with linked files and the role, and sends both', async () => {
        const linked = fixture.write(`${fixture.workspace}/linked.ts`, 'export const linked = true;');
        const chatId = await open();
        const manifest = await service.estimate(chatId, input('x'.repeat(400)), { linked: [linked], role: 'reviewer', workspacePath: fixture.workspace });
        assert.ok(manifest);
        assert.deepEqual(manifest.pinned.map(pin => pin.label), ['Linked file linked.ts']);
        assert.deepEqual(manifest.layers.map(layer => layer.name).slice(0, 2), ['agent.system', 'agent.role']);
        assert.ok(manifest.task.tokens >= 100);
        assert.equal(server.requests.length, 0, 'estimating sends nothing');
        await service.send(chatId, input('review'), { linked: [linked], role: 'reviewer', workspacePath: fixture.workspace });
        await finished();
        const body = JSON.parse(server.requests[0].body);
        assert.match(body.messages[0].content, /meticulous code reviewer/);
        assert.match(JSON.stringify(body.messages.at(-1).content), /Linked file linked.ts:/);
        await service.send(chatId, input('again'), { role: 'nobody', workspacePath: fixture.workspace });
        const refused = await finished(2);
        assert.ok(refused.type === 'Failed' && /There is no role "nobody"/.test(refused.error.message));
    });

    it('summarizes into a new linked chat through the compression roster, keeping the original', async () => {
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-openai"]\n[compression]\nagents = ["fake-openai"]\n');
        suite.configuration.reload();
        try {
            server.enqueue({ kind: 'replay', recording: openAITextRecording('Deadline noted.') }, { kind: 'replay', recording: openAITextRecording('The deadline is Friday.') });
            const chatId = await open();
            await service.send(chatId, input('the deadline is Friday'), {});
            await finished();
            const summary = await service.summarize(chatId, {});
            assert.notEqual(summary.chatId, chatId);
            assert.equal(summary.chat?.compressedFrom, chatId);
            assert.match(summary.chat?.history[0].blocks[0].type === 'text' ? summary.chat.history[0].blocks[0].text : '', /Summary of the conversation so far:\n\nThe deadline is Friday\./);
            const { chats } = await service.listChats(storage);
            assert.deepEqual(chats.map(c => c.compressedFrom).sort(), [chatId, undefined].sort());
            assert.match(JSON.stringify(JSON.parse(server.requests[1].body).messages.at(-1).content), /User: the deadline is Friday/);
        } finally {
            writeFakeAgents(fixture, server.url, 'fake-openai');
            suite.configuration.reload();
        }
    });

    it('lists the chat roster\'s agents, then those marked for chat; roles, skills, and files for @-mentions with ignore rules', async () => {
        const own = async () => (await service.listAgents(fixture.workspace)).filter(agent => agent.kind !== 'acp');
        const before = await service.listAgents(fixture.workspace);
        assert.deepEqual(before.filter(agent => agent.kind !== 'acp').map(agent => [agent.name, agent.inRoster]), [['fake-openai', true]], 'only the chat roster: no completion, refactor or compression agent');
        // Then the external agents of the bundled catalogue, none installed here: each says how to install it.
        const external = before.filter(agent => agent.kind === 'acp');
        assert.ok(external.some(agent => agent.name === 'acp:claude-code'));
        assert.ok(external.every(agent => agent.unavailable), JSON.stringify(external));
        assert.deepEqual(before.slice(0, 1).map(agent => agent.kind), [undefined], 'QodeAssist\'s own agents come first');
        const marked = fixture.project_('agents/fake-marked.toml', 'schema_version = 1\nname = "fake-marked"\nextends = "fake-claude"\npipelines = ["chat"]\n');
        suite.configuration.reload();
        try {
            const agents = await own();
            assert.deepEqual(agents.map(agent => [agent.name, agent.inRoster]), [['fake-openai', true], ['fake-marked', false]]);
        } finally {
            rmSync(marked);
            suite.configuration.reload();
        }
        assert.ok((await service.listRoles(fixture.workspace)).some(role => role.id === 'reviewer' && role.name === 'Reviewer'));
        fixture.write(`${fixture.workspace}/.qodeassist/skills/tone/SKILL.md`, '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        assert.deepEqual((await service.listSkills(fixture.workspace)).find(skill => skill.name === 'tone'), { name: 'tone', description: 'Write kindly' });
        fixture.write(`${fixture.workspace}/src/widget.ts`, '');
        fixture.write(`${fixture.workspace}/secret/widget-keys.ts`, '');
        fixture.write(`${fixture.workspace}/.qodeassistignore`, 'secret/\n');
        assert.deepEqual(await service.findFiles(fixture.workspace, 'widget', { useGitignore: true }), ['src/widget.ts']);
    });

    it('an open chat\'s next send follows the configuration: an edited agent file, then a key stored since, reach the provider without a new chat', async () => {
        const agentFile = join(fixture.roots.project!, 'agents', 'fake-openai.toml');
        const original = readFileSync(agentFile, 'utf8');
        const keyFile = join(home, 'secrets.json');
        const writable = new RecordingWritableSecretsStore(new FileSecretsStore(keyFile));
        const live = new QodeAssistChatServiceImpl(new QodeAssistRuntime({
            secrets: new ChainedSecretsStore([writable, new EnvironmentSecretsStore(FAKE_KEYS)]), onSecretsChange: listener => writable.onDidChange(() => listener()), userHome: home
        }), configurations, home);
        live.setClient(client);
        try {
            const chatId = (await live.openSession(storage)).chatId;
            server.enqueue({ kind: 'replay', recording: openAITextRecording('One.') });
            await live.send(chatId, input('first'), { workspacePath: fixture.workspace });
            assert.equal((await finished()).type, 'Finished');
            assert.equal(JSON.parse(server.requests[0].body).model, 'fake-model');
            assert.equal(server.requests[0].headers.authorization, `Bearer ${FAKE_KEYS.FAKE_OPENAI_API_KEY}`);

            writeFileSync(agentFile, original.replace('model = "fake-model"', 'model = "edited-model"'));
            suite.configuration.reload();
            server.enqueue({ kind: 'replay', recording: openAITextRecording('Two.') });
            await live.send(chatId, input('second'), { workspacePath: fixture.workspace });
            assert.equal((await finished(2)).type, 'Finished');
            const second = JSON.parse(server.requests[1].body);
            assert.equal(second.model, 'edited-model', 'the edited model answers the open chat');
            assert.deepEqual(second.messages.filter((m: { role: string }) => m.role !== 'system').map((m: { content: unknown }) => JSON.stringify(m.content)).length, 3, 'the conversation moved along');

            await writable.set('fake_openai', 'sk-stored-later-0123456789');
            server.enqueue({ kind: 'replay', recording: openAITextRecording('Three.') });
            await live.send(chatId, input('third'), { workspacePath: fixture.workspace });
            assert.equal((await finished(3)).type, 'Finished');
            assert.equal(server.requests[2].headers.authorization, 'Bearer sk-stored-later-0123456789', 'the key stored since is the one sent');
        } finally {
            await live.saved();
            live.dispose();
            writeFileSync(agentFile, original);
            suite.configuration.reload();
        }
    });

    it('tells the model where it works: the environment block names the workspace, the OS and the file in focus', async () => {
        const chatId = await open();
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Noted.') });
        await service.send(chatId, input('where am I?'), { workspacePath: fixture.workspace, file: 'src/main.ts' });
        assert.equal((await finished()).type, 'Finished');
        const messages: Array<{ role: string; content: unknown }> = JSON.parse(server.requests[0].body).messages;
        const system = JSON.stringify(messages.find(m => m.role === 'system')?.content);
        assert.match(system, new RegExp(`Workspace: ${basename(fixture.workspace)}`));
        assert.match(system, /OS: /);
        assert.match(JSON.stringify(messages.at(-1)?.content), /Active file: src\/main\.ts \(typescript\)/, 'the file in focus goes with the turn');
    });

    it('refuses a send to an unknown session with a message saying what to do', async () => {
        await assert.rejects(service.send('nope', input('hi'), {}), /The chat nope is not open in this IDE backend .*open it again from the chat history/);
    });

    it('cancels every request when the connection closes', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        const sessionId = await open();
        await service.send(sessionId, input('long'), {});
        while (!received.some(({ event }) => event.type === 'TextDelta')) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        service.dispose();
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });

    it('two connections on one chat (one backend): both windows get each other\'s message and answer, in order, and the file keeps both', async () => {
        const owners = new ChatOwners();
        const windows = [0, 1].map(() => {
            const got: ChatEvent[] = [];
            const window = connection.connect({ ...client, onSessionEvents: (_chatId, events) => got.push(...events) }, owners);
            return { window, got };
        });
        const [a, b] = windows;
        try {
            server.enqueue({ kind: 'replay', recording: openAITextRecording('Answer A.') }, { kind: 'replay', recording: openAITextRecording('Answer B.') });
            const { chatId } = await a.window.openSession(storage);
            await a.window.send(chatId, { ...input('message A'), turnId: 'a' }, {});
            const opened = await b.window.openSession(storage, chatId);
            assert.equal(opened.chatId, chatId);
            const ends = (got: ChatEvent[]) => got.filter(event => event.type === 'Finished').length;
            while (ends(a.got) < 1) {
                await new Promise(resolve => setTimeout(resolve, 5));
            }
            await b.window.send(chatId, { ...input('message B'), turnId: 'b' }, {});
            while (ends(a.got) < 2 || ends(b.got) < 1) {
                await new Promise(resolve => setTimeout(resolve, 5));
            }
            const told = (got: ChatEvent[]) => got.flatMap(event => event.type === 'UserMessage' ? [`${event.turnId}:${JSON.stringify(event.message.blocks)}`] : []);
            assert.deepEqual(told(a.got), ['a:[{"type":"text","text":"message A"}]', 'b:[{"type":"text","text":"message B"}]'], 'A saw B\'s message live');
            assert.ok(a.got.some(event => event.type === 'TextDelta' && event.text.includes('Answer B.')), 'and B\'s answer');
            await owners.saved();
            const stored = await saved(chatId);
            assert.deepEqual(stored.history.map(message => message.blocks.map(block => block.type === 'text' ? block.text : block.type).join('')), ['message A', 'Answer A.', 'message B', 'Answer B.']);
        } finally {
            for (const { window } of windows) {
                window.dispose();
            }
        }
    });
});
