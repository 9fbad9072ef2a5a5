import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatEvent, ChatFeature, ChatOwners, HistoryMessage, StoredChat } from '@qodeassist/core';
import { openAITextRecording, openAITextStreamRecording } from '../fake-provider/recordings';
import { ChatWindow, isTerminal, until, useChatHarness } from './chat-harness';

/** What a chat keeps of answers that did not finish, and the versions edits, regenerations and resets leave behind. */
describe('chat versions: failures kept, edit and resend, regenerate, reset, JSON export and import', () => {
    const chat = useChatHarness({ homePrefix: 'qodeassist-chat-versions-', server: { hangMs: 15_000 }, saveEveryMs: 40 });
    const { server, storage } = chat;
    /** The backend's chat owners (each test has its own). */
    const owners = (): ChatOwners => chat.owners!;

    /** A window's chat feature; `fresh` gives it owners of its own, as a restarted backend has. */
    const window = (fresh = false): ChatWindow => chat.openWindow({ freshOwners: fresh });
    const input = (text: string) => ({ text, attachments: [] });
    const chatsFolder = () => chat.chatsFolder();
    const onDisk = (chatId: string): StoredChat => JSON.parse(readFileSync(join(chatsFolder(), `${chatId}.json`), 'utf8')) as StoredChat;
    const lines = (history: readonly HistoryMessage[]) => history.map(message => `${message.role}: ${message.blocks.map(block => block.type === 'text' ? block.text : `[${block.type}]`).join('')}`
        + (message.ended ? ` (${message.ended.reason})` : ''));
    const ends = (events: ChatEvent[]) => events.filter(isTerminal).length;
    /** Sends and waits for the answer's end and the save after it. */
    async function ask(feature: ChatFeature, events: ChatEvent[], chatId: string, text: string): Promise<void> {
        const before = ends(events);
        await feature.send(chatId, input(text), {});
        await until(() => ends(events) > before, `the answer to "${text}"`);
        await feature.saved();
    }
    const sentMessages = (index: number) => JSON.stringify(JSON.parse(server.requests[index].body).messages);

    it('keeps a failed answer with its error, shows it after a restart, and does not send it back', async () => {
        server.enqueue(
            { kind: 'status', status: 400, body: JSON.stringify({ error: { message: 'model overloaded by tests' } }) },
            { kind: 'replay', recording: openAITextRecording('Second answer.') }
        );
        const first = window();
        const { chatId } = await first.feature.open(storage);
        await ask(first.feature, first.events, chatId, 'first question');
        const saved = onDisk(chatId);
        assert.deepEqual(lines(saved.history), ['user: first question', 'assistant:  (failed)']);
        const ended = saved.history[1].ended;
        assert.equal(ended?.reason, 'failed');
        assert.match(ended?.reason === 'failed' ? `${ended.error.message} ${ended.error.providerDetail ?? ''}` : '', /model overloaded by tests/);

        // A backend that starts again shows it as it was.
        const later = window(true);
        const opened = await later.feature.open(storage, chatId);
        assert.deepEqual(lines(opened.chat!.history), ['user: first question', 'assistant:  (failed)']);

        await ask(later.feature, later.events, chatId, 'second question');
        assert.deepEqual(lines(onDisk(chatId).history), ['user: first question', 'assistant:  (failed)', 'user: second question', 'assistant: Second answer.']);
        const sent = sentMessages(1);
        assert.ok(sent.includes('first question') && sent.includes('second question'), sent);
        assert.ok(!sent.includes('overloaded'), 'the failure is never sent to the model');
    });

    it('keeps a stopped answer with what had arrived of it', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['Partial ', 'answer ', 'that ', 'goes ', 'on ', 'and ', 'on.']), chunkDelayMs: 150 });
        const { feature, events } = window();
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, input('long one'), {});
        await until(() => events.some(event => event.type === 'TextDelta'), 'the first piece');
        await feature.cancel(chatId);
        await until(() => ends(events) > 0, 'the stop');
        await owners().saved();
        const last = onDisk(chatId).history.at(-1)!;
        assert.deepEqual(last.ended, { reason: 'cancelled' });
        assert.ok(last.blocks.some(block => block.type === 'text' && block.text.startsWith('Partial')), JSON.stringify(last));
        assert.ok(!last.blocks.some(block => block.type === 'text' && block.text.includes('on.')), 'only what had arrived');
    });

    it('keeps a message that could not go (its agent is unknown) with the failure, and Retry asks again without a copy of it', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Now it works.') });
        const { feature, events } = window();
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, input('to nobody'), { agent: 'no-such-agent' });
        await owners().saved();
        assert.deepEqual(lines(onDisk(chatId).history), ['user: to nobody', 'assistant:  (failed)']);
        assert.ok(events.some(event => event.type === 'History'), 'the windows are told the history now holds the message');
        await feature.retry(chatId, {});
        await until(() => events.filter(event => event.type === 'Finished').length === 1, 'the retried answer');
        await owners().saved();
        assert.deepEqual(lines(onDisk(chatId).history), ['user: to nobody', 'assistant: Now it works.']);
        assert.equal(onDisk(chatId).branches, undefined, 'a failed answer asked again is not kept as a version');
    });

    it('edits and resends an earlier message: the later messages are replaced and kept as a version that can be brought back', async () => {
        server.enqueue(
            { kind: 'replay', recording: openAITextRecording('A1') },
            { kind: 'replay', recording: openAITextRecording('A2') },
            { kind: 'replay', recording: openAITextRecording('A1 edited') }
        );
        const { feature, events } = window();
        const { chatId } = await feature.open(storage);
        await ask(feature, events, chatId, 'Q1');
        await ask(feature, events, chatId, 'Q2');
        const before = ends(events);
        await feature.editAndSend(chatId, 0, input('Q1 edited'), {});
        await until(() => ends(events) > before, 'the edited message\'s answer');
        await owners().saved();
        const edited = onDisk(chatId);
        assert.deepEqual(lines(edited.history), ['user: Q1 edited', 'assistant: A1 edited']);
        assert.equal(edited.branches?.length, 1);
        assert.deepEqual(lines(edited.branches![0].messages), ['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2']);
        assert.ok(!sentMessages(2).includes('Q2'), 'the replaced messages are not sent');
        const told = events.filter(event => event.type === 'History').at(-1);
        assert.ok(told?.type === 'History' && told.branches.length === 1 && told.branches[0].turn === 0 && told.branches[0].part === 'question', JSON.stringify(told));

        await feature.switchBranch(chatId, edited.branches![0].id);
        const back = onDisk(chatId);
        assert.deepEqual(lines(back.history), ['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2']);
        assert.deepEqual(lines(back.branches![0].messages), ['user: Q1 edited', 'assistant: A1 edited'], 'the edit is kept in turn');
    });

    it('regenerates the last answer keeping the earlier one, and resets to a message keeping what followed', async () => {
        server.enqueue(
            { kind: 'replay', recording: openAITextRecording('first try') },
            { kind: 'replay', recording: openAITextRecording('second try') },
            { kind: 'replay', recording: openAITextRecording('A2') }
        );
        const { feature, events } = window();
        const { chatId } = await feature.open(storage);
        await ask(feature, events, chatId, 'Q1');
        const before = ends(events);
        await feature.retry(chatId, {});
        await until(() => ends(events) > before, 'the regenerated answer');
        await ask(feature, events, chatId, 'Q2');
        const regenerated = onDisk(chatId);
        assert.deepEqual(lines(regenerated.history), ['user: Q1', 'assistant: second try', 'user: Q2', 'assistant: A2']);
        assert.deepEqual(regenerated.branches?.map(branch => [branch.reason, lines(branch.messages)]), [['regenerate', ['assistant: first try']]]);

        await feature.resetTo(chatId, { turn: 0, part: 'answer' });
        const reset = onDisk(chatId);
        assert.deepEqual(lines(reset.history), ['user: Q1', 'assistant: second try']);
        const resetBranch = reset.branches!.find(branch => branch.reason === 'reset')!;
        assert.deepEqual(lines(resetBranch.messages), ['user: Q2', 'assistant: A2']);
        const told = events.filter(event => event.type === 'History').at(-1);
        assert.ok(told?.type === 'History' && told.branches.some(branch => branch.id === resetBranch.id && branch.turn === 1 && branch.part === 'question'),
            'offered where it left: the next question, after the last message shown');

        await feature.switchBranch(chatId, resetBranch.id);
        assert.deepEqual(lines(onDisk(chatId).history), ['user: Q1', 'assistant: second try', 'user: Q2', 'assistant: A2'], 'the reset is undone');
    });

    it('refuses a reset while an answer is being written, and changes nothing', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['slow ', 'answer ', 'here.']), chunkDelayMs: 300 });
        const { feature, events } = window();
        const { chatId } = await feature.open(storage);
        await feature.send(chatId, input('Q'), {});
        await until(() => events.some(event => event.type === 'TextDelta'), 'the answer to start');
        await assert.rejects(feature.resetTo(chatId, { turn: 0, part: 'question' }), /being written/);
        await until(() => ends(events) > 0, 'the answer');
        await owners().saved();
        assert.deepEqual(lines(onDisk(chatId).history), ['user: Q', 'assistant: slow answer here.']);
    });

    it('exports a chat as JSON with its attachments and imports it as a new chat with its own copies', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('I see a file.') });
        const { feature, events } = window();
        const { chatId } = await feature.open(storage);
        const ref = await feature.attach(chatId, 'notes.txt', 'text/plain', Buffer.from('attached words'));
        await feature.send(chatId, { text: 'read this', attachments: [ref] }, {});
        await until(() => ends(events) > 0, 'the answer');
        await owners().saved();
        const json = await feature.library.exportJson(storage, chatId);
        const exported = JSON.parse(json) as { format: string; attachments: Array<{ base64: string }> };
        assert.equal(exported.format, 'qodeassist-chat');
        assert.equal(Buffer.from(exported.attachments[0].base64, 'base64').toString(), 'attached words');

        const imported = await feature.library.importJson(storage, json);
        assert.notEqual(imported.chatId, chatId);
        const copy = onDisk(imported.chatId);
        assert.deepEqual(lines(copy.history), ['user: [attachment]read this', 'assistant: I see a file.']);
        const attachment = copy.history[0].blocks.find(block => block.type === 'attachment');
        assert.ok(attachment?.type === 'attachment' && attachment.ref.path.includes(imported.chatId), 'the import refers to its own copy');
        assert.equal(readFileSync(attachment.ref.path, 'utf8'), 'attached words');
        const reopened = await window(true).feature.open(storage, imported.chatId);
        assert.equal(reopened.chat?.title, copy.title);
    });

    describe('a hostile chat export', () => {
        const base = (extra: Record<string, unknown> = {}) => ({
            format: 'qodeassist-chat', version: 1, id: 'x', title: 'Shared with you', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
            history: [{ role: 'user', blocks: [{ type: 'text', text: 'hi' }] }], edits: {}, attachments: [], ...extra
        });

        it('never makes a file on this machine an attachment: a reference without bytes in the export is left out, and the next send does not upload it', async () => {
            const secretFile = join(chat.home, 'secret.txt');
            writeFileSync(secretFile, 'PRIVATE-MARKER-7f3a');
            const hostile = base({
                history: [
                    { role: 'user', blocks: [{ type: 'attachment', ref: { path: secretFile, name: 'secret.txt', mediaType: 'text/plain' } }, { type: 'text', text: 'hi' }] },
                    { role: 'assistant', blocks: [{ type: 'text', text: 'ok' }] }
                ]
            });
            const { feature, events } = window();
            const imported = await feature.library.importJson(storage, JSON.stringify(hostile));
            assert.ok(imported.notes.some(note => /not in the export/.test(note)), imported.notes.join(' '));
            server.enqueue({ kind: 'replay', recording: openAITextRecording('fine') });
            await feature.open(storage, imported.chatId);
            await ask(feature, events, imported.chatId, 'go on');
            assert.ok(!server.requests[0].body.includes('PRIVATE-MARKER'), 'the file named by the export never reached the provider');
        });

        it('takes no file edits (Undo would write where the file says), and leaves Object.prototype alone', async () => {
            const hostile = base({
                history: [
                    { role: 'user', blocks: [{ type: 'text', text: 'edit' }] },
                    { role: 'assistant', blocks: [{ type: 'tool_use', id: 't1', name: 'edit_file', input: JSON.parse('{"__proto__": {"polluted": "yes"}}') }] }
                ],
                edits: { t1: { path: 'x', absolutePath: '/etc/passwd', diff: '-root', created: false, state: 'applied' } }
            });
            const { feature } = window();
            const imported = await feature.library.importJson(storage, JSON.stringify(hostile).replace('"input":{}', '"input":{"__proto__":{"polluted":"yes"}}'));
            assert.deepEqual(onDisk(imported.chatId).edits, {});
            assert.ok(imported.notes.some(note => /cannot be undone/.test(note)));
            assert.equal(({} as Record<string, unknown>).polluted, undefined);
        });

        it('refuses what is not a chat export with a message naming the cause, and writes nothing', async () => {
            const { feature } = window();
            await assert.rejects(feature.library.importJson(storage, '{ not json'), /not valid JSON/);
            await assert.rejects(feature.library.importJson(storage, JSON.stringify({ version: 1 })), /not a QodeAssist chat export/);
            await assert.rejects(feature.library.importJson(storage, JSON.stringify(base({ history: [{ role: 'system', blocks: [] }] }))), /history\.0\.role/);
            await assert.rejects(feature.library.importJson(storage, JSON.stringify(base({ version: 99 }))), /version 99/);
            assert.equal(existsSync(chatsFolder()) ? readdirSync(chatsFolder()).filter(name => name.endsWith('.json')).length : 0, 0);
        });
    });

    describe('what the review found', () => {
        it('keeps versions with the part they continue: an old regenerated answer is not offered on a new conversation, and comes back with its own', async () => {
            server.enqueue(...['a1', 'a2', 'a2 again', 'new a1', 'new a2'].map(text => ({ kind: 'replay' as const, recording: openAITextRecording(text) })));
            const { feature, events } = window();
            const { chatId } = await feature.open(storage);
            await ask(feature, events, chatId, 'q1');
            await ask(feature, events, chatId, 'q2');
            let before = ends(events);
            await feature.retry(chatId, {});
            await until(() => ends(events) > before, 'the regenerated answer');
            before = ends(events);
            await feature.editAndSend(chatId, 0, input('NEW q1'), {});
            await until(() => ends(events) > before, 'the edited answer');
            await ask(feature, events, chatId, 'NEW q2');
            const told = events.filter(event => event.type === 'History').at(-1);
            assert.ok(told?.type === 'History');
            assert.deepEqual(told.branches.map(branch => [branch.turn, branch.part, branch.preview]), [[0, 'question', 'q1']], 'only the edit is offered, on the question it replaced');
            const saved = onDisk(chatId);
            assert.deepEqual(saved.branches?.[0].branches?.map(branch => lines(branch.messages)), [['assistant: a2']], 'the regenerated answer is kept inside the version it belongs to');

            await feature.switchBranch(chatId, saved.branches![0].id);
            const back = onDisk(chatId);
            assert.deepEqual(lines(back.history), ['user: q1', 'assistant: a1', 'user: q2', 'assistant: a2 again']);
            assert.deepEqual(back.branches?.map(branch => [branch.at, lines(branch.messages)]).sort(), [
                [0, ['user: NEW q1', 'assistant: new a1', 'user: NEW q2', 'assistant: new a2']], [3, ['assistant: a2']]
            ].sort(), 'its own version is back beside it; the new conversation is kept as a version');
        });

        it('keeps an edit that could not go where the edit put it, with the original as a version, and sends the question\'s attachments with the edited text', async () => {
            server.enqueue({ kind: 'replay', recording: openAITextRecording('read it') }, { kind: 'replay', recording: openAITextRecording('again') });
            const { feature, events } = window();
            const { chatId } = await feature.open(storage);
            const ref = await feature.attach(chatId, 'notes.txt', 'text/plain', Buffer.from('NOTES-CONTENT'));
            await feature.send(chatId, { text: 'look', attachments: [ref] }, {});
            await until(() => ends(events) > 0, 'the answer');
            await feature.editAndSend(chatId, 0, input('look closer'), { agent: 'no-such-agent' });
            await feature.saved();
            const failed = onDisk(chatId);
            assert.deepEqual(lines(failed.history), ['user: [attachment]look closer', 'assistant:  (failed)']);
            assert.deepEqual(lines(failed.branches![0].messages), ['user: [attachment]look', 'assistant: read it']);
            await feature.retry(chatId, {});
            await until(() => ends(events) > 2, 'the retried edit');
            assert.ok(server.requests[1].body.includes('NOTES-CONTENT') && server.requests[1].body.includes('look closer'), 'the edited question went with its attachment');
        });

        it('never opens, sends or exports an attachment that is a link, even one inside the chat\'s folder', async () => {
            const secret = join(chat.home, 'id_rsa');
            writeFileSync(secret, 'SECRET-KEY-MATERIAL');
            const folder = chatsFolder();
            const id = 'planted-chat';
            mkdirSync(join(folder, id, 'attachments'), { recursive: true });
            symlinkSync(secret, join(folder, id, 'attachments', 'notes.txt'));
            writeFileSync(join(folder, `${id}.json`), JSON.stringify({
                version: 1, id, title: 'planted', createdAt: 'x', updatedAt: 'x', edits: {},
                history: [{ role: 'user', blocks: [{ type: 'attachment', ref: { path: join(folder, id, 'attachments', 'notes.txt'), name: 'notes.txt', mediaType: 'text/plain' } }] }]
            }));
            const { feature } = window();
            await assert.rejects(feature.open(storage, id), /is a link|not a file in its own folder/);
            await assert.rejects(feature.library.exportJson(storage, id), /is a link|not a file in its own folder/);
            assert.equal(server.requests.length, 0);
        });

        it('imports versions that each hold an attachment of the same name with their own bytes', async () => {
            const chat = (text: string) => [{ role: 'user', blocks: [{ type: 'image', ref: { path: `/elsewhere/${text}/image.png`, name: 'image.png', mediaType: 'image/png' } }, { type: 'text', text }] }];
            const exported = {
                format: 'qodeassist-chat', version: 1, id: 'x', title: 'images', createdAt: 'x', updatedAt: 'x', edits: {}, history: chat('now'),
                branches: ['b0', 'b1', 'b2', 'b3'].map(id => ({ id, at: 0, messages: chat(id), edits: {}, createdAt: 'x', reason: 'edit' })),
                attachments: ['now', 'b0', 'b1', 'b2', 'b3'].map(text => ({ path: `/elsewhere/${text}/image.png`, name: 'image.png', mediaType: 'image/png', base64: Buffer.from(`PNG ${text}`).toString('base64') }))
            };
            const { feature } = window();
            const imported = await feature.library.importJson(storage, JSON.stringify(exported));
            const copy = onDisk(imported.chatId);
            for (const messages of [copy.history, ...copy.branches!.map(branch => branch.messages)]) {
                const [image, text] = messages[0].blocks;
                assert.ok(image.type === 'image' && text.type === 'text');
                assert.equal(readFileSync(image.ref.path, 'utf8'), `PNG ${text.text}`);
            }
        });
    });
});
