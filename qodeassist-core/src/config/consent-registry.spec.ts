import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSENTS_FILE, ConsentRegistry, LEGACY_MCP_CONSENTS_FILE } from './consent-registry';

describe('ConsentRegistry: one registry of consents to what a project runs', () => {
    let user: string;
    const workspace = '/work/repo';
    const fingerprint = 'a'.repeat(64);
    beforeEach(() => {
        user = mkdtempSync(join(tmpdir(), 'qodeassist-consents-'));
    });
    afterEach(() => rmSync(user, { recursive: true, force: true }));
    const onDisk = () => JSON.parse(readFileSync(join(user, CONSENTS_FILE), 'utf8')) as { version: number; granted: Array<Record<string, string>> };

    it('holds a consent for one workspace, one kind and one fingerprint only', async () => {
        const registry = ConsentRegistry.forUserFolder(user);
        await registry.grant(workspace, 'acp', 'claude-code@project', fingerprint);
        assert.equal(registry.isGranted(workspace, 'acp', fingerprint), true);
        assert.equal(registry.isGranted(workspace, 'mcp', fingerprint), false, 'a consent to an agent is none to an MCP server');
        assert.equal(registry.isGranted('/work/other', 'acp', fingerprint), false, 'nor to the same entry in another folder');
        assert.equal(registry.isGranted(workspace, 'acp', 'b'.repeat(64)), false);
        assert.deepEqual(onDisk().granted.map(({ workspace: folder, kind, name }) => ({ folder, kind, name })), [{ folder: workspace, kind: 'acp', name: 'claude-code@project' }]);
    });

    it('keeps only the last consent per entry: consenting to an edited entry withdraws the earlier one', async () => {
        const registry = ConsentRegistry.forUserFolder(user);
        await registry.grant(workspace, 'acp', 'agent@project', fingerprint);
        await registry.grant(workspace, 'acp', 'agent@project', 'b'.repeat(64));
        assert.equal(registry.isGranted(workspace, 'acp', fingerprint), false);
        assert.equal(registry.isGranted(workspace, 'acp', 'b'.repeat(64)), true);
        assert.equal(onDisk().granted.length, 1);
    });

    it('two grants at once (an MCP server and an agent) are both kept', async () => {
        const registry = ConsentRegistry.forUserFolder(user);
        await Promise.all([registry.grant(workspace, 'mcp', 'server', fingerprint), registry.grant(workspace, 'acp', 'agent@project', 'c'.repeat(64))]);
        assert.deepEqual(onDisk().granted.map(record => record.kind).sort(), ['acp', 'mcp']);
    });

    it('reads consents given before there was one registry (mcp-consent.json, version 1) as MCP consents, and carries them over at the next grant', async () => {
        writeFileSync(join(user, LEGACY_MCP_CONSENTS_FILE), JSON.stringify({ version: 1, granted: [{ workspace, fingerprint, server: 'evil', grantedAt: '2026-01-01T00:00:00.000Z' }] }));
        const registry = ConsentRegistry.forUserFolder(user);
        assert.equal(registry.isGranted(workspace, 'mcp', fingerprint), true);
        assert.equal(registry.isGranted(workspace, 'acp', fingerprint), false);
        await registry.grant(workspace, 'acp', 'agent@project', 'd'.repeat(64));
        assert.deepEqual(onDisk().granted.map(record => [record.kind, record.name]), [['mcp', 'evil'], ['acp', 'agent@project']]);
        // From now on consents.json alone counts: an edit of the old file allows nothing.
        writeFileSync(join(user, LEGACY_MCP_CONSENTS_FILE), JSON.stringify({ version: 1, granted: [{ workspace, fingerprint: 'e'.repeat(64), server: 'planted', grantedAt: '2026-01-01T00:00:00.000Z' }] }));
        assert.equal(registry.isGranted(workspace, 'mcp', 'e'.repeat(64)), false);
    });

    it('a broken or unknown file is no consent at all, and sees a change made on disk', () => {
        mkdirSync(user, { recursive: true });
        writeFileSync(join(user, CONSENTS_FILE), '{ not json');
        const registry = ConsentRegistry.forUserFolder(user);
        assert.equal(registry.isGranted(workspace, 'mcp', fingerprint), false);
        writeFileSync(join(user, CONSENTS_FILE), JSON.stringify({ version: 3, granted: [{ workspace, kind: 'acp', name: 'x', fingerprint, grantedAt: 'now' }] }));
        assert.equal(registry.isGranted(workspace, 'acp', fingerprint), false, 'an unknown version allows nothing');
        writeFileSync(join(user, CONSENTS_FILE), JSON.stringify({ version: 2, granted: [{ workspace, kind: 'acp', name: 'x', fingerprint, grantedAt: 'now' }] }));
        assert.equal(registry.isGranted(workspace, 'acp', fingerprint), true);
        assert.equal(existsSync(join(workspace, CONSENTS_FILE)), false);
    });
});
