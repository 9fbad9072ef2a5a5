import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceFiles } from '../../../tools/workspace-files';
import { SourceFileCache, workspaceAccess } from './source-files';

describe('source files for completion context', () => {
    let dir: string;
    let outside: string;
    beforeEach(() => {
        dir = mkdtempSync(join(tmpdir(), 'qa-source-'));
        outside = mkdtempSync(join(tmpdir(), 'qa-outside-'));
    });
    afterEach(() => {
        rmSync(dir, { recursive: true, force: true });
        rmSync(outside, { recursive: true, force: true });
    });

    it('reads a file once while it is unchanged and again when its mtime or size changes', async () => {
        let now = 0;
        const cache = new SourceFileCache({ freshMs: 1000 }, () => now);
        const path = join(dir, 'a.ts');
        writeFileSync(path, 'one');
        const first = await cache.read(path);
        assert.equal(first?.text, 'one');
        writeFileSync(path, 'two!');
        assert.equal(await cache.read(path), first, 'within freshMs the stat is trusted');
        now = 2000;
        assert.equal((await cache.read(path))?.text, 'two!', 'after it, the change is seen');
        const second = await cache.read(path);
        now = 4000;
        assert.equal(await cache.read(path), second, 'the same version is the same object');
        utimesSync(path, new Date(2020, 1, 1), new Date(2020, 1, 1));
        now = 6000;
        assert.notEqual(await cache.read(path), second, 'a new mtime is a new version');
    });

    it('keeps derived data with the version it came from', async () => {
        let now = 0;
        const cache = new SourceFileCache({ freshMs: 10 }, () => now);
        const path = join(dir, 'a.ts');
        writeFileSync(path, 'abc');
        let computed = 0;
        const length = async () => cache.derived((await cache.read(path))!, 'length', file => (computed++, file.text.length));
        assert.deepEqual([await length(), await length()], [3, 3]);
        assert.equal(computed, 1);
        writeFileSync(path, 'abcdef');
        now = 100;
        assert.equal(await length(), 6);
        assert.equal(computed, 2);
    });

    it('answers undefined for a missing file, a folder, and a file over the size bound', async () => {
        const cache = new SourceFileCache({ maxBytes: 10 });
        writeFileSync(join(dir, 'big.ts'), 'x'.repeat(11));
        mkdirSync(join(dir, 'folder'));
        assert.equal(await cache.read(join(dir, 'missing.ts')), undefined);
        assert.equal(await cache.read(join(dir, 'folder')), undefined);
        assert.equal(await cache.read(join(dir, 'big.ts')), undefined);
    });

    it('forgets the least recently used files past its bounds', async () => {
        const cache = new SourceFileCache({ maxEntries: 2 });
        for (const name of ['a', 'b', 'c']) {
            writeFileSync(join(dir, name), name);
            await cache.read(join(dir, name));
        }
        assert.equal(cache.size, 2);
        assert.equal(cache.isFresh(join(dir, 'a')), false);
        assert.equal(cache.isFresh(join(dir, 'c')), true);
        const small = new SourceFileCache({ maxTotalChars: 10 });
        writeFileSync(join(dir, 'six'), '123456');
        writeFileSync(join(dir, 'five'), '12345');
        await small.read(join(dir, 'six'));
        await small.read(join(dir, 'five'));
        assert.deepEqual([small.isFresh(join(dir, 'six')), small.isFresh(join(dir, 'five'))], [false, true], 'eleven characters do not fit in ten');
    });

    it('shows only workspace files no ignore rule hides, and no link leading out', () => {
        writeFileSync(join(dir, '.qodeassistignore'), 'secret/\n*.env.ts\n');
        mkdirSync(join(dir, 'secret'));
        mkdirSync(join(dir, 'src'));
        writeFileSync(join(dir, 'src', 'a.ts'), '');
        writeFileSync(join(dir, 'secret', 'key.ts'), '');
        writeFileSync(join(dir, 'src', 'prod.env.ts'), '');
        writeFileSync(join(outside, 'x.ts'), '');
        symlinkSync(join(outside, 'x.ts'), join(dir, 'src', 'link.ts'));
        const access = workspaceAccess(new WorkspaceFiles([dir]));
        const real = access.roots[0];
        assert.equal(access.relativePath(join(real, 'src', 'a.ts')), 'src/a.ts');
        assert.equal(access.relativePath(join(real, 'secret', 'key.ts')), undefined);
        assert.equal(access.relativePath(join(real, 'src', 'prod.env.ts')), undefined);
        assert.equal(access.relativePath(join(outside, 'x.ts')), undefined);
        assert.equal(access.relativePath(join(real, 'src', 'link.ts')), undefined, 'a link out of the workspace is not shown');
        assert.equal(access.mayRead(join(real, 'src', 'a.ts')), true);
        assert.equal(access.mayRead(join(real, 'secret', 'key.ts')), false);
        assert.equal(access.mayRead(join(real, 'node_modules', 'x', 'index.ts')), false);
        assert.equal(access.mayRead(join(outside, 'x.ts')), false);
    });
});
