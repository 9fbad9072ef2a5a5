import * as assert from 'node:assert/strict';
import { RequestError } from '@agentclientprotocol/sdk';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceFiles } from '../tools/workspace-files';
import { AcpFileAccess } from './acp-files';
import { AcpHost } from './acp-host';

describe('AcpFileAccess', () => {
    let root: string;
    let host: AcpHost;
    const refuse = async () => false;

    beforeEach(() => {
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-acp-files-')));
        writeFileSync(join(root, '.qodeassistignore'), 'private/\n');
        mkdirSync(join(root, 'private'));
        writeFileSync(join(root, 'private', 'keys.txt'), 'hidden\n');
        writeFileSync(join(root, 'image.bin'), Buffer.from([1, 2, 0, 3]));
        writeFileSync(join(root, 'big.txt'), 'line\n'.repeat(100));
        host = { files: new WorkspaceFiles([root]), requestPermission: async () => ({ cancelled: true }) };
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const rejectsWith = (promise: Promise<unknown>, code: number, pattern: RegExp) =>
        assert.rejects(promise, (error: RequestError) => error instanceof RequestError && error.code === code && pattern.test(error.message));

    it('refuses ignored and binary files, and a whole file over the size bound unless read in parts', async () => {
        const files = new AcpFileAccess(host, 100);
        await rejectsWith(files.read({ path: join(root, 'private', 'keys.txt') }), -32602, /excluded by the workspace's ignore rules/);
        await rejectsWith(files.read({ path: join(root, 'image.bin') }), -32602, /binary file/);
        await rejectsWith(files.read({ path: join(root, 'big.txt') }), -32602, /500 bytes, more than the 100 bytes one read returns\. Read it in parts with line and limit/);
        assert.equal(await files.read({ path: join(root, 'big.txt'), line: 10, limit: 2 }), 'line\nline');
        await rejectsWith(files.read({ path: root }), -32602, /a folder/);
    });

    it('creates a new file (and its folders) on disk without an editor, and records it as created with its diff', async () => {
        const files = new AcpFileAccess(host, 1_000);
        const edit = await files.write(join(root, 'src', 'new', 'b.ts'), 'export const b = 1;\n', refuse);
        assert.equal(readFileSync(join(root, 'src', 'new', 'b.ts'), 'utf8'), 'export const b = 1;\n');
        assert.equal(edit.created, true);
        assert.equal(edit.path, 'src/new/b.ts');
        assert.match(edit.diff, /--- \/dev\/null\n\+\+\+ b\/src\/new\/b\.ts\n@@ -0,0 \+1,1 @@\n\+export const b = 1;/);
        await rejectsWith(files.write(join(root, 'huge.txt'), 'x'.repeat(2_000), refuse), -32602, /more than 1000 bytes.*Nothing was written/);
        await rejectsWith(files.write(join(root, 'private', 'keys.txt'), 'changed', refuse), -32602, /ignore rules/);
        assert.equal(readFileSync(join(root, 'private', 'keys.txt'), 'utf8'), 'hidden\n');
    });

    it('asks before writing an ignore file, shows the change, and writes only when allowed', async () => {
        const files = new AcpFileAccess(host, 1_000);
        const asked: Array<{ path: string; before?: string; after: string; diff: string }> = [];
        await rejectsWith(files.write(join(root, '.qodeassistignore'), '', async (path, edit, texts) => {
            asked.push({ path, ...texts, diff: edit.diff });
            return false;
        }), -32602, /did not allow writing "\.qodeassistignore"/);
        assert.deepEqual(asked.map(({ path, before, after }) => ({ path, before, after })), [{ path: '.qodeassistignore', before: 'private/\n', after: '' }]);
        assert.match(asked[0].diff, /-private\//);
        assert.equal(readFileSync(join(root, '.qodeassistignore'), 'utf8'), 'private/\n');
        await files.write(join(root, '.qodeassistignore'), 'other/\n', async () => true);
        assert.equal(readFileSync(join(root, '.qodeassistignore'), 'utf8'), 'other/\n');
    });
});
