import * as assert from 'node:assert/strict';
import { ChatFeature, ChatStore, ImagesNotTakenError, QodeAssistError } from '@qodeassist/core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatWindow, useChatHarness } from './chat-harness';

/** The smallest PNG header; the fake provider never looks at it. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('ChatFeature: images follow the agent, and what a turn and a chat cost', () => {
    const chat = useChatHarness({
        homePrefix: 'qodeassist-chat-images-', server: { hangMs: 15_000 },
        prepare: fixture => {
            // The text-only template of DeepSeek and llama.cpp, on the fake server.
            fixture.project_('agents/fake-text.toml', 'schema_version = 1\nname = "fake-text"\nextends = "fake-openai"\n\n[body]\nmessages = "{% include \'openai/text-messages.njk\' %}"\n');
            fixture.project_('agents/fake-priced.toml', [
                'schema_version = 1', 'name = "fake-priced"', 'extends = "fake-openai"', '',
                '[pricing."fake-model"]', 'input_per_mtok = 3.0', 'output_per_mtok = 15.0', ''
            ].join('\n'));
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-text", "fake-openai", "fake-claude", "fake-priced"]\n');
        }
    });
    const { server, fixture, storage } = chat;
    let window: ChatWindow;
    let feature: ChatFeature;

    beforeEach(() => {
        window = chat.openWindow();
        feature = window.feature;
    });

    /** The chat's first terminal event, once it arrived. */
    const terminal = (chatId: string) => window.ended(1, chatId);

    it('the chat picker says which agents take images', () => {
        assert.deepEqual(feature.pickers.agents(undefined).map(choice => [choice.name, choice.images]),
            [['fake-text', false], ['fake-openai', true], ['fake-claude', true], ['fake-priced', true]]);
    });

    it('attaching an image for an agent that takes none is refused at once, naming the agents that do; a text file still attaches', async () => {
        const { chatId } = await feature.open(storage);
        for (const options of [{ agent: 'fake-text' }, {}]) {
            await assert.rejects(feature.attach(chatId, 'shot.png', 'image/png', PNG, options), (error: unknown) => {
                assert.ok(error instanceof ImagesNotTakenError);
                assert.equal(error.info.category, 'Validation');
                assert.deepEqual([error.agent, error.imageAgents], ['fake-text', ['fake-openai', 'fake-claude', 'fake-priced']]);
                assert.equal(error.message, 'fake-text takes no images (its request template sends text only, or its file says images = false), so "shot.png" was not attached. '
                    + 'Switch to an agent that takes images (fake-openai, fake-claude, fake-priced) in the agent picker, then attach it again.');
                return true;
            }, 'the roster\'s first agent (Auto) is refused like a chosen one');
        }
        const note = await feature.attach(chatId, 'notes.txt', 'text/plain', Buffer.from('plain text'), { agent: 'fake-text' });
        assert.equal(note.name, 'notes.txt');
        const image = await feature.attach(chatId, 'shot.png', 'image/png', PNG, { agent: 'fake-openai' });
        assert.equal(image.mediaType, 'image/png');
    });

    it('a send with an image to an agent that takes none is refused with a Validation error naming the fix, and nothing is sent', async () => {
        const { chatId } = await feature.open(storage);
        const image = await feature.attach(chatId, 'shot.png', 'image/png', PNG, { agent: 'fake-openai' });
        const manifest = await feature.estimate(chatId, { text: 'what is this?', attachments: [image] }, { agent: 'fake-text' });
        assert.match(manifest?.refusal ?? '', /^fake-text takes no images .*"shot\.png" cannot go with this message\. Pick an agent that takes images in the chat's agent picker, or remove the image\.$/);

        await feature.send(chatId, { text: 'what is this?', attachments: [image] }, { agent: 'fake-text' });
        const end = await terminal(chatId);
        assert.equal(end.type, 'Failed');
        assert.equal(end.type === 'Failed' && end.error.category, 'Validation');
        assert.match(end.type === 'Failed' ? end.error.message : '', /Pick an agent that takes images/);
        assert.equal(server.requests.length, 0, 'nothing went to the provider');
    });

    it('an earlier image goes to a text-only agent as a line that says so, and the estimate counts exactly that', async () => {
        const { chatId } = await feature.open(storage);
        const image = await feature.attach(chatId, 'shot.png', 'image/png', PNG, { agent: 'fake-openai' });
        server.enqueue({ kind: 'replay', recording: openAITextRecording('A screenshot of a login form.') }, { kind: 'replay', recording: openAITextRecording('Use a label.') });
        await feature.send(chatId, { text: 'what is this?', attachments: [image] }, { agent: 'fake-openai' });
        assert.equal((await terminal(chatId)).type, 'Finished');
        window.clear();

        const withImage = await feature.estimate(chatId, { text: 'how do I fix it?', attachments: [] }, { agent: 'fake-openai' });
        const textOnly = await feature.estimate(chatId, { text: 'how do I fix it?', attachments: [] }, { agent: 'fake-text' });
        assert.ok(withImage && textOnly);
        assert.deepEqual(textOnly.filters.filter(filter => filter.kind === 'image_not_taken'), [{ kind: 'image_not_taken', detail: 'shot.png (fake-text takes no images)' }]);
        assert.equal(textOnly.refusal, undefined, 'only the turn\'s own images refuse a send');
        assert.ok(withImage.estimate - textOnly.estimate > 700, `the image (~800 tokens) is not counted for the text-only agent: ${withImage.estimate} vs ${textOnly.estimate}`);

        await feature.send(chatId, { text: 'how do I fix it?', attachments: [] }, { agent: 'fake-text' });
        assert.equal((await terminal(chatId)).type, 'Finished');
        const sent = JSON.parse(server.requests[1].body).messages;
        assert.deepEqual(sent[1], { role: 'user', content: '[image shot.png not sent: fake-text takes no images]\n\nwhat is this?' });
    });

    it('a priced agent records each request\'s cost; the chat\'s summary sums them, and a chat without prices has no figure', async () => {
        const priced = await feature.open(storage);
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: 'list_project_files', arguments: {} }], 1_000) },
            { kind: 'replay', recording: openAITextRecording('Two files.', 2_000) }
        );
        await feature.send(priced.chatId, { text: 'what is here?', attachments: [] }, { agent: 'fake-priced', workspacePath: fixture.workspace });
        assert.equal((await terminal(priced.chatId)).type, 'Finished');
        const usages = feature.history(priced.chatId).flatMap(message => message.usage ? [message.usage] : []);
        // 1000 × 3 + 20 × 15, then 2000 × 3 + 10 × 15, per million tokens.
        assert.deepEqual(usages.map(usage => [usage.inputTokens, usage.outputTokens, usage.cost && Number(usage.cost.amount.toFixed(8)), usage.cost?.currency]),
            [[1_000, 20, 0.0033, 'USD'], [2_000, 10, 0.00615, 'USD']]);
        const told = window.received.flatMap(entry => entry.event.type === 'Usage' ? [[entry.event.round, entry.event.cost?.currency]] : []);
        assert.deepEqual(told, [[0, 'USD'], [1, 'USD']]);

        const unpriced = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Hello.') });
        await feature.send(unpriced.chatId, { text: 'hi', attachments: [] }, { agent: 'fake-openai' });
        assert.equal((await terminal(unpriced.chatId)).type, 'Finished');
        await feature.saved();

        const { chats } = await new ChatStore(chat.chatsFolder()).list();
        const summary = (id: string) => chats.find(chat => chat.id === id);
        const cost = summary(priced.chatId)?.cost;
        assert.deepEqual(cost && { ...cost, amounts: cost.amounts.map(amount => ({ ...amount, amount: Number(amount.amount.toFixed(8)) })) },
            { amounts: [{ currency: 'USD', amount: 0.00945 }], unpriced: 0 });
        assert.equal(summary(unpriced.chatId)?.cost, undefined);
        assert.ok(summary(unpriced.chatId), 'the unpriced chat is listed');
    });

    it('ImagesNotTakenError is a QodeAssistError (the IDE shows its category and message)', () => {
        const error = new ImagesNotTakenError('plain', [], 'a.png');
        assert.ok(error instanceof QodeAssistError);
        assert.match(error.message, /None of the chat agents takes images/);
    });
});
