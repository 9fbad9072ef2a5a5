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
