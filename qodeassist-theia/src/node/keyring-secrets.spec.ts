import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSecretsStore } from '@qodeassist/core';
import { Keychain, KeyringSecretsStore } from './keyring-secrets';

/**
 * One scenario against the real keytar in a child process (the keyring belongs to a D-Bus session,
 * so the child gets one or not): set a key, read it back, read one that was already in the file,
 * delete. Prints what it saw as JSON.
 */
const SCENARIO = `
const { KeyringSecretsStore, loadKeytar } = require(${JSON.stringify(join(__dirname, 'keyring-secrets.js'))});
const { FileSecretsStore } = require('@qodeassist/core');
(async () => {
    const store = new KeyringSecretsStore(loadKeytar(), new FileSecretsStore(process.env.SECRETS_FILE));
    const location = await store.location();
    await store.set('anthropic', 'sk-ant-keyring-0123');
    const afterSet = await store.get('anthropic');
    const older = await store.get('older');
    await store.delete('anthropic');
    const afterDelete = await store.get('anthropic');
    console.log(JSON.stringify({ location, afterSet, older, afterDelete: afterDelete ?? null }));
})().catch(error => { console.error(error); process.exit(1); });
`;

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ seen: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
        execFile(command, args, { env, timeout: 30_000, cwd: __dirname }, (error, stdout, stderr) => {
            if (error) {
                reject(new Error(`${command} failed: ${error.message}\n${stderr}`));
                return;
            }
            const line = stdout.trim().split('\n').at(-1) ?? '';
            resolve({ seen: JSON.parse(line) });
        });
    });
}

describe('KeyringSecretsStore: keys in the OS keyring, the 0600 file where there is none', function () {
    this.timeout(60_000);
    let root: string;
    let file: string;
    let baseEnv: NodeJS.ProcessEnv;

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-keyring-'));
        file = join(root, 'home', '.qodeassist', 'secrets.json');
        // A home private to its user, as a fresh Debian/Ubuntu account or a container's /root has.
        mkdirSync(join(root, 'home'), { mode: 0o700 });
        mkdirSync(join(root, 'home', '.qodeassist'), { mode: 0o700 });
        writeFileSync(file, JSON.stringify({ older: 'sk-older-in-file' }), { mode: 0o600 });
        mkdirSync(join(root, 'runtime'), { mode: 0o700 });
        // A session of its own: never the developer's real keyring or bus.
        baseEnv = { PATH: process.env.PATH, HOME: join(root, 'home'), XDG_DATA_HOME: join(root, 'data'), XDG_RUNTIME_DIR: join(root, 'runtime'), SECRETS_FILE: file };
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('with a Secret Service on the session bus (gnome-keyring): keys go to the keyring, never into the file; older file keys still read', async () => {
        const { seen } = await run('dbus-run-session', ['--', 'sh', '-c',
            `printf 'unlock' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "${process.execPath}" -e "$SCENARIO"`],
        { ...baseEnv, SCENARIO });
        assert.deepEqual(seen, { location: 'keyring', afterSet: 'sk-ant-keyring-0123', older: 'sk-older-in-file', afterDelete: null });
        assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { older: 'sk-older-in-file' }, 'the keyring key was never written to the file');
        assert.ok(existsSync(join(root, 'data', 'keyrings')), 'gnome-keyring kept its keyring in the test\'s own data folder');
    });

    it('without a session bus (a container, CI): the same calls use the owner-only file', async () => {
        const { seen } = await run(process.execPath, ['-e', SCENARIO], baseEnv);
        assert.deepEqual(seen, { location: 'file', afterSet: 'sk-ant-keyring-0123', older: 'sk-older-in-file', afterDelete: null });
        assert.equal(statSync(file).mode & 0o777, 0o600);
    });

    it('without a keyring, a home others can read or write (a shared volume) gets no key file: the key is refused with how to provide it', async () => {
        for (const mode of [0o755, 0o777, 0o770, 0o705]) {
            chmodSync(join(root, 'home'), mode);
            const store = new KeyringSecretsStore(undefined, new FileSecretsStore(file));
            await assert.rejects(store.set('anthropic', 'sk-ant-shared-0123'), (error: Error) =>
                /no keyring answers here and .*home is open to other users \(mode \d+\).*ANTHROPIC_API_KEY_FILE.*ANTHROPIC_API_KEY in the environment/.test(error.message));
            assert.ok(!readFileSync(file, 'utf8').includes('sk-ant-shared-0123'), `mode ${mode.toString(8)}: the key was not written`);
        }
    });

    it('a keyring that answers reads but refuses writes (locked) leaves the key in the file, not lost', async () => {
        const locked: Keychain = {
            getPassword: async () => null,
            setPassword: async () => { throw new Error('Cannot create an item in a locked collection'); },
            deletePassword: async () => false
        };
        chmodSync(file, 0o600);
        const store = new KeyringSecretsStore(locked, new FileSecretsStore(file));
        assert.equal(await store.location(), 'keyring');
        await store.set('openai', 'sk-openai-locked-0123');
        assert.equal(await store.get('openai'), 'sk-openai-locked-0123');
        assert.equal(JSON.parse(readFileSync(file, 'utf8')).openai, 'sk-openai-locked-0123');
    });
});
