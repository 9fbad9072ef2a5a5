import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInside, TrustedConfigurations, TrustedFolders } from './trusted-configurations';

describe('TrustedFolders and TrustedConfigurations', () => {
    const root = mkdtempSync(join(tmpdir(), 'qodeassist-acp-trust-'));
    const trusted = join(root, 'work');
    const sibling = join(root, 'work-other');
    after(() => rmSync(root, { recursive: true, force: true }));
    before(() => {
        mkdirSync(join(trusted, 'app', '.qodeassist', 'agents'), { recursive: true });
        mkdirSync(join(sibling, '.qodeassist', 'agents'), { recursive: true });
        symlinkSync(sibling, join(trusted, 'link-out'));
        writeFileSync(join(trusted, 'app', '.qodeassist', 'agents', 'mine.toml'), 'schema_version = 1\nname = "mine"\nextends = "openai-chat"\n');
    });

    it('a trusted folder and the folders inside it are trusted; a sibling with the same prefix and a link out of it are not', () => {
        const folders = new TrustedFolders([trusted]);
        assert.equal(folders.isTrusted(trusted), true);
        assert.equal(folders.isTrusted(join(trusted, 'app')), true);
        assert.equal(folders.isTrusted(sibling), false);
        assert.equal(folders.isTrusted(join(trusted, 'link-out')), false);
        assert.equal(folders.isTrusted(undefined), false);
    });

    it('isInside: a file below the folder, or one not written yet, is inside; one reached through a link out is not', () => {
        assert.equal(isInside(trusted, join(trusted, 'app', 'new-file.ts')), true);
        assert.equal(isInside(trusted, join(trusted, '..', 'work-other', 'x')), false);
        assert.equal(isInside(trusted, join(trusted, 'link-out', 'x')), false);
    });

    it('the project layer of a folder loads only when it is trusted', () => {
        const user = join(root, 'user');
        const withTrust = new TrustedConfigurations(new TrustedFolders([trusted]), user, root);
        const without = new TrustedConfigurations(new TrustedFolders([]), user, root);
        try {
            assert.ok(withTrust.forWorkspace(join(trusted, 'app')).current.agents.has('mine'));
            assert.equal(without.forWorkspace(join(trusted, 'app')).roots.project, undefined);
            assert.ok(!without.forWorkspace(join(trusted, 'app')).current.agents.has('mine'));
        } finally {
            withTrust.dispose();
            without.dispose();
        }
    });
});
