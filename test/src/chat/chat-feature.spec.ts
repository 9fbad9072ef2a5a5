import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
    ChatEvent, ChatSessionEvent, ChatFeature, ChatHost, ChatInput, ChatStorage, ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime, StoredChat
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';

const TERMINAL = ['Finished', 'Failed', 'Cancelled'];
const input = (text: string): ChatInput => ({ text, attachments: [] });
/** The chat's key store has every fake key but Claude's. */
const KEYS_WITHOUT_CLAUDE = Object.fromEntries(Object.entries(FAKE_KEYS).filter(([name]) => name !== 'FAKE_CLAUDE_API_KEY'));

function isSessionEvent(event: ChatEvent): event is ChatSessionEvent {
    return 'requestId' in event;
}

describe('ChatFeature over the fake provider', () => {
    const server = new FakeProviderServer({ hangMs: 15_000 });
    const fixture = new ConfigFixture();
    const received: Array<{ chatId: string; event: ChatSessionEvent }> = [];
    const host: ChatHost = {
        // The session's events; the chat's own (UserMessage, History) are the two-window spec's.
        onEvents: (chatId, events) => received.push(...events.filter(isSessionEvent).map(event => ({ chatId, event }))),
        onNotice: () => undefined,
        requestToolPermission: async () => 'deny'
    };
    const storage: ChatStorage = { location: 'user' };
    let home: string;
    let configuration: ConfigurationService;
    let runtime: QodeAssistRuntime;
    let feature: ChatFeature;

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-openai"]\n[compression]\nagents = ["fake-openai"]\n');
        fixture.write(join(fixture.workspace, '.qodeassist', 'skills', 'tone', 'SKILL.md'), '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        configuration = new ConfigurationService(fixture.roots);
    });
    after(async () => {
        configuration.dispose();
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        received.length = 0;
        home = mkdtempSync(join(tmpdir(), 'qodeassist-chat-feature-'));
        runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(KEYS_WITHOUT_CLAUDE), userHome: home });
        feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home });
        feature.setHost(host);
    });
    afterEach(async () => {
        feature.dispose();
        await feature.saved();
        runtime.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    const eventsOf = (chatId: string) => received.filter(entry => entry.chatId === chatId).map(entry => entry.event);
    /** The chat's `count`-th terminal event, once it arrived. */
    async function terminal(chatId: string, count = 1): Promise<ChatEvent> {
        for (;;) {
            const found = eventsOf(chatId).filter(event => TERMINAL.includes(event.type))[count - 1];
            if (found) {
                return found;
            }
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }
    async function requestsReceived(count: number): Promise<void> {
        while (server.requests.length < count) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }
    const body = (index: number) => JSON.parse(server.requests[index].body);
    const systemText = (index: number): string => JSON.stringify(body(index).messages.filter((message: { role: string }) => message.role === 'system'));

    it('reports a send whose agent has no key as RequestStarted then Failed (Auth) on the host, sending nothing and keeping the history', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Noted.') });
        await feature.send(chatId, input('remember 42'), {});
        assert.equal((await terminal(chatId)).type, 'Finished');
        const before = structuredClone(feature.history(chatId));
        received.length = 0;

        const requestId = await feature.send(chatId, input('now with Claude'), { agent: 'fake-claude' });

        assert.deepEqual(eventsOf(chatId), [
            { type: 'RequestStarted', requestId },
            {
                type: 'Failed', requestId, error: {
                    category: 'Auth', provider: 'fake-claude-provider',
                    message: 'Provider "fake-claude-provider" (agent "fake-claude") needs an API key. Set the environment variable FAKE_CLAUDE_API_KEY where QodeAssist runs, or store the key "fake_claude" in the configuration, then try again.'
                }
            }
        ]);
        assert.equal(server.requests.length, 1, 'nothing was sent for the failed turn');
        // The message is kept with its failure (shown with Retry, saved); the failure itself is never sent.
        assert.deepEqual(feature.history(chatId), [
            ...before,
            { role: 'user', blocks: [{ type: 'text', text: 'now with Claude' }] },
            { role: 'assistant', blocks: [], ended: { reason: 'failed', error: { category: 'Auth', message: (eventsOf(chatId)[1] as { error: { message: string } }).error.message } } }
        ]);

        server.enqueue({ kind: 'replay', recording: openAITextRecording('It was 42.') });
        await feature.send(chatId, input('what was it?'), {});
        assert.equal((await terminal(chatId, 2)).type, 'Finished');
        const sent = body(1).messages.filter((message: { role: string }) => message.role !== 'system').map((message: { content: unknown }) => JSON.stringify(message.content));
        assert.equal(sent.length, 4, sent.join('\n'));
        assert.match(sent.join('\n'), /remember 42[\s\S]*Noted\.[\s\S]*now with Claude[\s\S]*what was it\?/);
        assert.doesNotMatch(sent.join('\n'), /needs an API key/);
    });

    it('estimates nothing while the chat is answering, and the next send once it is idle', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'hang' });
        await feature.send(chatId, input('take your time'), {});
        assert.equal(await feature.estimate(chatId, input('and this?'), {}), undefined);
        await feature.cancel(chatId);
        assert.equal((await terminal(chatId)).type, 'Cancelled');
        const manifest = await feature.estimate(chatId, input('and this?'), {});
        assert.ok(manifest, 'idle again: an estimate');
        assert.ok(manifest.estimate > 0);
    });

    it('summarizes into a new chat linked to the original, whose history read_original_history reads', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Deadline noted.') }, { kind: 'replay', recording: openAITextRecording('The deadline is Friday.') });
        await feature.send(chatId, input('the deadline is Friday'), {});
        assert.equal((await terminal(chatId)).type, 'Finished');

        const summary = await feature.summarize(chatId, {});

        assert.notEqual(summary.chatId, chatId);
        assert.equal(summary.chat?.compressedFrom, chatId);
        assert.equal(summary.chat?.title, 'Summary: the deadline is Friday');
        assert.deepEqual([feature.isOpen(chatId), feature.isOpen(summary.chatId)], [false, true], 'the summary replaces the original in the view');
        const stored: StoredChat = JSON.parse(readFileSync(join(home, '.qodeassist', 'chats', `${summary.chatId}.json`), 'utf8'));
        assert.equal(stored.compressedFrom, chatId);
        assert.match(JSON.stringify(feature.history(summary.chatId)), /The deadline is Friday\./);

        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'h1', name: 'read_original_history', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('You said Friday.') }
        );
        await feature.send(summary.chatId, input('what exactly did I say?'), { workspacePath: fixture.workspace });
        assert.equal((await terminal(summary.chatId)).type, 'Finished');
        assert.ok(body(2).tools.some((tool: { function: { name: string } }) => tool.function.name === 'read_original_history'));
        const result = body(3).messages.filter((message: { role: string }) => message.role === 'tool').at(-1);
        assert.equal(result.content, '#1 user: the deadline is Friday\n\n#2 assistant: Deadline noted.');
    });

    it('a summary chat opened again from its file reads the original from the store', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Deadline noted.') }, { kind: 'replay', recording: openAITextRecording('The deadline is Friday.') });
        await feature.send(chatId, input('the deadline is Friday'), {});
        await terminal(chatId);
        await feature.saved();
        const summary = await feature.summarize(chatId, {});
        await feature.close(summary.chatId);

        const reopened = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home });
        reopened.setHost(host);
        try {
            await reopened.open(storage, summary.chatId);
            server.enqueue(
                { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'h1', name: 'read_original_history', arguments: {} }]) },
                { kind: 'replay', recording: openAITextRecording('Friday.') }
            );
            await reopened.send(summary.chatId, input('what exactly did I say?'), { workspacePath: fixture.workspace });
            assert.equal((await terminal(summary.chatId)).type, 'Finished');
            const result = body(3).messages.filter((message: { role: string }) => message.role === 'tool').at(-1);
            assert.equal(result.content, '#1 user: the deadline is Friday\n\n#2 assistant: Deadline noted.');
        } finally {
            reopened.dispose();
            await reopened.saved();
        }
    });

    it('forwards nothing of a chat closed while it answered, and still saves it', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'hang' });
        await feature.send(chatId, input('long question'), {});
        await requestsReceived(1);
        const forwarded = eventsOf(chatId).length;
        assert.equal(eventsOf(chatId)[0].type, 'RequestStarted');

        await feature.close(chatId);

        assert.equal(await server.requests[0].ended, 'aborted-by-client', 'closing cancelled the request');
        await feature.saved();
        assert.equal(eventsOf(chatId).length, forwarded, 'not even the Cancelled');
        const file = join(home, '.qodeassist', 'chats', `${chatId}.json`);
        assert.ok(existsSync(file), 'the last save completed');
        const saved = (JSON.parse(readFileSync(file, 'utf8')) as StoredChat).history;
        assert.deepEqual(saved.map(message => message.blocks), [[{ type: 'text', text: 'long question' }], []]);
        assert.deepEqual(saved[1].ended, { reason: 'cancelled' }, 'the stopped answer is kept as stopped');
    });

    it('offers no tools with offerTools false, even to an agent that enables them (nor the skills catalog load_skill serves)', async () => {
        assert.equal(configuration.current.agents.get('fake-openai')?.enableTools, true);
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('With tools.') }, { kind: 'replay', recording: openAITextRecording('Without.') });
        await feature.send(chatId, input('with tools'), { workspacePath: fixture.workspace });
        await terminal(chatId);
        await feature.send(chatId, input('without tools'), { workspacePath: fixture.workspace, offerTools: false });
        assert.equal((await terminal(chatId, 2)).type, 'Finished');

        const names = (index: number) => (body(index).tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
        assert.ok(names(0).includes('read_file') && names(0).includes('load_skill'), names(0).join(', '));
        assert.match(systemText(0), /- tone: Write kindly/);
        assert.deepEqual(names(1), []);
        assert.doesNotMatch(systemText(1), /Write kindly/);
    });

    it('puts the env.project layer in the system prompt (the workspace by name and path) and the file in focus in the turn; none without a workspace', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Here.') }, { kind: 'replay', recording: openAITextRecording('Nowhere.') });
        await feature.send(chatId, input('where am I?'), { workspacePath: fixture.workspace, file: 'src/main.ts' });
        await terminal(chatId);
        const other = (await feature.open(storage)).chatId;
        await feature.send(other, input('and here?'), {});
        assert.equal((await terminal(other)).type, 'Finished');

        const withWorkspace = systemText(0);
        assert.ok(withWorkspace.includes(JSON.stringify(`Workspace: ${basename(fixture.workspace)} (${fixture.workspace})`).slice(1, -1)), withWorkspace);
        assert.doesNotMatch(withWorkspace, /Active file/, 'the file in focus changes often: not in the cached system prefix');
        const user = JSON.stringify(body(0).messages.filter((m: { role: string }) => m.role === 'user').at(-1));
        assert.match(user, /Active file: src\/main\.ts \(typescript\)/);
        assert.doesNotMatch(systemText(1), /Workspace: /);
    });

    it('an estimate and a send in the same tick: the send goes out with the linked file, and the pooled session carries nothing of this chat', async () => {
        const linked = fixture.write(join(fixture.workspace, 'linked.txt'), 'LINKED_MARKER\n');
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Seen.') });
        const options = { workspacePath: fixture.workspace, linked: [linked] };
        const [estimate] = await Promise.all([feature.estimate(chatId, input('look'), options), feature.send(chatId, input('look'), options)]);
        assert.equal((await terminal(chatId)).type, 'Finished');
        assert.match(JSON.stringify(body(0).messages), /LINKED_MARKER/, 'the linked file reached the provider');
        assert.ok(estimate === undefined || estimate.pinned.some(pin => /linked\.txt/.test(pin.label)), 'an estimate that ran saw the link too');

        // A later send of the same chat still carries it: the link was not lost in a swap.
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Still.') });
        await feature.send(chatId, input('again'), options);
        assert.equal((await terminal(chatId, 2)).type, 'Finished');
        assert.match(JSON.stringify(body(1).messages.at(-1)), /LINKED_MARKER/);
    });

    it('a configuration change while an answer streams: the next send waits for that answer, then moves the whole conversation to the new session', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('First.') });
        await feature.send(chatId, input('one'), {});
        assert.equal((await terminal(chatId)).type, 'Finished');
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        await feature.send(chatId, input('two'), {});
        await requestsReceived(2);
        configuration.reload();
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Third.') });
        const [, third] = await Promise.all([feature.estimate(chatId, input('three'), {}), feature.send(chatId, input('three'), {})]);
        await requestsReceived(3);
        const said = JSON.stringify(body(2).messages);
        assert.ok(said.includes('one') && said.includes('First.') && said.includes('two') && said.includes('three'), said);
        const roles = body(2).messages.filter((message: { role: string }) => message.role !== 'system').map((message: { role: string }) => message.role);
        assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant', 'user'], 'the second answer ended and went along: the send waited instead of cancelling it');
        for (;;) {
            const events = eventsOf(chatId);
            if (events.some(event => event.requestId === third && TERMINAL.includes(event.type))) {
                break;
            }
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        assert.equal(eventsOf(chatId).find(event => event.requestId === third && TERMINAL.includes(event.type))?.type, 'Finished', 'the third answer reached the chat');
    });
});
