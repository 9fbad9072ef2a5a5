import * as assert from 'node:assert/strict';
import { ChatStore } from '../../session/chat-store';
import { OpenChat } from './open-chat';

describe('OpenChat.exclusive', () => {
    const chat = () => new OpenChat('c1', new ChatStore('/nonexistent/chats'), { createdAt: '2026-01-01T00:00:00Z', edits: {} });
    const tick = () => new Promise(resolve => setTimeout(resolve, 1));

    it('runs a chat\'s preparations one at a time, in the order asked: a second never starts while the first awaits', async () => {
        const open = chat();
        const log: string[] = [];
        const work = (name: string) => async () => {
            log.push(`${name} start`);
            await tick();
            await tick();
            log.push(`${name} end`);
            return name;
        };
        const results = await Promise.all([open.exclusive(work('estimate')), open.exclusive(work('send')), open.exclusive(work('estimate again'))]);
        assert.deepEqual(results, ['estimate', 'send', 'estimate again']);
        assert.deepEqual(log, ['estimate start', 'estimate end', 'send start', 'send end', 'estimate again start', 'estimate again end']);
    });

    it('a failed preparation rejects its own caller only; the next one still runs', async () => {
        const open = chat();
        const failing = open.exclusive(async () => { throw new Error('no key'); });
        const next = open.exclusive(async () => 'sent');
        await assert.rejects(failing, /no key/);
        assert.equal(await next, 'sent');
    });
});

describe('OpenChat while an answer streams', () => {
    const seeded = () => new OpenChat('c1', new ChatStore('/nonexistent/chats'), { createdAt: '2026-01-01T00:00:00Z', edits: {} }, [
        { role: 'user', blocks: [{ type: 'text', text: 'why?' }] }
    ]);

    it('saves what arrived as the last message, marked interrupted, and a window opening it gets the history before the request and its events', () => {
        const chat = seeded();
        chat.begin('r1');
        chat.keep([
            { type: 'RequestStarted', requestId: 'r1' },
            { type: 'ThinkingDelta', requestId: 'r1', text: 'hm' },
            { type: 'TextDelta', requestId: 'r1', text: 'Because ' },
            { type: 'TextDelta', requestId: 'r1', text: 'it is.' }
        ]);
        assert.deepEqual(chat.snapshot()?.history.at(-1), {
            role: 'assistant', blocks: [{ type: 'thinking', text: 'hm' }, { type: 'text', text: 'Because it is.' }], interrupted: true
        });
        const view = chat.view();
        assert.deepEqual(view.chat?.history.map(message => message.role), ['user']);
        assert.deepEqual(view.live?.events, [
            { type: 'RequestStarted', requestId: 'r1' },
            { type: 'ThinkingDelta', requestId: 'r1', text: 'hm' },
            { type: 'TextDelta', requestId: 'r1', text: 'Because it is.' }
        ], 'streamed pieces joined');
        chat.end();
        assert.equal(chat.snapshot()?.history.length, 1, 'once it ended, the session\'s history is what is saved');
        assert.equal(chat.view().live, undefined);
    });

    it('starts the streamed text over when a tool round joined the history', () => {
        const chat = seeded();
        chat.begin('r1');
        chat.keep([{ type: 'TextDelta', requestId: 'r1', text: 'Let me look.' }]);
        // The session recorded the round (the answer and the tool results) into the history the chat reads.
        chat.seed.push({ role: 'assistant', blocks: [{ type: 'text', text: 'Let me look.' }] }, { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 't', name: 'read_file', content: 'x', isError: false }] });
        // A save before the next round's first piece: the round's text is in the history, not written twice.
        assert.deepEqual(chat.snapshot()!.history.at(-1), { role: 'assistant', blocks: [], interrupted: true });
        assert.equal(chat.snapshot()!.history.filter(message => JSON.stringify(message).includes('Let me look.')).length, 1);
        chat.keep([{ type: 'TextDelta', requestId: 'r1', text: 'Found it.' }]);
        const history = chat.snapshot()!.history;
        assert.deepEqual(history.at(-1)?.blocks, [{ type: 'text', text: 'Found it.' }]);
        assert.equal(history.length, 4);
    });

    it('lets a send wait for the running request: idle resolves at its end, at once when none runs', async () => {
        const chat = seeded();
        await chat.idle();
        chat.begin('r1');
        let resolved = false;
        const waiting = chat.idle().then(() => { resolved = true; });
        await new Promise(resolve => setTimeout(resolve, 5));
        assert.equal(resolved, false);
        chat.end();
        await waiting;
        assert.equal(resolved, true);
    });
});
