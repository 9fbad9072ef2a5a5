import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAbandonedTemporaryFiles, writeFileAtomic } from './durable-file';

describe('writeFileAtomic', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'qodeassist-atomic-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('replaces a file whole with the given mode, creating its folder, and leaves no temporary file', async () => {
        const file = join(dir, 'deep', 'chat.json');
        await writeFileAtomic(file, 'one');
        assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only by default');
        await writeFileAtomic(file, 'two', 0o644);
        assert.equal(readFileSync(file, 'utf8'), 'two');
        assert.deepEqual(readdirSync(join(dir, 'deep')), ['chat.json']);
    });

    it('leaves the old file as it was when the write fails', async () => {
        const file = join(dir, 'chat.json');
        await writeFileAtomic(file, 'kept');
        // A folder in the file's place makes the rename fail.
        await assert.rejects(writeFileAtomic(join(dir, 'chat.json', 'x'), 'never'));
        assert.equal(readFileSync(file, 'utf8'), 'kept');
    });
});

describe('removeAbandonedTemporaryFiles', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'qodeassist-atomic-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const temporary = (pid: number, digit: string) => `a.json.${pid}-${digit.repeat(8)}-${digit.repeat(4)}-${digit.repeat(4)}-${digit.repeat(4)}-${digit.repeat(12)}.tmp`;

    it('removes those of processes no longer running, stale ones of running processes and this pid\'s from before this process; keeps this process\'s, fresh ones of running processes and other files', async () => {
        const dead = temporary(999_999_999, '0');
        const mine = temporary(process.pid, '1');
        const running = temporary(process.ppid, '2');
        const stale = temporary(process.ppid, '3');
        for (const name of [dead, mine, running, stale, 'a.json', 'notes.tmp']) {
            writeFileSync(join(dir, name), 'x');
        }
        const mineBefore = temporary(process.pid, '4');
        writeFileSync(join(dir, mineBefore), 'x');
        const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
        utimesSync(join(dir, stale), hourAgo, hourAgo);
        // The same pid as this process, older than it: a crashed process that had this pid (containers reuse them).
        const beforeStart = new Date(Date.now() - process.uptime() * 1000 - 60_000);
        utimesSync(join(dir, mineBefore), beforeStart, beforeStart);
        assert.deepEqual((await removeAbandonedTemporaryFiles(dir)).sort(), [dead, stale, mineBefore].sort());
        assert.deepEqual(readdirSync(dir).sort(), [mine, running, 'a.json', 'notes.tmp'].sort());
    });

    it('says nothing of a folder that does not exist', async () => {
        assert.deepEqual(await removeAbandonedTemporaryFiles(join(dir, 'missing')), []);
    });
});
