import * as assert from 'node:assert/strict';
import { chatViewId, chatViewTitle, CHAT_VIEW_ID, newChatViewKey, RandomBytes, titleFromFirstMessage } from './chat-view-identity';

/** Random bytes that repeat a given sequence of fills. */
function scripted(...fills: number[]): RandomBytes {
    let next = 0;
    return bytes => bytes.fill(fills[next++ % fills.length]);
}

describe('chat view identity', () => {
    it('names the main view by the factory id and every other view by its key', () => {
        assert.equal(CHAT_VIEW_ID, 'qodeassist-chat');
        assert.equal(chatViewId(), 'qodeassist-chat');
        assert.equal(chatViewId({}), 'qodeassist-chat');
        assert.equal(chatViewId({ instance: 0 }), 'qodeassist-chat');
        assert.equal(chatViewId({ instance: '0a1b2c3d4e5f6071' }), 'qodeassist-chat:0a1b2c3d4e5f6071');
        // A layout stored by an older version keeps its numbered views.
        assert.equal(chatViewId({ instance: 3 }), 'qodeassist-chat:3');
    });

    it('draws a key of 16 hex digits that never names a view restored from a numbered layout', () => {
        const restored = new Set([1, 2, 3].map(instance => chatViewId({ instance })));
        const keys = new Set<string>();
        for (let i = 0; i < 1000; i++) {
            const key = newChatViewKey(id => restored.has(id));
            assert.match(key, /^[0-9a-f]{16}$/);
            keys.add(key);
        }
        assert.equal(keys.size, 1000, 'a thousand new views, a thousand ids');
    });

    it('draws again when the id is taken, and says so when the random source keeps repeating', () => {
        const taken = new Set([chatViewId({ instance: '0101010101010101' })]);
        assert.equal(newChatViewKey(id => taken.has(id), scripted(1, 1, 2)), '0202020202020202');
        assert.throws(() => newChatViewKey(id => taken.has(id), scripted(1)), /No free chat view key after 8 random draws/);
    });

    it('titles a chat from its first message as the backend does: one line, at most 60 characters', () => {
        assert.equal(titleFromFirstMessage(undefined), undefined);
        assert.equal(titleFromFirstMessage('  \n '), undefined);
        assert.equal(titleFromFirstMessage('  how do I\n\treverse   a string?  '), 'how do I reverse a string?');
        const long = 'x'.repeat(70);
        assert.equal(titleFromFirstMessage(long), `${'x'.repeat(59)}…`);
        assert.equal(titleFromFirstMessage('y'.repeat(60)), 'y'.repeat(60));
    });

    it('labels a tab with a short title and keeps the whole title for the tooltip; "New chat" until there is one', () => {
        assert.deepEqual(chatViewTitle(undefined), { label: 'New chat', caption: 'New chat' });
        assert.deepEqual(chatViewTitle('  '), { label: 'New chat', caption: 'New chat' });
        assert.deepEqual(chatViewTitle('alpha question'), { label: 'alpha question', caption: 'alpha question' });
        const title = 'Why does the build fail on the second run of the tests?';
        assert.deepEqual(chatViewTitle(title), { label: 'Why does the build fail on the…', caption: title });
        const word = 'z'.repeat(40);
        assert.deepEqual(chatViewTitle(word), { label: `${'z'.repeat(31)}…`, caption: word });
        assert.ok(chatViewTitle(title).label.length <= 32);
    });
});
