import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { checkpointFolderOf, WorkspaceCheckpoints } from './chat-checkpoints';

/** Every file and link under `root` (`.git` left out) with a hash of its bytes and its executable bit: equal maps, byte-identical trees. */
export function treeHashes(root: string, skip: (path: string) => boolean = () => false): Map<string, string> {
    const hashes = new Map<string, string>();
    const walk = (folder: string) => {
        for (const name of readdirSync(folder)) {
            const absolute = join(folder, name);
            const path = relative(root, absolute).split('\\').join('/');
            if (name === '.git' || skip(path)) {
                continue;
            }
            const stats = lstatSync(absolute);
            if (stats.isDirectory()) {
                walk(absolute);
            } else if (stats.isSymbolicLink()) {
                hashes.set(path, `link:${readlinkSync(absolute)}`);
            } else {
                hashes.set(path, `${createHash('sha256').update(readFileSync(absolute)).digest('hex')}:${stats.mode & 0o111 ? 'x' : '-'}`);
            }
        }
    };
    walk(root);
    return hashes;
}

describe('chat checkpoints: restore is byte-exact', () => {
    let base: string;
    let workspace: string;
    let checkpoints: WorkspaceCheckpoints;
    const write = (path: string, text: string | Buffer) => {
        mkdirSync(join(workspace, path, '..'), { recursive: true });
        writeFileSync(join(workspace, path), text);
    };
    const read = (path: string) => readFileSync(join(workspace, path), 'utf8');

    beforeEach(() => {
        base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-checkpoints-')));
        workspace = join(base, 'workspace');
        mkdirSync(workspace);
        checkpoints = new WorkspaceCheckpoints(join(base, 'state', '.qodeassist', 'checkpoints'), { maxFileBytes: 1024 });
        write('src/app.ts', 'export const a = 1;\n');
        write('README.md', '# project\r\nwindows line ends kept\r\n');
        write('gone.txt', 'deleted by the agent\n');
        write('run.sh', '#!/bin/sh\necho hi\n');
        chmodSync(join(workspace, 'run.sh'), 0o755);
    });

    afterEach(() => rmSync(base, { recursive: true, force: true }));

    it('puts back an edited file, a deleted file and removes a created one and its nested folders', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        const before = treeHashes(workspace);
        await chat.beforeTurn(0);
        write('src/app.ts', 'export const a = 2;\n');
        unlinkSync(join(workspace, 'gone.txt'));
        write('new/deeply/nested/file.ts', 'created\n');
        write('created.txt', 'new\n');

        const result = await chat.restore(0);

        assert.deepEqual(treeHashes(workspace), before);
        assert.equal(existsSync(join(workspace, 'new')), false, 'the created folders are gone');
        assert.deepEqual(result.changed.map(change => `${change.kind} ${change.path}`).sort(),
            ['added gone.txt', 'deleted created.txt', 'deleted new/deeply/nested/file.ts', 'modified src/app.ts']);
    });

    it('puts back what a shell command wrote, and the executable bit it changed', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        const before = treeHashes(workspace);
        await chat.beforeTurn(0);
        execFileSync('sh', ['-c', 'echo x > made-by-command.txt && chmod -x run.sh && printf "\\0binary" > src/blob.bin'], { cwd: workspace });

        await chat.restore(0);

        assert.deepEqual(treeHashes(workspace), before);
        assert.ok(statSync(join(workspace, 'run.sh')).mode & 0o100, 'run.sh is executable again');
    });

    it('keeps links as links: one replaced by a file is a link again, never written through', async () => {
        const outside = join(base, 'outside.txt');
        writeFileSync(outside, 'outside\n');
        symlinkSync('src/app.ts', join(workspace, 'link-to-app'));
        const chat = checkpoints.forChat(workspace, 'chat-1');
        const before = treeHashes(workspace);
        await chat.beforeTurn(0);
        unlinkSync(join(workspace, 'link-to-app'));
        write('link-to-app', 'a plain file now\n');
        // The agent makes the file a link out of the workspace: the restore replaces the link, it does not write to its target.
        unlinkSync(join(workspace, 'src/app.ts'));
        symlinkSync(outside, join(workspace, 'src/app.ts'));

        await chat.restore(0);

        assert.deepEqual(treeHashes(workspace), before);
        assert.equal(readFileSync(outside, 'utf8'), 'outside\n');
    });

    it('leaves ignored and oversized files as they are and lists them in the preview', async () => {
        write('.gitignore', 'build/\n');
        write('.qodeassistignore', 'secret.env\n');
        write('build/out.js', 'old build\n');
        write('secret.env', 'KEY=1\n');
        write('big.bin', Buffer.alloc(2048, 1));
        const chat = checkpoints.forChat(workspace, 'chat-1');
        await chat.beforeTurn(0);
        write('build/out.js', 'new build\n');
        write('secret.env', 'KEY=2\n');
        write('big.bin', Buffer.alloc(4096, 2));
        write('src/app.ts', 'changed\n');

        const preview = await chat.preview(0);
        await chat.restore(0);

        assert.deepEqual(preview.files.map(file => file.path), ['src/app.ts']);
        assert.match(preview.files[0].diff, /-changed\n\+export const a = 1;/);
        assert.deepEqual(preview.leftOut.oversized, ['big.bin']);
        assert.deepEqual(preview.leftOut.ignored.sort(), ['build/', 'secret.env']);
        assert.equal(read('build/out.js'), 'new build\n');
        assert.equal(read('secret.env'), 'KEY=2\n');
        assert.equal(readFileSync(join(workspace, 'big.bin')).length, 4096);
        assert.equal(read('src/app.ts'), 'export const a = 1;\n');
    });

    it('a file that grew past the size limit is not put back over', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        await chat.beforeTurn(0);
        write('src/app.ts', Buffer.alloc(4096, 7));
        await chat.beforeTurn(1);

        await chat.restore(0);

        assert.equal(readFileSync(join(workspace, 'src/app.ts')).length, 4096);
    });

    it('undoes a restore: the workspace is as it was just before it', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        await chat.beforeTurn(0);
        write('src/app.ts', 'agent edit\n');
        write('made-by-agent/x.txt', 'x\n');
        unlinkSync(join(workspace, 'gone.txt'));
        const afterTurn = treeHashes(workspace);

        const { restoreId } = await chat.restore(0);
        assert.notDeepEqual(treeHashes(workspace), afterTurn);
        await chat.undoRestore(restoreId);

        assert.deepEqual(treeHashes(workspace), afterTurn);
        await assert.rejects(chat.undoRestore(restoreId), /undone already/);
    });

    it('reviews what changed since the chat began, keeps a file and reverts another to its checkpoint', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        await chat.beforeTurn(0);
        write('src/app.ts', 'turn 1\n');
        await chat.beforeTurn(1);
        write('notes.md', 'turn 2\n');
        unlinkSync(join(workspace, 'gone.txt'));

        const all = await chat.changes();
        const sinceSecond = await chat.changes(1);
        await chat.keep('notes.md');
        await chat.revertFile(0, 'src/app.ts');
        const afterReview = await chat.changes();

        assert.deepEqual(all.files.map(file => `${file.kind} ${file.path}`), ['deleted gone.txt', 'added notes.md', 'modified src/app.ts']);
        assert.deepEqual(sinceSecond.files.map(file => file.path), ['gone.txt', 'notes.md']);
        assert.equal(read('src/app.ts'), 'export const a = 1;\n');
        assert.equal(read('notes.md'), 'turn 2\n', 'keeping changes nothing on disk');
        assert.deepEqual(afterReview.files.map(file => file.path), ['gone.txt']);
    });

    it('compares an external agent\'s turn from its checkpoint before to the one after', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        await chat.beforeTurn(0);
        write('written-by-agent.txt', 'the agent wrote this itself\n');
        await chat.afterTurn(0);
        write('later.txt', 'after the turn\n');

        const turn = await chat.changes(0, 0);

        assert.deepEqual(turn.files.map(file => file.path), ['written-by-agent.txt']);
        assert.match(turn.files[0].diff, /^--- \/dev\/null\n\+\+\+ b\/written-by-agent\.txt\n@@ -0,0 \+1,1 @@\n\+the agent wrote this itself\n/);
    });

    it('an unchanged workspace reuses the checkpoint; the index lives outside the workspace under the workspace hash', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        const first = await chat.beforeTurn(0);
        const second = await chat.beforeTurn(1);

        assert.equal(second.commit, first.commit);
        const folder = checkpointFolderOf(checkpoints.root, workspace);
        assert.ok(existsSync(join(folder, 'git', 'HEAD')));
        assert.ok(existsSync(join(folder, 'chats', 'chat-1.json')));
        assert.deepEqual(readdirSync(workspace).sort(), ['README.md', 'gone.txt', 'run.sh', 'src']);
    });

    it('refuses a restore to a message it has no checkpoint for, changing nothing', async () => {
        const chat = checkpoints.forChat(workspace, 'chat-1');
        await chat.beforeTurn(0);
        write('src/app.ts', 'kept\n');

        await assert.rejects(chat.restore(3), /no checkpoint before message 4/);
        assert.equal(read('src/app.ts'), 'kept\n');
    });
});
