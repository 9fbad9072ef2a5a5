import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledError, ChatFeature, ChatInput, ChatTurnOptions, QodeAssistError, StoredChat } from '@qodeassist/core';
import { RecordedRequest } from '../fake-provider/fake-provider-server';
import { ollamaChatRecording, openAITextRecording } from '../fake-provider/recordings';
import { ChatWindow, useChatHarness } from './chat-harness';

const input = (text: string): ChatInput => ({ text, attachments: [] });
/** About 300 tokens of a user's request, numbered so each turn can be told apart in a request body. */
const longRequest = (turn: number) => `Request ${turn}: ${`step ${turn} of the parser work `.repeat(40).trim()}`;
/** A message's text as the OpenAI request carries it: a string, or text parts. */
const textOf = (content: unknown): string => typeof content === 'string' ? content : (content as Array<{ text?: string }>).map(part => part.text ?? '').join('');
const SUMMARY = 'The user is writing a recursive-descent parser; turns 1-2 settled the grammar.';

/**
 * Auto-compression and summaries over the fake provider: a chat whose agent has a small context
 * window is summarized through the compression roster (another agent, another protocol) before a
 * send that would fill it; Stop and failures leave the chat as it was.
 */
describe('chat compression over the fake provider', () => {
    const chat = useChatHarness({
        homePrefix: 'qodeassist-compression-', server: { hangMs: 15_000 },
        prepare: fixture => {
            // 2000 tokens of context, 500 of them for the reply: a few long requests fill it.
            fixture.project_('agents/small-chat.toml', [
                'schema_version = 1', 'name = "small-chat"', 'extends = "openai-base"', 'provider_instance = "fake-openai-provider"',
                'model = "fake-model"', 'context_window = 2000', 'enable_tools = false', 'system_prompt = "You help with code."', ''
            ].join('\n'));
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["small-chat"]\n[compression]\nagents = ["fake-ollama"]\n');
        }
    });
    const { server, storage } = chat;
    const options: ChatTurnOptions = { offerTools: false };
    let window: ChatWindow;
    let feature: ChatFeature;

    beforeEach(() => {
        // Each answer names the request it answers, and reports a realistic prompt size (the estimator calibrates on it).
        server.when({
            protocol: 'openai-chat', scenario: {
                kind: 'dynamic',
                respond: body => ({ kind: 'replay', recording: openAITextRecording(`Answer ${/Request (\d+)/.exec(body.slice(body.lastIndexOf('Request ')))?.[1] ?? '?'}.`, Math.ceil(body.length / 4)) })
            }
        });
        window = chat.openWindow();
        feature = window.feature;
    });

    const chatsDir = () => chat.chatsFolder();
    const chatFiles = () => readdirSync(chatsDir()).filter(name => name.endsWith('.json')).sort();
    const stored = (chatId: string): StoredChat => JSON.parse(readFileSync(join(chatsDir(), `${chatId}.json`), 'utf8'));
    const modelRequests = (protocol: string) => server.requests.filter(request => request.protocol === protocol);

    /** How the chat's `count`-th request ended. */
    const ended = async (chatId: string, count: number): Promise<string> => (await window.ended(count, chatId)).type;
    async function arrived(protocol: string): Promise<RecordedRequest> {
        for (;;) {
            const found = modelRequests(protocol)[0];
            if (found) {
                return found;
            }
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }
    /** A chat with `turns` finished long turns, saved. */
    async function chatWith(turns: number): Promise<string> {
        const { chatId } = await feature.open(storage);
        for (let turn = 1; turn <= turns; turn++) {
            await feature.send(chatId, input(longRequest(turn)), options);
            assert.equal(await ended(chatId, turn), 'Finished');
        }
        await feature.saved();
        return chatId;
    }

    it('summarizes a chat that would overflow through the compression roster before the send; the summary and the recent turns go next, the original file keeps every message', async () => {
        server.when({ protocol: 'ollama-chat', scenario: { kind: 'replay', recording: ollamaChatRecording([SUMMARY]) } });
        const { chatId: original } = await feature.open(storage);
        let chatId = original;
        let compressedAt: number | undefined;
        for (let turn = 1; turn <= 6 && compressedAt === undefined; turn++) {
            const opened = await feature.compressIfFull(chatId, input(longRequest(turn)), options, 70);
            if (opened) {
                compressedAt = turn;
                chatId = opened.chatId;
                assert.equal(opened.chat?.compressedFrom, original);
            }
            await feature.send(chatId, input(longRequest(turn)), options);
            assert.equal(await ended(chatId, chatId === original ? turn : 1), 'Finished');
        }
        assert.equal(compressedAt, 4, 'three long turns fit 70% of 1500 tokens; the fourth would not');

        const compression = modelRequests('ollama-chat');
        assert.equal(compression.length, 1, 'one summary, by the compression roster\'s agent');
        const prompt = JSON.parse(compression[0].body).messages.at(-1).content as string;
        assert.match(prompt, /<conversation>\nUser: Request 1: [\s\S]*Assistant: Answer 1\.[\s\S]*User: Request 2: [\s\S]*Assistant: Answer 2\.\n<\/conversation>$/);
        assert.doesNotMatch(prompt, /Request 3/, 'the recent turn is kept as it was, not summarized');

        const next = JSON.parse(modelRequests('openai-chat').at(-1)!.body).messages as Array<{ role: string; content: unknown }>;
        assert.deepEqual(next.map(message => message.role), ['system', 'user', 'assistant', 'user', 'assistant', 'user']);
        assert.deepEqual(next.slice(1).map(message => textOf(message.content)), [
            `Summary of the conversation so far:\n\n${SUMMARY}`, 'Understood; I will continue from this summary.', longRequest(3), 'Answer 3.', longRequest(4)
        ]);

        await feature.saved();
        assert.deepEqual(chatFiles(), [`${chatId}.json`, `${original}.json`].sort());
        const kept = stored(original);
        assert.equal(kept.history.length, 6, 'the original keeps its three turns');
        assert.deepEqual(kept.history.filter(message => message.role === 'user').map(message => message.blocks[0].type === 'text' && message.blocks[0].text), [1, 2, 3].map(longRequest));
        const summary = stored(chatId);
        assert.equal(summary.compressedFrom, original);
        assert.deepEqual(summary.history.map(message => message.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
        assert.deepEqual([feature.isOpen(original), feature.isOpen(chatId)], [false, true], 'the summary took the original\'s place in the window');
    });

    it('asks the compression agent nothing while the send fits', async () => {
        const chatId = await chatWith(1);
        assert.equal(await feature.compressIfFull(chatId, input('short'), options, 60), undefined);
        assert.equal(await feature.compressIfFull(chatId, input(longRequest(2)), options, 0), undefined, '0 is off');
        assert.deepEqual([modelRequests('ollama-chat').length, chatFiles()], [0, [`${chatId}.json`]]);
    });

    it('a summary stopped while its request runs cancels that request and leaves the chat as it was: no new chat, nothing written, the chat usable; a second summary works', async () => {
        const chatId = await chatWith(2);
        const before = readFileSync(join(chatsDir(), `${chatId}.json`), 'utf8');
        const history = structuredClone(feature.history(chatId));
        server.when({ protocol: 'ollama-chat', scenario: { kind: 'hang' } });
        const summarizing = feature.summarize(chatId, options);
        const request = await arrived('ollama-chat');
        feature.cancelSummary(chatId);
        await assert.rejects(summarizing, CancelledError);
        assert.equal(await request.ended, 'aborted-by-client', 'the provider request itself was cancelled');
        assert.deepEqual(readdirSync(chatsDir()).filter(name => !name.startsWith('.')).sort(), [`${chatId}.json`], 'no summary file or folder');
        assert.equal(readFileSync(join(chatsDir(), `${chatId}.json`), 'utf8'), before);
        assert.deepEqual([feature.isOpen(chatId), feature.history(chatId)], [true, history]);

        await feature.send(chatId, input(longRequest(3)), options);
        assert.equal(await ended(chatId, 3), 'Finished');
        server.reset();
        server.when({ protocol: 'ollama-chat', scenario: { kind: 'replay', recording: ollamaChatRecording([SUMMARY]) } });
        const summary = await feature.summarize(chatId, options);
        assert.equal(summary.chat?.compressedFrom, chatId);
        assert.deepEqual(summary.chat?.history.map(message => message.role), ['user', 'assistant'], 'a summary by the button replaces the whole conversation');
    });

    it('a summary is stopped when its chat is closed in the window, and writes nothing', async () => {
        const chatId = await chatWith(1);
        server.when({ protocol: 'ollama-chat', scenario: { kind: 'hang' } });
        const summarizing = feature.summarize(chatId, options);
        await arrived('ollama-chat');
        await feature.close(chatId);
        await assert.rejects(summarizing, CancelledError);
        assert.deepEqual(chatFiles(), [`${chatId}.json`]);
    });

    it('a summary that fails rejects with the provider\'s error and leaves the chat as it was', async () => {
        const chatId = await chatWith(1);
        const history = structuredClone(feature.history(chatId));
        server.when({ protocol: 'ollama-chat', scenario: { kind: 'status', status: 404, body: JSON.stringify({ error: 'model "fake-model" not found, try pulling it first' }) } });
        await assert.rejects(feature.summarize(chatId, options), (error: unknown) => error instanceof QodeAssistError && /not found, try pulling it first/.test(`${error.info.message} ${error.info.providerDetail ?? ''}`));
        assert.deepEqual([chatFiles(), feature.isOpen(chatId), feature.history(chatId)], [[`${chatId}.json`], true, history]);
        await feature.send(chatId, input('still here?'), options);
        assert.equal(await ended(chatId, 2), 'Finished');
    });
});
