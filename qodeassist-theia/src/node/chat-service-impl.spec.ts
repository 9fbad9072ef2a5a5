import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ConfigurationService, EnvironmentSecretsStore } from '@qodeassist/core';
import { ConfigFixture, FAKE_KEYS, FakeProviderServer, openAITextRecording, openAIToolCallsRecording, writeFakeAgents } from '@qodeassist/test';
import { readFileSync } from 'node:fs';
import { QodeAssistChatClient, SessionEvent } from '../common/chat-protocol';
import { QodeAssistChatServiceImpl } from './chat-service-impl';

describe('QodeAssistChatServiceImpl', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const received: Array<{ sessionId: string; event: SessionEvent }> = [];
    const permissionAnswers: Array<'allow-once' | 'allow-chat' | 'deny'> = [];
    const client: QodeAssistChatClient = {
        onSessionEvents: (sessionId, events) => received.push(...events.map(event => ({ sessionId, event }))),
        requestToolPermission: async () => permissionAnswers.shift() ?? 'deny',
        getDiagnostics: async () => [{ path: `${fixture.workspace}/notes.txt`, line: 1, column: 1, severity: 'error', message: 'spelling' }],
        readOpenDocument: async path => path.endsWith('open.txt') ? 'unsaved editor text' : undefined
    };
    let configuration: ConfigurationService;
    let service: QodeAssistChatServiceImpl;

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        configuration = new ConfigurationService(fixture.roots);
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        received.length = 0;
        service = new QodeAssistChatServiceImpl(new EnvironmentSecretsStore(FAKE_KEYS), { forWorkspace: () => configuration });
        service.setClient(client);
    });

    async function finished(): Promise<SessionEvent> {
        for (;;) {
            const terminal = received.find(({ event }) => ['Finished', 'Failed', 'Cancelled'].includes(event.type));
            if (terminal) {
                return terminal.event;
            }
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }

    it('answers with the chat roster\'s first agent and tags events with the session id', async () => {
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', {});
        assert.equal((await finished()).type, 'Finished');
        assert.ok(received.every(entry => entry.sessionId === sessionId));
        assert.deepEqual(received[0].event, { type: 'RequestStarted', requestId: received[0].event.requestId, agent: 'fake-openai', model: 'fake-model' });
        assert.equal(received.filter(({ event }) => event.type === 'TextDelta').length, 9);
        assert.equal(server.requests[0].path, '/v1/chat/completions');
    });

    it('uses the agent the user chose instead of the roster', async () => {
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', { agent: 'fake-claude' });
        assert.equal((await finished()).type, 'Finished');
        assert.equal(server.requests[0].protocol, 'anthropic-messages');
    });

    it('resolves the key on the backend and never puts it in an event', async () => {
        server.enqueue({ kind: 'status', status: 401, body: `{"error":{"message":"Incorrect API key provided: ${FAKE_KEYS.FAKE_OPENAI_API_KEY}"}}` });
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', {});
        const terminal = await finished();
        assert.ok(terminal.type === 'Failed' && terminal.error.message.endsWith('The key of provider "fake-openai-provider" is read from the environment variable FAKE_OPENAI_API_KEY.'));
        assert.equal(server.requests[0].headers.authorization, `Bearer ${FAKE_KEYS.FAKE_OPENAI_API_KEY}`);
        assert.ok(!JSON.stringify(received).includes(FAKE_KEYS.FAKE_OPENAI_API_KEY));
    });

    it('reports an unknown chosen agent as a Config failure without sending', async () => {
        const sessionId = await service.openSession();
        await service.send(sessionId, 'hi', { agent: 'nobody' });
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
        const sessionId = await service.openSession();
        await service.send(sessionId, 'finalize the notes', { workspacePath: fixture.workspace });
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
        const sessionId = await service.openSession();
        await service.send(sessionId, '/tone check the notes', {
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
        assert.equal(JSON.parse(server.requests[1].body).messages.at(-1).content, 'notes.txt:1:1: error: spelling');
    });

    it('lets read_file see an open editor\'s unsaved text through the frontend', async () => {
        fixture.write(`${fixture.workspace}/open.txt`, 'saved text');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'o1', name: 'read_file', arguments: { path: 'open.txt' } }]) },
            { kind: 'replay', recording: openAITextRecording('Read it.') }
        );
        const sessionId = await service.openSession();
        await service.send(sessionId, 'read open.txt', { workspacePath: fixture.workspace });
        assert.equal((await finished()).type, 'Finished');
        assert.match(JSON.parse(server.requests[1].body).messages.at(-1).content, /^unsaved editor text\n\[this is the editor's text, with changes not yet saved\]$/);
    });

    it('refuses a send to an unknown session with a message saying what to do', async () => {
        await assert.rejects(service.send('nope', 'hi', {}), /Start a new chat/);
    });

    it('cancels every request when the connection closes', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        const sessionId = await service.openSession();
        await service.send(sessionId, 'long', {});
        while (!received.some(({ event }) => event.type === 'TextDelta')) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        service.dispose();
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });
});
