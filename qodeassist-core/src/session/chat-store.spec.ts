import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { KnownSecrets } from '../wire/redaction';
import { CHAT_FILE_VERSION, ChatStore, chatToMarkdown, StoredChat, titleOf } from './chat-store';

function chat(id: string, overrides: Partial<StoredChat> = {}): StoredChat {
    return {
        version: CHAT_FILE_VERSION, id, title: 'Fix the parser', createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-01T10:05:00.000Z',
        history: [
            { role: 'user', blocks: [{ type: 'text', text: 'Fix the parser' }] },
            { role: 'assistant', blocks: [{ type: 'thinking', text: 'look', signature: 's' }, { type: 'tool_use', id: 'call-1', name: 'edit_file', input: { path: 'a.ts' } }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'edit_file', content: 'Edited a.ts', isError: false }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'Done.' }], usage: { inputTokens: 120, outputTokens: 8, cachedTokens: 100 } }
        ],
        edits: { 'call-1': { path: 'a.ts', absolutePath: '/w/a.ts', diff: '--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n', created: false, state: 'applied' } },
        ...overrides
    };
}

describe('ChatStore', () => {
    let dir: string;
    let store: ChatStore;
    beforeEach(() => {
        dir = mkdtempSync(join(tmpdir(), 'qodeassist-chats-'));
        store = new ChatStore(join(dir, 'chats'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('saves and loads a chat unchanged, newest first in the list, with no temporary file left', async () => {
        await store.save(chat('one'));
        await store.save(chat('two', { title: 'Second', updatedAt: '2026-11-02T00:00:00.000Z', compressedFrom: 'one' }));
        assert.deepEqual(await store.load('one'), chat('one'));
        const { chats, unreadable } = await store.list();
        assert.deepEqual(chats.map(c => [c.id, c.title, c.messages, c.compressedFrom]), [['two', 'Second', 4, 'one'], ['one', 'Fix the parser', 4, undefined]]);
        assert.deepEqual(unreadable, []);
        assert.deepEqual(readdirSync(join(dir, 'chats')).sort(), ['.gitignore', 'one.json', 'two.json']);
        assert.equal(statSync(join(dir, 'chats', 'one.json')).mode & 0o777, 0o600);
    });

    it('an empty or missing folder lists nothing', async () => {
        assert.deepEqual(await store.list(), { chats: [], unreadable: [] });
    });

    const broken: Array<[string, string, RegExp]> = [
        ['not JSON', '{"version": 1,', /one\.json is not valid JSON .*left as it is; fix or delete it/],
        ['a newer version', JSON.stringify({ ...chat('one'), version: 9 }), /has version 9, newer than this QodeAssist reads \(1\)\. Update QodeAssist/],
        ['a block of an unknown type', JSON.stringify(chat('one', { history: [{ role: 'user', blocks: [{ type: 'video' } as never] }] })), /one\.json is not a QodeAssist chat: history\.0\.blocks\.0\.type: /],
        ['no edits record', JSON.stringify({ ...chat('one'), edits: undefined }), /not a QodeAssist chat: edits: /],
        ['another chat\'s id', JSON.stringify(chat('three')), /one\.json holds chat "three", not "one"\. It was left as it is; rename it to three\.json or delete it/],
        [
            'an attachment outside its folder',
            JSON.stringify(chat('one', { history: [{ role: 'user', blocks: [{ type: 'attachment', ref: { path: '/etc/passwd', name: 'passwd', mediaType: 'text/plain' } }] }] })),
            /one\.json refers to the attachment "\/etc\/passwd", which is not a file in its own folder .*chats\/one\/attachments \(or is a link\)\. It was not opened and left as it is/
        ]
    ];
    for (const [what, text, message] of broken) {
        it(`a file with ${what} is reported by name, listed as unreadable and left untouched`, async () => {
            await store.save(chat('two'));
            writeFileSync(join(dir, 'chats', 'one.json'), text);
            await assert.rejects(store.load('one'), (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Config' && message.test(error.message));
            const { chats, unreadable } = await store.list();
            assert.deepEqual(chats.map(c => c.id), ['two']);
            assert.equal(unreadable.length, 1);
            assert.match(unreadable[0].reason, message);
            assert.equal(readFileSync(join(dir, 'chats', 'one.json'), 'utf8'), text);
        });
    }

    it('refuses ids that could leave the folder and names a missing chat', async () => {
        await assert.rejects(store.load('../etc/passwd'), /"\.\.\/etc\/passwd" is not a chat id/);
        await assert.rejects(store.load('gone'), /There is no saved chat gone in .*chats; it was deleted or the history location changed/);
    });

    it('renames, refuses an empty title, and deletes a chat with its attachments', async () => {
        await store.save(chat('one'));
        assert.equal((await store.rename('one', '  Parser fix ')).title, 'Parser fix');
        assert.equal((await store.load('one')).title, 'Parser fix');
        await assert.rejects(store.rename('one', ' '), /A chat title cannot be empty/);
        const ref = await store.storeAttachment('one', 'shot.png', 'image/png', Buffer.from([1, 2, 3]));
        const again = await store.storeAttachment('one', 'shot.png', 'image/png', Buffer.from([4]));
        assert.equal(ref.path, join(dir, 'chats', 'one', 'attachments', 'shot.png'));
        assert.equal(again.path, join(dir, 'chats', 'one', 'attachments', 'shot-2.png'), 'a second file of the same name does not overwrite the first');
        assert.deepEqual([...readFileSync(ref.path)], [1, 2, 3]);
        await store.delete('one');
        assert.deepEqual(readdirSync(join(dir, 'chats')), ['.gitignore'], 'the folder\'s .gitignore stays');
    });

    it('redacts the keys it was given on save, keeping ids, file references and opaque provider blobs byte-exact', async () => {
        const known = new KnownSecrets();
        known.add('hunter2-hunter2');
        const secretive = new ChatStore(join(dir, 'chats'), known);
        const leaky = chat('one', {
            history: [
                { role: 'assistant', blocks: [
                    { type: 'thinking', text: 'plain', signature: 'hunter2-hunter2' },
                    { type: 'redacted_thinking', data: 'hunter2-hunter2' },
                    { type: 'tool_use', id: 'call-1', name: 'run', input: { argv: ['--key', 'hunter2-hunter2'] } }
                ] },
                { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'run', content: 'key hunter2-hunter2 ok', isError: false }] }
            ]
        });
        await secretive.save(leaky);
        assert.deepEqual((await secretive.load('one')).history, [
            { role: 'assistant', blocks: [
                { type: 'thinking', text: 'plain', signature: 'hunter2-hunter2' },
                { type: 'redacted_thinking', data: 'hunter2-hunter2' },
                { type: 'tool_use', id: 'call-1', name: 'run', input: { argv: ['--key', '[REDACTED]'] } }
            ] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'run', content: 'key [REDACTED] ok', isError: false }] }
        ]);
        assert.equal(leaky.history[1].blocks[0].type === 'tool_result' && leaky.history[1].blocks[0].content, 'key hunter2-hunter2 ok', 'the chat in memory is not changed');
    });

    it('keeps an edit\'s diff replayable: a real key leaves it, code that only looks like a key stays', async () => {
        const known = new KnownSecrets();
        known.add('hunter2-hunter2');
        const secretive = new ChatStore(join(dir, 'chats'), known);
        const diff = '@@ -1,2 +1,2 @@\n-const auth = { "Authorization": "Bearer example-token-0123456789" };\n+const key = "hunter2-hunter2";\n';
        await secretive.save(chat('one', { edits: { 'call-1': { path: 'a.ts', absolutePath: '/w/a.ts', diff, created: false, state: 'applied' } } }));
        assert.equal((await secretive.load('one')).edits['call-1'].diff,
            '@@ -1,2 +1,2 @@\n-const auth = { "Authorization": "Bearer example-token-0123456789" };\n+const key = "[REDACTED]";\n');
    });

    it('drops the signature of a thinking block whose text redaction changed, since the provider would refuse it', async () => {
        const known = new KnownSecrets();
        known.add('hunter2-hunter2');
        const secretive = new ChatStore(join(dir, 'chats'), known);
        await secretive.save(chat('one', { history: [{ role: 'assistant', blocks: [{ type: 'thinking', text: 'use hunter2-hunter2', signature: 'c2ln' }] }] }));
        assert.deepEqual((await secretive.load('one')).history[0].blocks, [{ type: 'thinking', text: 'use [REDACTED]' }]);
    });

    it('gives a chats folder that already existed (a repository may ship it) its .gitignore too', async () => {
        mkdirSync(join(dir, 'chats'));
        await store.save(chat('one'));
        assert.deepEqual(readdirSync(join(dir, 'chats')).sort(), ['.gitignore', 'one.json']);
        assert.equal(readFileSync(join(dir, 'chats', '.gitignore'), 'utf8'), '*\n');
    });

    it('owns only the copies directly in a chat\'s attachment folder', () => {
        const folder = join(dir, 'chats', 'one', 'attachments');
        assert.equal(store.ownsAttachment('one', join(folder, 'shot.png')), true);
        assert.equal(store.ownsAttachment('one', `${folder}/../../two/attachments/x.png`), false, 'no way out with ..');
        assert.equal(store.ownsAttachment('one', join(dir, 'chats', 'two', 'attachments', 'x.png')), false, 'another chat\'s copy');
        assert.equal(store.ownsAttachment('one', join(folder, 'sub', 'x.png')), false);
        assert.equal(store.ownsAttachment('one', 'shot.png'), false, 'a relative path');
        assert.throws(() => store.ownsAttachment('../one', join(folder, 'shot.png')), /is not a chat id/);
    });

    it('titles a chat by its first user text, shortened', () => {
        assert.equal(titleOf([]), 'New chat');
        assert.equal(titleOf([{ role: 'user', blocks: [{ type: 'text', text: '  Explain\n this  ' }] }]), 'Explain this');
        assert.equal(titleOf([{ role: 'user', blocks: [{ type: 'text', text: 'x'.repeat(100) }] }]).length, 60);
    });

    it('exports Markdown with the text, the tool calls and the edits as diffs', () => {
        assert.equal(chatToMarkdown(chat('one')), [
            '# Fix the parser', '', '_2026-11-01T10:05:00.000Z_', '',
            '## You', '', 'Fix the parser', '',
            '## QodeAssist', '', '> Tool `edit_file` `{"path":"a.ts"}`', '',
            '```diff\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n```', '',
            '## QodeAssist', '', 'Done.', ''
        ].join('\n'));
    });

    it('exports Markdown without anything shaped like a key, as a chat saved before redaction may hold one', () => {
        const markdown = chatToMarkdown(chat('one', { history: [{ role: 'user', blocks: [{ type: 'text', text: 'use sk-proj-ABCDEFGHIJKLMNOP' }] }] }));
        assert.match(markdown, /use sk-proj-\[REDACTED\]/);
        assert.doesNotMatch(markdown, /ABCDEFGHIJKLMNOP/);
    });

    describe('revision-checked saves', () => {
        it('writes over the revision it read and counts up; the file it left is recognised without reading it', async () => {
            const first = await store.saveOver(chat('one'), { revision: 0 });
            assert.ok('saved' in first && first.saved.revision === 1);
            const second = await store.saveOver(chat('one', { title: 'Renamed' }), 'saved' in first ? first.saved : { revision: 0 });
            assert.ok('saved' in second && second.saved.revision === 2);
            assert.equal((await store.load('one')).revision, 2);
            const opened = await store.open('one');
            assert.deepEqual(opened.state, 'saved' in second ? second.saved : undefined, 'open reports the state the last save left');
        });

        it('refuses to overwrite what another writer saved since, and leaves the file byte for byte', async () => {
            await store.save(chat('one', { revision: 4 }));
            const { state } = await store.open('one');
            // Another backend writes its own turn (revision 5).
            await store.save(chat('one', { revision: 5, history: [...chat('one').history, { role: 'user', blocks: [{ type: 'text', text: 'theirs' }] }] }));
            const before = readFileSync(join(dir, 'chats', 'one.json'), 'utf8');
            const outcome = await store.saveOver(chat('one', { history: [...chat('one').history, { role: 'user', blocks: [{ type: 'text', text: 'mine' }] }] }), state);
            assert.ok('conflict' in outcome && /revision 5, this copy started from 4/.test(outcome.conflict), JSON.stringify(outcome));
            assert.equal(readFileSync(join(dir, 'chats', 'one.json'), 'utf8'), before);
        });

        it('refuses a file changed by hand even when its revision was left as it was', async () => {
            const saved = await store.saveOver(chat('one'), { revision: 0 });
            const file = join(dir, 'chats', 'one.json');
            const edited = readFileSync(file, 'utf8').replace('Done.', 'Done, edited by hand.');
            writeFileSync(file, edited);
            const outcome = await store.saveOver(chat('one', { history: [...chat('one').history, { role: 'user', blocks: [{ type: 'text', text: 'mine' }] }] }), 'saved' in saved ? saved.saved : { revision: 0 });
            assert.ok('conflict' in outcome);
            assert.equal(readFileSync(file, 'utf8'), edited);
        });

        it('writes over another writer\'s save when this copy continues it (nothing on disk is lost), above its revision', async () => {
            await store.save(chat('one', { revision: 1, history: chat('one').history.slice(0, 1) }));
            const stale = { revision: 0 };
            const outcome = await store.saveOver(chat('one'), stale);
            assert.ok('saved' in outcome && outcome.saved.revision === 2, JSON.stringify(outcome));
            assert.equal((await store.load('one')).history.length, 4);
        });

        it('never overwrites a file that does not parse any more', async () => {
            const saved = await store.saveOver(chat('one'), { revision: 0 });
            writeFileSync(join(dir, 'chats', 'one.json'), '{ half a file');
            const outcome = await store.saveOver(chat('one'), 'saved' in saved ? saved.saved : { revision: 0 });
            assert.ok('conflict' in outcome && /cannot be read now/.test(outcome.conflict));
            assert.equal(readFileSync(join(dir, 'chats', 'one.json'), 'utf8'), '{ half a file');
        });

        it('keeps a conflict copy as a chat of its own, its attachments copied along, loadable and listed', async () => {
            const ref = await store.storeAttachment('one', 'shot.png', 'image/png', Buffer.from([1, 2, 3]));
            const message = { role: 'user' as const, blocks: [{ type: 'image' as const, ref }, { type: 'text' as const, text: 'see' }] };
            // A version kept inside a version refers to the attachment too: the copy must refer to its own copy everywhere.
            const inner = { id: 'v2', at: 1, messages: [message], edits: {}, createdAt: 'x', reason: 'regenerate' as const };
            const mine = chat('one', { history: [message], branches: [{ id: 'v1', at: 0, messages: [message], edits: {}, createdAt: 'x', reason: 'edit', branches: [inner] }] });
            const copy = await store.saveConflictCopy(mine);
            assert.match(copy.id, /^one-conflict-[0-9a-z]+$/);
            const loaded = await store.load(copy.id);
            assert.equal(loaded.title, 'Fix the parser (conflict copy)');
            const image = loaded.history[0].blocks[0];
            assert.ok(image.type === 'image' && store.ownsAttachment(copy.id, image.ref.path));
            assert.deepEqual([...readFileSync(image.ref.path)], [1, 2, 3]);
            const versionImage = loaded.branches?.[0].branches?.[0].messages[0].blocks[0];
            assert.ok(versionImage?.type === 'image' && store.ownsAttachment(copy.id, versionImage.ref.path));
            assert.deepEqual((await store.list()).chats.map(summary => summary.id), [copy.id]);
        });

        it('reads an answer saved mid-stream (interrupted) and files of older versions without a revision', async () => {
            await store.save(chat('one', { history: [...chat('one').history, { role: 'assistant', blocks: [{ type: 'text', text: 'half' }], interrupted: true }] }));
            assert.equal((await store.load('one')).history.at(-1)?.interrupted, true);
            const old = chat('two');
            writeFileSync(join(dir, 'chats', 'two.json'), JSON.stringify(old));
            assert.equal((await store.open('two')).state.revision, 0);
        });

        it('removes temporary files a crashed writer left, once, and keeps those of writers still running', async () => {
            mkdirSync(join(dir, 'chats'), { recursive: true });
            const gone = `one.json.999999999-${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.tmp`;
            const running = `one.json.${process.ppid}-${'1'.repeat(8)}-1111-1111-1111-${'1'.repeat(12)}.tmp`;
            writeFileSync(join(dir, 'chats', gone), '{ half');
            writeFileSync(join(dir, 'chats', running), '{ being written');
            await new ChatStore(join(dir, 'chats')).list();
            const left = readdirSync(join(dir, 'chats'));
            assert.ok(!left.includes(gone), 'the dead writer\'s file is gone');
            assert.ok(left.includes(running), 'a running writer\'s file stays');
        });
    });
});
