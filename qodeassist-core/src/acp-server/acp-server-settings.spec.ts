import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { acpServerSettings } from './acp-server-settings';

describe('acpServerSettings', () => {
    const root = mkdtempSync(join(tmpdir(), 'qodeassist-acp-settings-'));
    after(() => rmSync(root, { recursive: true, force: true }));

    it('reads the folders relative to where it was started, and keys from the .env before the environment', async () => {
        writeFileSync(join(root, 'keys.env'), 'ANTHROPIC_API_KEY=from-the-dotenv-file\n');
        const settings = acpServerSettings(['--config-dir', 'cfg', '--trust-workspace', 'a', '--trust-workspace', '/b', '--env', 'keys.env', '--build-command', 'npm run build', '--allow-command', 'just'],
            { HOME: '/home/u', ANTHROPIC_API_KEY: 'from-the-environment', OPENAI_API_KEY: 'openai-from-env' }, root);
        assert.ok(settings !== 'help');
        assert.equal(settings.userRoot, join(root, 'cfg'));
        assert.deepEqual(settings.trusted, [join(root, 'a'), '/b']);
        assert.equal(await settings.secrets.get('anthropic'), 'from-the-dotenv-file');
        assert.equal(await settings.secrets.get('openai'), 'openai-from-env');
        assert.equal(settings.tools.buildCommand, 'npm run build');
        assert.deepEqual(settings.tools.allowedCommands, ['just']);
        assert.equal(settings.logLevel, 'info');
    });

    it('defaults to ~/.qodeassist and trusts no folder', () => {
        const settings = acpServerSettings([], { HOME: '/home/u' }, root);
        assert.ok(settings !== 'help');
        assert.equal(settings.userRoot, '/home/u/.qodeassist');
        assert.deepEqual(settings.trusted, []);
    });

    it('--help asks for the usage; a bad option is a Config error that names it', () => {
        assert.equal(acpServerSettings(['--help'], {}, root), 'help');
        const refused = (pattern: RegExp) => (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Config' && pattern.test(error.message);
        assert.throws(() => acpServerSettings(['--log-level', 'loud'], {}, root), refused(/--log-level takes debug, info, warn, error, not "loud"/));
        assert.throws(() => acpServerSettings(['--env', 'missing.env'], {}, root), refused(/the --env file .*missing\.env does not exist/));
        assert.throws(() => acpServerSettings(['--trust'], {}, root), refused(/Unknown option '--trust'/));
    });
});
