import * as assert from 'node:assert/strict';
import { HistoryMessage } from '../../context/conversation-history';
import { CHAT_FILE_VERSION } from '../../session/chat-store';
import { PNG_1X1 } from '../../wire/tool-result-images.spec-support';
import { eventsForView, openedForView } from './chat-view-images';

describe('What a view gets of a tool result\'s images', () => {
    const result = (images: NonNullable<Extract<HistoryMessage['blocks'][number], { type: 'tool_result' }>['images']>): HistoryMessage => ({
        role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'mcp_web_screenshot', content: '[image image/png, 69 bytes]', isError: false, images }]
    });
    const fresh = result([{ mediaType: 'image/png', data: PNG_1X1 }]);
    const saved = result([{ mediaType: 'image/png', bytes: 69, ref: { path: '/home/u/.qodeassist/chats/c/attachments/ab.png', name: 'ab.png', mediaType: 'image/png' } }]);
    const summary = result([{ mediaType: 'image/png', bytes: 69 }]);

    it('an opened chat\'s history, versions and running request carry each image as its type and size, never its bytes nor its path', () => {
        const text: HistoryMessage = { role: 'user', blocks: [{ type: 'text', text: 'look' }] };
        const opened = openedForView({
            chatId: 'c',
            chat: {
                version: CHAT_FILE_VERSION, id: 'c', title: 't', createdAt: '', updatedAt: '', history: [text, fresh], edits: {},
                branches: [{ id: 'b', at: 1, messages: [saved], edits: {}, createdAt: '', reason: 'regenerate' }]
            },
            live: { requestId: 'r', events: [{ type: 'History', history: [saved], edits: {}, branches: [] }] }
        });
        assert.deepEqual(opened.chat?.history, [text, summary]);
        assert.equal(opened.chat?.history[0], text, 'a message without images is passed as it is');
        assert.deepEqual(opened.chat?.branches?.[0].messages, [summary]);
        assert.deepEqual(opened.live?.events, [{ type: 'History', history: [summary], edits: {}, branches: [] }]);
        assert.ok(!JSON.stringify(opened).includes(PNG_1X1.slice(0, 16)) && !JSON.stringify(opened).includes('attachments/ab.png'));
    });

    it('a history event and a user message event lose the bytes the same way', () => {
        assert.deepEqual(eventsForView([{ type: 'History', history: [fresh], edits: {}, branches: [] }, { type: 'UserMessage', message: fresh }]),
            [{ type: 'History', history: [summary], edits: {}, branches: [] }, { type: 'UserMessage', message: summary }]);
    });
});
