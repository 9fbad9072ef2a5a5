import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ChatEvent, ChatSessionEvent, ChatFeature, ChatInput, StoredChat } from '@qodeassist/core';
import { FAKE_KEYS } from '../config/fake-agents';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatWindow, isTerminal, until, useChatHarness } from './chat-harness';

const input = (text: string): ChatInput => ({ text, attachments: [] });
/** The chat's key store has every fake key but Claude's. */
const KEYS_WITHOUT_CLAUDE = Object.fromEntries(Object.entries(FAKE_KEYS).filter(([name]) => name !== 'FAKE_CLAUDE_API_KEY'));

function isSessionEvent(event: ChatEvent): event is ChatSessionEvent {
    return 'requestId' in event;
}

describe('ChatFeature over the fake provider', () => {
    const chat = useChatHarness({
        homePrefix: 'qodeassist-chat-feature-', server: { hangMs: 15_000 },
        prepare: fixture => {
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-openai"]\n[compression]\nagents = ["fake-openai"]\n');
            fixture.write(join(fixture.workspace, '.qodeassist', 'skills', 'tone', 'SKILL.md'), '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        }
    });
    const { server, fixture, storage } = chat;
    let window: ChatWindow;
    let feature: ChatFeature;

    beforeEach(() => {
        window = chat.openWindow({ keys: KEYS_WITHOUT_CLAUDE });
        feature = window.feature;
    });

    // The session's events; the chat's own (UserMessage, History) are the two-window spec's.
    const eventsOf = (chatId: string) => window.eventsOf(chatId).filter(isSessionEvent);
    /** The chat's `count`-th terminal event, once it arrived. */
    const terminal = (chatId: string, count = 1): Promise<ChatEvent> => window.ended(count, chatId);
    const requestsReceived = (count: number) => until(() => server.requests.length >= count, `${count} requests at the provider`);
    const body = (index: number) => JSON.parse(server.requests[index].body);
    const systemText = (index: number): string => JSON.stringify(body(index).messages.filter((message: { role: string }) => message.role === 'system'));

    it('reports a send whose agent has no key as RequestStarted then Failed (Auth) on the host, sending nothing and keeping the history', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Noted.') });
        await feature.send(chatId, input('remember 42'), {});
        assert.equal((await terminal(chatId)).type, 'Finished');
        const before = structuredClone(feature.history(chatId));
        window.clear();

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
        const stored: StoredChat = JSON.parse(readFileSync(join(chat.chatsFolder(), `${summary.chatId}.json`), 'utf8'));
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

        // Another feature of the same connection (its runtime), closed with the test's windows.
        const reopened = chat.openWindow({ runtime: window.runtime });
        await reopened.feature.open(storage, summary.chatId);
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'h1', name: 'read_original_history', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('Friday.') }
        );
        await reopened.feature.send(summary.chatId, input('what exactly did I say?'), { workspacePath: fixture.workspace });
        assert.equal((await reopened.ended(1, summary.chatId)).type, 'Finished');
        const result = body(3).messages.filter((message: { role: string }) => message.role === 'tool').at(-1);
        assert.equal(result.content, '#1 user: the deadline is Friday\n\n#2 assistant: Deadline noted.');
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
        const file = join(chat.chatsFolder(), `${chatId}.json`);
        assert.ok(existsSync(file), 'the last save completed');
        const saved = (JSON.parse(readFileSync(file, 'utf8')) as StoredChat).history;
        assert.deepEqual(saved.map(message => message.blocks), [[{ type: 'text', text: 'long question' }], []]);
        assert.deepEqual(saved[1].ended, { reason: 'cancelled' }, 'the stopped answer is kept as stopped');
    });

    it('offers no tools with offerTools false, even to an agent that enables them (nor the skills catalog load_skill serves)', async () => {
        assert.equal(chat.configuration.current.agents.get('fake-openai')?.enableTools, true);
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
        chat.configuration.reload();
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Third.') });
        const [, third] = await Promise.all([feature.estimate(chatId, input('three'), {}), feature.send(chatId, input('three'), {})]);
        await requestsReceived(3);
        const said = JSON.stringify(body(2).messages);
        assert.ok(said.includes('one') && said.includes('First.') && said.includes('two') && said.includes('three'), said);
        const roles = body(2).messages.filter((message: { role: string }) => message.role !== 'system').map((message: { role: string }) => message.role);
        assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant', 'user'], 'the second answer ended and went along: the send waited instead of cancelling it');
        await until(() => eventsOf(chatId).some(event => event.requestId === third && isTerminal(event)), 'the third answer to end');
        assert.equal(eventsOf(chatId).find(event => event.requestId === third && isTerminal(event))?.type, 'Finished', 'the third answer reached the chat');
    });
});
