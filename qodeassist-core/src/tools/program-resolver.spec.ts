import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { containedPath, programNotFoundMessage, resolveProgram, trustedPathEntries } from './program-resolver';

describe('program resolver', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-resolver-')));
    const workspace = join(base, 'workspace');
    const outside = join(base, 'tools');
    const linked = join(base, 'linked');
    const executable = (path: string) => { writeFileSync(path, '#!/bin/sh\nexit 0\n'); chmodSync(path, 0o755); };
    before(() => {
        mkdirSync(join(workspace, 'bin'), { recursive: true });
        mkdirSync(outside);
        mkdirSync(linked);
        executable(join(workspace, 'tool'));
        executable(join(workspace, 'bin', 'tool'));
        executable(join(outside, 'tool'));
        writeFileSync(join(outside, 'plain'), 'not executable');
        symlinkSync(join(workspace, 'tool'), join(linked, 'tool'));
        // A folder outside the workspace path that is a link into it.
        symlinkSync(join(workspace, 'bin'), join(base, 'bin-link'));
    });
    after(() => rmSync(base, { recursive: true, force: true }));

    it('skips relative entries and every entry inside the workspace, links included', async () => {
        const path = ['', '.', 'bin', workspace, join(workspace, 'bin'), join(base, 'bin-link'), outside, outside].join(delimiter);
        assert.deepEqual(await trustedPathEntries({ path, workspaceRoots: [workspace] }), [outside]);
        assert.equal(await containedPath({ path, workspaceRoots: [workspace] }), outside);
    });

    it('finds the first executable outside the workspace and never one inside it', async () => {
        const path = ['.', workspace, join(workspace, 'bin'), linked, outside].join(delimiter);
        assert.equal(await resolveProgram('tool', { path, workspaceRoots: [workspace] }), join(outside, 'tool'));
        assert.equal(await resolveProgram('tool', { path: [workspace, linked].join(delimiter), workspaceRoots: [workspace] }), undefined);
        assert.equal(await resolveProgram('plain', { path: outside, workspaceRoots: [workspace] }), undefined, 'a file without the execute bit is not a program');
        assert.equal(await resolveProgram('../tools/tool', { path: outside, workspaceRoots: [workspace] }), undefined, 'only bare names are looked up');
    });

    it('says where it looked when nothing is found', () => {
        assert.match(programNotFoundMessage('git'), /^git was not found outside the workspace on PATH/);
    });
});
