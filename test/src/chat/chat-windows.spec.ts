import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatOwners, ChatStore, StoredChat } from '@qodeassist/core';
import { openAITextRecording, openAITextStreamRecording } from '../fake-provider/recordings';
import { ChatWindow, until, useChatHarness } from './chat-harness';

const SLOW_PIECES = ['One ', 'piece ', 'at ', 'a ', 'time, ', 'slowly ', 'enough ', 'to ', 'watch.'];

describe('one chat in two windows (one owner per chat file)', () => {
    // Saves while an answer streams come every 40 ms here (2 s in the IDE), so a spec sees one.
    const chat = useChatHarness({ homePrefix: 'qodeassist-chat-windows-', server: { hangMs: 15_000 }, saveEveryMs: 40 });
    const { server, storage } = chat;
    /** The backend's chat owners (each test has its own). */
    const owners = (): ChatOwners => chat.owners!;
    /** One IDE window: its own runtime and chat feature (as its connection has); `fresh`: owners of its own, as another backend has. */
    const openWindow = (fresh = false): ChatWindow => chat.openWindow({ freshOwners: fresh });
    const input = (text: string, turnId?: string) => ({ text, attachments: [], ...(turnId ? { turnId } : {}) });
    const chatFile = (chatId: string) => join(chat.chatsFolder(), `${chatId}.json`);
    const onDisk = (chatId: string): StoredChat => JSON.parse(readFileSync(chatFile(chatId), 'utf8')) as StoredChat;
    const texts = (stored: StoredChat) => stored.history.map(message => `${message.role}: ${message.blocks.map(block => block.type === 'text' ? block.text : `[${block.type}]`).join('')}${message.interrupted ? ' (interrupted)' : ''}`);
    const ended = (window: ChatWindow, count: number) => window.ended(count);

    it('keeps both windows\' messages in order: the second waits for the first answer, each window sees the other\'s message and answer live', async () => {
        server.enqueue(
            { kind: 'replay', recording: openAITextStreamRecording(SLOW_PIECES), chunkDelayMs: 60 },
            { kind: 'replay', recording: openAITextRecording('Answer to B.') }
        );
        const a = openWindow();
        const b = openWindow();
        const { chatId } = await a.feature.open(storage);
        await a.feature.send(chatId, input('from A', 'turn-a'), {});
        await until(() => a.events.some(event => event.type === 'TextDelta'), 'A\'s answer to stream');

        // B opens the chat from history while A's answer streams: it is shown as it is now, nothing is cancelled.
        const opened = await b.feature.open(storage, chatId);
        assert.deepEqual(opened.chat?.history.map(message => message.role), ['user']);
        assert.equal(opened.live?.events[0].type, 'RequestStarted');
        const sendB = b.feature.send(chatId, input('from B', 'turn-b'), {});
        await until(() => b.events.some(event => event.type === 'Queued'), 'B to be told its message waits');
        assert.deepEqual(b.events.find(event => event.type === 'Queued'), { type: 'Queued', turnId: 'turn-b' });
        assert.equal(server.requests.length, 1, 'B\'s message waits for A\'s answer');

        await sendB;
        await ended(a, 2);
        await ended(b, 2);
        await owners().saved();
        assert.deepEqual(texts(onDisk(chatId)), ['user: from A', `assistant: ${SLOW_PIECES.join('')}`, 'user: from B', 'assistant: Answer to B.']);
        // The provider got the whole conversation for B's message.
        const second = JSON.stringify(JSON.parse(server.requests[1].body).messages);
        assert.ok(second.includes('from A') && second.includes('watch.') && second.includes('from B'), second);
        // Live in both: A saw B's message announced and B's answer streamed; B saw A's answer (from when it opened).
        const announced = (window: ChatWindow) => window.events.flatMap(event => event.type === 'UserMessage' ? [event.turnId] : []);
        assert.deepEqual(announced(a), ['turn-a', 'turn-b']);
        assert.deepEqual(announced(b), ['turn-b'], 'B opened after A\'s message was announced; it came with the opened chat');
        assert.ok(a.events.some(event => event.type === 'TextDelta' && event.text.includes('Answer to B.')));
        assert.ok(b.events.some(event => event.type === 'TextDelta' && event.text === 'watch.'), 'B saw the rest of A\'s answer');
        assert.equal(onDisk(chatId).revision !== undefined && onDisk(chatId).revision! >= 2, true);
    });

    it('saves a streaming answer every few moments, marked interrupted, and replaces it with the whole answer at its end', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(SLOW_PIECES), chunkDelayMs: 80 });
        const a = openWindow();
        const { chatId } = await a.feature.open(storage);
        await a.feature.send(chatId, input('stream please'), {});
        await until(() => {
            try {
                const last = onDisk(chatId).history.at(-1);
                return !!last?.interrupted && last.blocks.some(block => block.type === 'text' && block.text.length > 0);
            } catch {
                return false;
            }
        }, 'a save mid-stream with the text so far');
        const midway = onDisk(chatId);
        assert.equal(midway.history.at(-1)?.role, 'assistant');
        const partial = midway.history.at(-1)?.blocks[0];
        assert.ok(partial?.type === 'text' && SLOW_PIECES.join('').startsWith(partial.text) && partial.text.length < SLOW_PIECES.join('').length, JSON.stringify(partial));
        await ended(a, 1);
        await owners().saved();
        assert.deepEqual(texts(onDisk(chatId)), ['user: stream please', `assistant: ${SLOW_PIECES.join('')}`]);
        assert.deepEqual(readdirSync(chat.chatsFolder()).filter(name => name.endsWith('.tmp')), [], 'no temporary file left');
    });

    it('shows an answer a crash cut as interrupted with what had arrived; Retry asks again without it and every window sees the change', async () => {
        const store = new ChatStore(chat.chatsFolder());
        const now = new Date().toISOString();
        await store.save({
            version: 1, id: 'crashed-chat', title: 'Crashed', createdAt: now, updatedAt: now, edits: {}, revision: 3,
            history: [
                { role: 'user', blocks: [{ type: 'text', text: 'explain the parser' }] },
                { role: 'assistant', blocks: [{ type: 'thinking', text: 'half a thought' }, { type: 'text', text: 'The parser reads' }], interrupted: true }
            ]
        });
        server.enqueue({ kind: 'replay', recording: openAITextRecording('The parser reads tokens.') });
        const a = openWindow();
        const b = openWindow();
        const opened = await a.feature.open(storage, 'crashed-chat');
        assert.equal(opened.chat?.history.at(-1)?.interrupted, true, 'the view shows it interrupted');
        await b.feature.open(storage, 'crashed-chat');

        await a.feature.retry('crashed-chat', {});
        await ended(a, 1);
        await owners().saved();
        const sent = JSON.parse(server.requests[0].body).messages as Array<{ role: string; content: unknown }>;
        assert.deepEqual(sent.filter(message => message.role !== 'system').map(message => message.role), ['user'], 'the cut answer is not sent back');
        assert.deepEqual(texts(onDisk('crashed-chat')), ['user: explain the parser', 'assistant: The parser reads tokens.']);
        assert.ok(onDisk('crashed-chat').revision! > 3, 'saved over the revision it read (3)');
        for (const window of [a, b]) {
            const history = window.events.find(event => event.type === 'History');
            assert.ok(history?.type === 'History' && history.history.length === 1, 'told the conversation without the cut answer');
        }
    });

    it('keeps the conversation going in the next message after the crash: the interrupted text goes along, thinking does not', async () => {
        const store = new ChatStore(chat.chatsFolder());
        const now = new Date().toISOString();
        await store.save({
            version: 1, id: 'cut-chat', title: 'Cut', createdAt: now, updatedAt: now, edits: {},
            history: [
                { role: 'user', blocks: [{ type: 'text', text: 'first question' }] },
                { role: 'assistant', blocks: [{ type: 'thinking', text: 'secret half thought' }, { type: 'text', text: 'partial answer' }], interrupted: true }
            ]
        });
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Next.') });
        const a = openWindow();
        await a.feature.open(storage, 'cut-chat');
        await a.feature.send('cut-chat', input('second question'), {});
        await ended(a, 1);
        const said = JSON.stringify(JSON.parse(server.requests[0].body).messages);
        assert.ok(said.includes('first question') && said.includes('partial answer') && said.includes('second question'), said);
        assert.ok(!said.includes('secret half thought'), 'a half thinking block is not sent back');
    });

    it('never overwrites a file another writer changed: this window\'s copy is saved beside it as a conflict copy, the chat goes on as that copy, and the window is told', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Mine.') });
        const a = openWindow();
        const { chatId } = await a.feature.open(storage);
        const shot = await a.feature.attach(chatId, 'shot.png', 'image/png', Buffer.from([137, 80, 78, 71]));
        await a.feature.send(chatId, { text: 'my first', attachments: [shot] }, {});
        await ended(a, 1);
        await owners().saved();
        // Another IDE backend (its own owners) has the same chat open and writes it.
        const elsewhere = openWindow(true);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Theirs.') });
        await elsewhere.feature.open(storage, chatId);
        await elsewhere.feature.send(chatId, input('their message'), {});
        await ended(elsewhere, 1);
        await elsewhere.feature.saved();
        const theirs = readFileSync(chatFile(chatId), 'utf8');

        server.reset();
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Mine again.') }, { kind: 'replay', recording: openAITextRecording('And again.') });
        await a.feature.send(chatId, input('my second'), {});
        await ended(a, 2);
        await owners().saved();
        assert.equal(readFileSync(chatFile(chatId), 'utf8'), theirs, 'the other writer\'s file is left as it is');
        const moved = a.events.find(event => event.type === 'Moved');
        assert.ok(moved?.type === 'Moved' && moved.chatId.startsWith(`${chatId}-conflict-`), 'the window is told the new id');
        const copyId = moved.chatId;
        assert.ok(a.notices.some(notice => notice.includes('Nothing was overwritten') && notice.includes(`${copyId}.json`)), a.notices.join('\n'));
        assert.ok(a.feature.isOpen(copyId) && !a.feature.isOpen(chatId));

        // The chat goes on as the copy: saved again there, still loadable with its attachment.
        await a.feature.send(copyId, input('my third'), {});
        await ended(a, 3);
        await owners().saved();
        assert.equal(readFileSync(chatFile(chatId), 'utf8'), theirs);
        const store = new ChatStore(chat.chatsFolder());
        const copy = await store.load(copyId);
        assert.deepEqual(texts(copy), ['user: [image]my first', 'assistant: Mine.', 'user: my second', 'assistant: Mine again.', 'user: my third', 'assistant: And again.']);
        assert.match(copy.title, /\(conflict copy\)$/);
        const image = copy.history[0].blocks[0];
        assert.ok(image.type === 'image' && store.ownsAttachment(copyId, image.ref.path) && readFileSync(image.ref.path).length === 4);
        const listed = await store.list();
        assert.deepEqual(listed.unreadable, []);
        assert.equal(listed.chats.length, 2, 'both in the chat history');
        // Opening the copy from history in another window of this backend shows this chat, not a second owner.
        const b = openWindow();
        const opened = await b.feature.open(storage, copyId);
        assert.equal(opened.chat?.history.length, 6);
    });

    it('a window that goes away cancels the request it sent (its tools would ask nobody); the other window sees it end', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(SLOW_PIECES), chunkDelayMs: 200 });
        const a = openWindow();
        const b = openWindow();
        const { chatId } = await a.feature.open(storage);
        await b.feature.open(storage, chatId);
        await a.feature.send(chatId, input('from A'), {});
        await until(() => b.events.some(event => event.type === 'TextDelta'), 'the answer to stream');
        a.feature.dispose();
        await ended(b, 1);
        assert.equal(b.events.find(event => event.type === 'Finished' || event.type === 'Cancelled')?.type, 'Cancelled');
        // The chat stays open in B, idle: B's next message goes.
        server.enqueue({ kind: 'replay', recording: openAITextRecording('For B.') });
        await b.feature.send(chatId, input('from B'), {});
        await ended(b, 2);
        assert.equal(b.events.filter(event => event.type === 'Finished').length, 1);
    });

    it('a window closing does not cancel the answer another window shows; the chat closes with its last window', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(SLOW_PIECES), chunkDelayMs: 40 });
        const a = openWindow();
        const b = openWindow();
        const { chatId } = await a.feature.open(storage);
        await a.feature.send(chatId, input('from A'), {});
        await b.feature.open(storage, chatId);
        await a.feature.close(chatId);
        await ended(b, 1);
        assert.equal(b.events.find(event => event.type === 'Finished' || event.type === 'Cancelled')?.type, 'Finished');
        await b.feature.close(chatId);
        await owners().saved();
        assert.deepEqual(texts(onDisk(chatId)), ['user: from A', `assistant: ${SLOW_PIECES.join('')}`]);
        await assert.rejects(b.feature.send(chatId, input('late'), {}), /is not open in this IDE backend/);
    });

    it('a view moved to another panel (closed, opened at once) takes the chat as it is: no stale read, no conflict copy', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextRecording('First answer.') }, { kind: 'replay', recording: openAITextRecording('Second answer.') });
        const a = openWindow();
        const { chatId } = await a.feature.open(storage);
        await a.feature.send(chatId, input('first'), {});
        await ended(a, 1);
        // The answer's save may still be under way when the view closes and the new one opens.
        const closing = a.feature.close(chatId);
        const reopened = await a.feature.open(storage, chatId);
        await closing;
        assert.deepEqual(texts(reopened.chat!), ['user: first', 'assistant: First answer.']);
        await a.feature.send(chatId, input('second'), {});
        await ended(a, 2);
        await owners().saved();
        assert.deepEqual(texts(onDisk(chatId)), ['user: first', 'assistant: First answer.', 'user: second', 'assistant: Second answer.']);
        assert.deepEqual(readdirSync(chat.chatsFolder()).filter(name => name.includes('conflict')), []);
    });

    it('Stop on a message queued behind another window\'s answer withdraws it: never sent, ended as cancelled for its sender; the other answer goes on', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(SLOW_PIECES), chunkDelayMs: 40 });
        const a = openWindow();
        const b = openWindow();
        const { chatId } = await a.feature.open(storage);
        await b.feature.open(storage, chatId);
        await a.feature.send(chatId, input('from A'), {});
        const sendB = b.feature.send(chatId, input('from B', 'turn-b'), {});
        await until(() => b.events.some(event => event.type === 'Queued'), 'B queued');
        await b.feature.cancel(chatId, 'turn-b');
        const requestId = await sendB;
        await ended(a, 1);
        assert.equal(a.events.find(event => event.type === 'Finished' || event.type === 'Cancelled')?.type, 'Finished', 'A\'s answer was not cancelled');
        const started = b.events.find(event => event.type === 'RequestStarted' && event.requestId === requestId);
        assert.ok(started?.type === 'RequestStarted' && started.turnId === 'turn-b');
        assert.ok(b.events.some(event => event.type === 'Cancelled' && event.requestId === requestId));
        await owners().saved();
        assert.equal(server.requests.length, 1, 'B\'s message was never sent');
        assert.deepEqual(texts(onDisk(chatId)), ['user: from A', `assistant: ${SLOW_PIECES.join('')}`]);
    });
});
