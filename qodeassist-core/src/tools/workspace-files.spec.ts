import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolInputError, WorkspaceFiles } from './workspace-files';

describe('WorkspaceFiles confinement', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-confine-')));
    const root = join(base, 'workspace');
    const outside = join(base, 'outside');
    before(() => {
        mkdirSync(join(root, 'src', 'nested', 'deeper'), { recursive: true });
        mkdirSync(join(root, 'dir'), { recursive: true });
        mkdirSync(outside, { recursive: true });
        writeFileSync(join(root, 'src', 'a.ts'), 'a');
        writeFileSync(join(outside, 'secret'), 'secret');
        writeFileSync(join(base, 'secret'), 'secret');
        symlinkSync(outside, join(root, 'link-out'));
        symlinkSync(join(root, 'link-out'), join(root, 'chain'));
        symlinkSync(join(outside, 'secret'), join(root, 'link-file-out'));
        symlinkSync('..', join(root, 'dir', 'link-up'));
        symlinkSync(outside, join(root, 'src', 'nested', 'deeper', 'link-out'));
        symlinkSync(join(root, 'src'), join(root, 'link-in'));
    });
    after(() => rmSync(base, { recursive: true, force: true }));

    const files = () => new WorkspaceFiles([root]);

    it('resolves paths inside the workspace, through links that stay inside', () => {
        assert.deepEqual(files().resolve('src/a.ts'), { absolute: join(root, 'src', 'a.ts'), root, relative: 'src/a.ts' });
        assert.equal(files().resolve(join(root, 'src', 'a.ts')).relative, 'src/a.ts');
        assert.equal(files().resolve('src\\a.ts').relative, 'src/a.ts');
        assert.equal(files().resolve(`file://${root}/src/a.ts`).relative, 'src/a.ts');
        assert.equal(files().resolve('link-in/a.ts').relative, 'link-in/a.ts');
        assert.equal(files().resolve('src/new/file.ts').relative, 'src/new/file.ts');
        assert.equal(files().resolve('dir/link-up/src/a.ts').relative, 'dir/link-up/src/a.ts', 'a link up to the root itself stays inside');
    });

    const escapes: string[] = [
        // climbing out
        '..', '../', '../secret', '../../secret', '../../../../../../etc/passwd', 'src/../../secret', 'src/nested/../../../secret',
        './../secret', 'src/./../../secret', '.././secret', '../workspace/../secret', '../outside/secret', 'src/nested/deeper/../../../../secret',
        // absolute
        '/etc/passwd', '/', '/tmp', join(outside, 'secret'), `${root}/../secret`, `${root}/src/../../secret`, '//etc/passwd', `${base}/secret`,
        `${root}-evil/secret`, `${root.toUpperCase()}/src/a.ts`,
        // backslashes and mixed separators
        '..\\secret', 'src\\..\\..\\secret', '..\\..\\etc\\passwd', `${root}\\..\\secret`, '../\\secret', 'src/..\\..\\secret', '.\\..\\secret',
        // file URIs, percent-encoded
        'file:///etc/passwd', `file://${outside}/secret`, 'file:///tmp/../etc/passwd', 'file:///%2e%2e/etc/passwd', `file://${root}/%2e%2e/secret`,
        `file://${root}/src/%2E%2E/%2E%2E/secret`, 'file://host/etc/passwd',
        // NUL bytes and empties
        'src/a.ts\0', 'src\0/../../secret', '\0', '', '   ',
        // symlinks leading out
        'link-out', 'link-out/secret', 'chain', 'chain/secret', 'link-file-out', 'src/nested/deeper/link-out/secret', 'link-out/new-file.txt',
        'src/nested/deeper/link-out', outside
    ];

    it(`refuses all ${escapes.length} escape attempts`, () => {
        assert.ok(escapes.length >= 50);
        for (const attempt of escapes) {
            assert.throws(() => files().resolve(attempt), ToolInputError, `not refused: ${JSON.stringify(attempt)}`);
        }
    });

    it('normalizes ".." lexically, so a link followed by ".." never reaches the OS\'s parent of the link target', () => {
        assert.deepEqual(files().resolve('dir/link-up/../secret'), { absolute: join(root, 'dir', 'secret'), root, relative: 'dir/secret' });
        assert.equal(files().resolve('chain/../secret').absolute, join(root, 'secret'));
    });

    it('explains the refusal and how to do better', () => {
        assert.throws(() => files().resolve('link-out/secret'), /leads through a symbolic link to a place outside the workspace/);
        assert.throws(() => files().resolve('../secret'), /is a place outside the workspace .*Use a path inside the workspace/);
    });

    it('allows outside access only when the user turned it on', () => {
        const open = new WorkspaceFiles([root], { allowOutside: true });
        assert.equal(open.resolve('../secret').absolute, join(base, 'secret'));
        assert.throws(() => open.resolve('x\0'), ToolInputError);
    });

    it('applies .qodeassistignore always and .gitignore on request', () => {
        writeFileSync(join(root, '.qodeassistignore'), 'secrets/\n*.key\n');
        writeFileSync(join(root, '.gitignore'), 'build/\n');
        const plain = new WorkspaceFiles([root]);
        assert.equal(plain.isIgnored(plain.resolve('secrets/x.txt')), true);
        assert.equal(plain.isIgnored(plain.resolve('src/server.key')), true);
        assert.equal(plain.isIgnored(plain.resolve('build/out.js')), false);
        assert.equal(plain.isIgnored(plain.resolve('node_modules/x/index.js')), true);
        const withGit = new WorkspaceFiles([root], { useGitignore: true });
        assert.equal(withGit.isIgnored(withGit.resolve('build/out.js')), true);
        assert.throws(() => plain.assertNotIgnored(plain.resolve('src/server.key')), /excluded by the workspace's ignore rules/);
    });
});
