import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceCheckpoints } from './chat-checkpoints';
import { treeHashes } from './chat-checkpoints.spec';

/**
 * A workspace is data, even a hostile one: taking a checkpoint and restoring it runs none of
 * the repository's code (fsmonitor, hooks, filter drivers), leaves its `.git` as it was, and
 * puts bytes back exactly, whatever its `.gitattributes` ask for.
 */
describe('chat checkpoints in a hostile repository (attacks)', () => {
    let base: string;
    let workspace: string;
    let markers: string;
    let checkpoints: WorkspaceCheckpoints;
    const marker = (name: string) => join(markers, name);
    const plant = (path: string, text: string, mode?: number) => {
        mkdirSync(join(workspace, path, '..'), { recursive: true });
        writeFileSync(join(workspace, path), text);
        if (mode !== undefined) {
            chmodSync(join(workspace, path), mode);
        }
    };

    beforeEach(() => {
        base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-checkpoints-attack-')));
        workspace = join(base, 'workspace');
        markers = join(base, 'markers');
        mkdirSync(workspace);
        mkdirSync(markers);
        execFileSync('git', ['init', '-q', workspace]);
        const script = (name: string) => `#!/bin/sh\ntouch ${marker(name)}\ncat\n`;
        // Each of these runs code when git reads this repository's config or attributes.
        plant('.git/fsmonitor.sh', script('fsmonitor'), 0o755);
        plant('.git/filter.sh', script('filter'), 0o755);
        for (const hook of ['pre-commit', 'post-commit', 'commit-msg', 'post-checkout', 'post-index-change', 'reference-transaction']) {
            plant(`.git/hooks/${hook}`, script(`hook-${hook}`), 0o755);
        }
        const config = readFileSync(join(workspace, '.git/config'), 'utf8');
        writeFileSync(join(workspace, '.git/config'), `${config}[core]\n\tfsmonitor = ${join(workspace, '.git/fsmonitor.sh')}\n\thooksPath = .git/hooks\n`
            + `[filter "x"]\n\tclean = touch ${marker('filter-clean')}\n\tsmudge = touch ${marker('filter-smudge')}\n\tprocess = ${join(workspace, '.git/filter.sh')}\n\trequired = true\n`
            + '[diff "x"]\n\ttextconv = touch ' + marker('textconv') + '\n');
        plant('.gitattributes', '* filter=x diff=x\n*.txt text eol=crlf working-tree-encoding=UTF-16\n');
        plant('notes.txt', 'line one\nline two\n');
        plant('src/main.c', 'int main() { return 0; }\n');
        checkpoints = new WorkspaceCheckpoints(join(base, 'state', '.qodeassist', 'checkpoints'));
    });

    afterEach(() => rmSync(base, { recursive: true, force: true }));

    it('runs no fsmonitor, hook or filter driver of the repository, and its .git is untouched', async () => {
        const gitBefore = treeHashes(join(workspace, '.git'));
        const filesBefore = treeHashes(workspace);
        const chat = checkpoints.forChat(workspace, 'chat');
        await chat.beforeTurn(0);
        plant('notes.txt', 'changed by the agent\n');
        plant('made.txt', 'new\n');

        const preview = await chat.preview(0);
        const { restoreId } = await chat.restore(0);
        await chat.undoRestore(restoreId);
        await chat.restore(0);
        await chat.changes();

        assert.deepEqual(readdirOf(markers), [], 'no repository code ran');
        assert.equal(existsSync(marker('filter-clean')), false);
        assert.deepEqual(treeHashes(join(workspace, '.git')), gitBefore, 'the user\'s .git is as it was');
        assert.deepEqual(treeHashes(workspace), filesBefore, 'bytes back exactly: no line-end or encoding conversion');
        assert.ok(preview.files.every(file => !file.binary), 'diffs are of the bytes, no textconv');
    });

    it('what an agent writes into the workspace .git is never part of a checkpoint', async () => {
        const chat = checkpoints.forChat(workspace, 'chat');
        await chat.beforeTurn(0);
        plant('.git/config-added-by-agent', 'x\n');

        const changes = await chat.changes();

        assert.deepEqual(changes.files.map(file => file.path), []);
        assert.deepEqual(readdirOf(markers), []);
    });

    it('ignores a hostile GIT_DIR, GIT_CONFIG_PARAMETERS and a PATH git inside the workspace', async () => {
        plant('bin/git', `#!/bin/sh\ntouch ${marker('planted-git')}\nexit 1\n`, 0o755);
        const hostile = new WorkspaceCheckpoints(join(base, 'state2'), {
            env: {
                PATH: `${join(workspace, 'bin')}:${process.env.PATH}`, GIT_DIR: join(workspace, '.git'),
                GIT_CONFIG_PARAMETERS: `'core.fsmonitor=${join(workspace, '.git/fsmonitor.sh')}'`
            }
        });
        const chat = hostile.forChat(workspace, 'chat');
        await chat.beforeTurn(0);
        plant('src/main.c', 'changed\n');

        await chat.restore(0);

        assert.equal(readFileSync(join(workspace, 'src/main.c'), 'utf8'), 'int main() { return 0; }\n');
        assert.deepEqual(readdirOf(markers), []);
    });
});

function readdirOf(folder: string): string[] {
    return execFileSync('ls', ['-A', folder]).toString('utf8').split('\n').filter(Boolean);
}
