import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitIgnoredFolder } from './git-ignored-folder';

describe('createGitIgnoredFolder: saved chats never land in a commit', () => {
    let root: string;
    beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'qodeassist-ignored-')); });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const cases: Array<{ name: string; shipped?: string; expected: string }> = [
        { name: 'a new folder', expected: '*\n' },
        { name: 'a folder that already exists, without a .gitignore', shipped: undefined, expected: '*\n' },
        { name: 'a .gitignore that already ignores everything (kept as it is)', shipped: '# mine\n*\n\n', expected: '# mine\n*\n\n' },
        { name: 'a .gitignore that lets files through (the last rule is made *)', shipped: '*\n!*.json', expected: '*\n!*.json\n# QodeAssist: saved chats are never committed\n*\n' }
    ];
    for (const { name, shipped, expected } of cases) {
        it(name, async () => {
            const folder = join(root, 'chats');
            if (name !== 'a new folder') {
                mkdirSync(folder);
            }
            if (shipped !== undefined) {
                writeFileSync(join(folder, '.gitignore'), shipped);
            }
            await createGitIgnoredFolder(folder);
            assert.equal(readFileSync(join(folder, '.gitignore'), 'utf8'), expected);
        });
    }

    it('attack: a repository ships the chats folder with a .gitignore that lets chats through; git then sees none of them', async () => {
        execFileSync('git', ['init', '-q', root]);
        const folder = join(root, '.qodeassist', 'chats');
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, '.gitignore'), '!*\n');
        writeFileSync(join(root, '.gitignore'), '!.qodeassist/\n');
        await createGitIgnoredFolder(folder);
        writeFileSync(join(folder, 'chat-1.json'), '{"secret":"my conversation"}');
        const status = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
        assert.ok(!status.includes('chat-1.json'), status);
    });

    it('attack: a .gitignore shipped as a link is replaced, never written through', async () => {
        const folder = join(root, 'chats');
        mkdirSync(folder);
        const target = join(root, 'bashrc');
        writeFileSync(target, 'export PATH=/usr/bin\n');
        symlinkSync(target, join(folder, '.gitignore'));
        await createGitIgnoredFolder(folder);
        assert.equal(readFileSync(target, 'utf8'), 'export PATH=/usr/bin\n');
        assert.equal(lstatSync(join(folder, '.gitignore')).isFile(), true);
        assert.equal(readFileSync(join(folder, '.gitignore'), 'utf8'), '*\n');
    });
});
