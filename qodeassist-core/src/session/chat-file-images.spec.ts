import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentLoader } from '../context/content-loader';
import { ContextAssembler } from '../context/context-assembler';
import { HistoryMessage } from '../context/conversation-history';
import { TokenEstimator } from '../context/token-estimator';
import { KnownSecrets } from '../wire/redaction';
import { PNG_1X1 } from '../wire/tool-result-images.spec-support';
import { CHAT_FILE_VERSION, ChatStore, StoredChat } from './chat-store';

/** A chat whose tool returned an image, its text holding `text`. */
function chatWithToolImage(id: string, text: string, images: unknown[] = [{ mediaType: 'image/png', data: PNG_1X1 }]): StoredChat {
    return {
        version: CHAT_FILE_VERSION, id, title: 'Screenshot', createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-01T10:05:00.000Z',
        history: [
            { role: 'user', blocks: [{ type: 'text', text: 'Take a screenshot' }] },
            { role: 'assistant', blocks: [{ type: 'tool_use', id: 'call-1', name: 'mcp_web_screenshot', input: {} }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'mcp_web_screenshot', content: text, isError: false, images: images as never }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'It shows a login form.' }] }
        ],
        edits: {}
    };
}

describe('Chat files keep the images a tool returned', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'qodeassist-chat-images-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('a tool result\'s images are written once as files of the chat, named by their hash; the chat file refers to them and holds no base64, while a key in the text is redacted', async () => {
        // A "key" that happens to be a run of the image's base64: redacting bytes as text would break the image.
        const secret = PNG_1X1.slice(20, 52);
        const secrets = new KnownSecrets();
        secrets.add(secret);
        const store = new ChatStore(join(dir, 'chats'), secrets);
        await store.save(chatWithToolImage('one', `[image image/png, 69 bytes] token ${secret}`));
        const json = readFileSync(join(dir, 'chats', 'one.json'), 'utf8');
        assert.ok(!json.includes(PNG_1X1) && !json.includes(PNG_1X1.slice(0, 40)), 'no image bytes in the chat file');
        const name = `${createHash('sha256').update(PNG_1X1).digest('hex').slice(0, 32)}.png`;
        const path = join(store.attachmentsOf('one'), name);
        assert.deepEqual(readFileSync(path), Buffer.from(PNG_1X1, 'base64'));
        const loaded = await store.load('one');
        const result = loaded.history[2].blocks[0];
        assert.ok(result.type === 'tool_result');
        assert.deepEqual(result.images, [{ mediaType: 'image/png', bytes: 69, ref: { path, name, mediaType: 'image/png' } }]);
        assert.ok(!result.content.includes(secret), 'the key in the text is redacted');
    });

    it('saved and reloaded, the chat sends the same image bytes to the next request as it would have fresh', async () => {
        const store = new ChatStore(join(dir, 'chats'));
        const fresh = chatWithToolImage('sent', '[image image/png, 69 bytes]');
        await store.save(fresh);
        const assembler = new ContextAssembler(new TokenEstimator(1), new ContentLoader());
        const request = async (history: HistoryMessage[]) => (await assembler.assemble({
            layers: [], history, pinned: [], tools: [], budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: 'k'
        })).ctx.history;
        const reloaded = await new ChatStore(join(dir, 'chats')).load('sent');
        assert.deepEqual(await request(reloaded.history), await request(fresh.history));
        const result = (await request(reloaded.history))[2].content[0];
        assert.ok(result.type === 'tool_result');
        assert.deepEqual(result.images, [{ media_type: 'image/png', data: PNG_1X1 }]);
    });

    it('a save every few seconds writes an image once: a file changed since is not written over, and the send holds it to the rules again', async () => {
        const store = new ChatStore(join(dir, 'chats'));
        const chat = chatWithToolImage('twice', 'Screenshot.');
        await store.save(chat);
        const [file] = readdirSync(store.attachmentsOf('twice'));
        writeFileSync(join(store.attachmentsOf('twice'), file), '<svg onload="x()"/>');
        await store.save(chat);
        assert.equal(readFileSync(join(store.attachmentsOf('twice'), file), 'utf8'), '<svg onload="x()"/>');
        const { ctx, manifest } = await new ContextAssembler(new TokenEstimator(1), new ContentLoader()).assemble({
            layers: [], history: (await store.load('twice')).history, pinned: [], tools: [], budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: 'k'
        });
        const result = ctx.history[2].content[0];
        assert.ok(result.type === 'tool_result' && result.images === undefined, 'a file that is no PNG any more is not sent as one');
        assert.ok(!JSON.stringify(ctx).includes(Buffer.from('<svg onload="x()"/>').toString('base64')));
        assert.deepEqual(manifest.filters, [{ kind: 'failed_load', detail: '1 image(s) of mcp_web_screenshot no longer of their type or within the limits' }]);
    });

    it('a chat file of the earlier format, its images inline, still loads and sends them; its next save moves them to files', async () => {
        mkdirSync(join(dir, 'chats'), { recursive: true });
        writeFileSync(join(dir, 'chats', 'inline.json'), JSON.stringify(chatWithToolImage('inline', 'Screenshot.')));
        const store = new ChatStore(join(dir, 'chats'));
        const loaded = await store.load('inline');
        const result = loaded.history[2].blocks[0];
        assert.ok(result.type === 'tool_result');
        assert.deepEqual(result.images, [{ mediaType: 'image/png', data: PNG_1X1 }]);
        await store.save(loaded);
        assert.ok(!readFileSync(join(dir, 'chats', 'inline.json'), 'utf8').includes(PNG_1X1));
        assert.equal(readdirSync(store.attachmentsOf('inline')).length, 1);
    });

    it('attack: an image ref outside the chat\'s folder or at a link (symbolic or hard) is dropped with a notice, the chat still opens, and the file named is never read nor touched', async () => {
        const chats = join(dir, 'chats');
        const store = new ChatStore(chats);
        mkdirSync(store.attachmentsOf('evil'), { recursive: true });
        const outside = join(dir, 'id_rsa.png');
        writeFileSync(outside, 'PRIVATE KEY MARKER');
        symlinkSync(outside, join(store.attachmentsOf('evil'), 'linked.png'));
        linkSync(outside, join(store.attachmentsOf('evil'), 'hard.png'));
        const ref = (path: string) => ({ mediaType: 'image/png', bytes: 18, ref: { path, name: 'x.png', mediaType: 'image/png' } });
        writeFileSync(join(chats, 'evil.json'), JSON.stringify(chatWithToolImage('evil', 'Screenshot.', [
            ref(outside), ref(join(store.attachmentsOf('evil'), '..', '..', '..', 'id_rsa.png')), ref(join(store.attachmentsOf('evil'), 'linked.png')),
            ref(join(store.attachmentsOf('evil'), 'hard.png'))
        ])));
        const loaded = await store.load('evil');
        const result = loaded.history[2].blocks[0];
        assert.ok(result.type === 'tool_result');
        assert.equal(result.images, undefined);
        assert.equal(result.content.split('\n').filter(line => line.startsWith('[an image of this result was left out')).length, 4);
        const { ctx } = await new ContextAssembler(new TokenEstimator(1), new ContentLoader()).assemble({
            layers: [], history: loaded.history, pinned: [], tools: [], budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: 'k'
        });
        const sent = JSON.stringify(ctx);
        assert.ok(!sent.includes(Buffer.from('PRIVATE KEY MARKER').toString('base64')) && !sent.includes('PRIVATE KEY MARKER'), 'the outside file is not sent');
        assert.equal(readFileSync(outside, 'utf8'), 'PRIVATE KEY MARKER');
        assert.ok(lstatSync(join(store.attachmentsOf('evil'), 'linked.png')).isSymbolicLink(), 'the link is left as it is');
    });

    it('a conflict copy gets its own copies of the images and refers to them', async () => {
        const store = new ChatStore(join(dir, 'chats'));
        const chat = chatWithToolImage('main', 'Screenshot.');
        await store.save(chat);
        const { id } = await store.saveConflictCopy(await store.load('main'));
        const result = (await store.load(id)).history[2].blocks[0];
        assert.ok(result.type === 'tool_result' && result.images?.length === 1 && 'ref' in result.images[0]);
        assert.ok(store.ownsAttachment(id, result.images[0].ref.path));
        assert.deepEqual(readFileSync(result.images[0].ref.path), Buffer.from(PNG_1X1, 'base64'));
    });

    it('deleting the chat deletes its images', async () => {
        const store = new ChatStore(join(dir, 'chats'));
        await store.save(chatWithToolImage('gone', 'Screenshot.'));
        assert.equal(readdirSync(store.attachmentsOf('gone')).length, 1);
        await store.delete('gone');
        assert.ok(!existsSync(join(dir, 'chats', 'gone')));
    });

    it('a chat file written before tool results had images still loads, its results without images', async () => {
        const old = chatWithToolImage('old', 'Screenshot saved.');
        delete (old.history[2].blocks[0] as { images?: unknown }).images;
        mkdirSync(join(dir, 'chats'), { recursive: true });
        writeFileSync(join(dir, 'chats', 'old.json'), JSON.stringify(old));
        const loaded = await new ChatStore(join(dir, 'chats')).load('old');
        assert.deepEqual(loaded.history, old.history);
    });

    it('attack: a crafted file\'s images against the rules (a type off the allowlist, bytes not of their type, not base64) are left out and the chat still opens', async () => {
        const gif = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1').toString('base64');
        const crafted = chatWithToolImage('crafted', 'Screenshot.', [
            { mediaType: 'image/svg+xml', data: Buffer.from('<svg onload="x()"/>').toString('base64') },
            { mediaType: 'image/png', data: gif },
            { mediaType: 'image/png', data: '<<not base64>>' },
            { mediaType: 'image/png', data: PNG_1X1 }
        ]);
        mkdirSync(join(dir, 'chats'), { recursive: true });
        writeFileSync(join(dir, 'chats', 'crafted.json'), JSON.stringify(crafted));
        const loaded = await new ChatStore(join(dir, 'chats')).load('crafted');
        const result = loaded.history[2].blocks[0];
        assert.ok(result.type === 'tool_result');
        assert.deepEqual(result.images, [{ mediaType: 'image/png', data: PNG_1X1 }]);
    });
});
