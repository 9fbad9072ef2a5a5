import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { CHAT_FILE_VERSION, ChatStore, StoredChat } from '@qodeassist/core';
import { openAITextRecording, useFakeProviderSuite } from '@qodeassist/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatStorage, QodeAssistChatClient, SessionEvent } from '../common/chat-protocol';
import { useChatService } from './chat-service.spec-support';

/** A real 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

describe('QodeAssistChatServiceImpl: a tool result\'s images', () => {
    const suite = useFakeProviderSuite();
    const { server, configurations } = suite;
    const received: SessionEvent[] = [];
    const views: unknown[] = [];
    const client: QodeAssistChatClient = {
        onSessionEvents: (_sessionId, events) => {
            views.push(...events);
            received.push(...events.flatMap(event => 'requestId' in event ? [event as SessionEvent] : []));
        },
        requestToolPermission: async () => 'deny',
        requestAgentPermission: async () => ({ cancelled: true }),
        getDiagnostics: async () => [],
        readOpenDocument: async () => undefined,
        writeDocument: async () => undefined,
        onChatNotice: () => undefined
    };
    const connection = useChatService(configurations, client, 'qodeassist-home-');
    const storage: ChatStorage = { location: 'user' };

    async function finished(): Promise<SessionEvent> {
        for (;;) {
            const terminal = received.find(event => ['Finished', 'Failed', 'Cancelled'].includes(event.type));
            if (terminal) {
                return terminal;
            }
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    }

    it('a saved chat\'s image reaches the view as its type and size only, and the next request as the same bytes', async () => {
        const { service, home } = connection;
        const store = new ChatStore(join(home, '.qodeassist', 'chats'));
        const chat: StoredChat = {
            version: CHAT_FILE_VERSION, id: 'shot', title: 'Screenshot', createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-01T10:05:00.000Z',
            history: [
                { role: 'user', blocks: [{ type: 'text', text: 'Take a screenshot' }] },
                { role: 'assistant', blocks: [{ type: 'tool_use', id: 'call-1', name: 'mcp_web_screenshot', input: {} }] },
                { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'mcp_web_screenshot', content: '[image image/png, 69 bytes]', isError: false, images: [{ mediaType: 'image/png', data: PNG }] }] },
                { role: 'assistant', blocks: [{ type: 'text', text: 'A login form.' }] }
            ],
            edits: {}
        };
        await store.save(chat);
        assert.ok(!readFileSync(join(home, '.qodeassist', 'chats', 'shot.json'), 'utf8').includes(PNG));

        const opened = await service.openSession(storage, 'shot');
        const result = opened.chat?.history[2].blocks[0];
        assert.deepEqual(result?.type === 'tool_result' && result.images, [{ mediaType: 'image/png', bytes: 69 }]);
        assert.ok(!JSON.stringify(opened).includes(PNG.slice(0, 24)), 'no image bytes go to the view');
        assert.ok(!JSON.stringify(opened.chat?.history).includes(store.attachmentsOf('shot')), 'nor the path of its file');

        server.enqueue({ kind: 'replay', recording: openAITextRecording('Still a login form.') });
        await service.send('shot', { text: 'What was on it?', attachments: [] }, {});
        assert.equal((await finished()).type, 'Finished');
        assert.ok(server.requests[0].body.includes(PNG), 'the provider got the image\'s bytes');
        assert.ok(!JSON.stringify(views).includes(PNG.slice(0, 24)), 'nor did any event to the view carry them');
    });
});
