import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHAT_FILE_VERSION, ChatStore, StoredChat } from '../../session/chat-store';
import { PNG_1X1 } from '../../wire/tool-result-images.spec-support';
import { ChatLibrary } from './chat-library';
import { ChatOwners } from './chat-owners';

const storage = { location: 'user' as const };

function chatWithToolImage(id: string): StoredChat {
    return {
        version: CHAT_FILE_VERSION, id, title: 'Screenshot', createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-01T10:05:00.000Z',
        history: [
            { role: 'user', blocks: [{ type: 'text', text: 'Take a screenshot' }] },
            { role: 'assistant', blocks: [{ type: 'tool_use', id: 'call-1', name: 'mcp_web_screenshot', input: {} }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'mcp_web_screenshot', content: '[image image/png, 69 bytes]', isError: false, images: [{ mediaType: 'image/png', data: PNG_1X1 }] }] }
        ],
        edits: {}
    };
}

describe('ChatLibrary: a tool result\'s images in a JSON export and import', () => {
    let dir: string;
    let store: ChatStore;
    let library: ChatLibrary;
    beforeEach(() => {
        dir = mkdtempSync(join(tmpdir(), 'qodeassist-export-images-'));
        store = new ChatStore(join(dir, 'chats'));
        library = new ChatLibrary(new ChatOwners(), () => store);
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('round trip: the export carries the image\'s bytes, the import writes them as the new chat\'s own file with the same bytes', async () => {
        await store.save(chatWithToolImage('source'));
        const exported = JSON.parse(await library.exportJson(storage, 'source'));
        assert.deepEqual(exported.attachments.map((attachment: { base64: string; mediaType: string }) => [attachment.mediaType, attachment.base64]), [['image/png', PNG_1X1]]);
        const imported = await library.importJson(storage, JSON.stringify(exported));
        assert.deepEqual(imported.notes, []);
        const chat = await store.load(imported.chatId);
        const result = chat.history[2].blocks[0];
        assert.ok(result.type === 'tool_result' && result.images?.length === 1 && 'ref' in result.images[0]);
        assert.ok(store.ownsAttachment(imported.chatId, result.images[0].ref.path), 'the new chat\'s own copy, not the source\'s');
        assert.deepEqual(readFileSync(result.images[0].ref.path), Buffer.from(PNG_1X1, 'base64'));
        assert.ok(!readFileSync(join(dir, 'chats', `${imported.chatId}.json`), 'utf8').includes(PNG_1X1));
    });

    it('attack: an export whose image bytes are no image of its type (or are missing) imports the chat without it, saying so', async () => {
        await store.save(chatWithToolImage('source'));
        const exported = JSON.parse(await library.exportJson(storage, 'source'));
        exported.attachments[0].base64 = Buffer.from('<svg onload="x()"/>').toString('base64');
        const imported = await library.importJson(storage, JSON.stringify(exported));
        assert.deepEqual(imported.notes, ['An image mcp_web_screenshot returned was not an image the chat takes; it is left out.']);
        const result = (await store.load(imported.chatId)).history[2].blocks[0];
        assert.ok(result.type === 'tool_result' && result.images === undefined);
        assert.deepEqual(readdirSync(join(dir, 'chats')).filter(name => name === imported.chatId), [], 'no folder of files for the new chat');
    });
});
