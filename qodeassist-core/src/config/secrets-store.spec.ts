import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { KnownSecrets, redactSecrets } from '../wire/redaction';
import { sharedFolderProblem } from './key-files';
import {
    ChainedSecretsStore, DotEnvSecretsStore, EnvironmentSecretsStore, environmentVariableFor, FileSecretsStore, RecordingSecretsStore, RecordingWritableSecretsStore
} from './secrets-store';

describe('secrets stores', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qodeassist-secrets-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('every key a store holds is redacted from the moment it is read, also the ones no request used', async () => {
        // Values without a key shape: only knowing them removes them.
        new EnvironmentSecretsStore({ UNUSED_API_KEY: 'envheld-7a1c9e2b', GITHUB_TOKEN: 'tokenheld-55d0e1', PATH: '/usr/bin:/bin-and-more' });
        const dotenv = join(dir, 'held.env');
        writeFileSync(dotenv, 'OTHER_API_KEY=dotenvheld-90ab12\nBASE_URL=http://localhost:11434/v1\n');
        new DotEnvSecretsStore(dotenv);
        const file = join(dir, 'held-secrets.json');
        writeFileSync(file, JSON.stringify({ used: 'fileused-3c4d5e6f', other: 'fileother-8e7d6c5b' }), { mode: 0o600 });
        assert.equal(await new FileSecretsStore(file).get('used'), 'fileused-3c4d5e6f');
        const text = 'envheld-7a1c9e2b tokenheld-55d0e1 dotenvheld-90ab12 fileother-8e7d6c5b /usr/bin:/bin-and-more http://localhost:11434/v1';
        const redacted = redactSecrets(text);
        for (const key of ['envheld-7a1c9e2b', 'tokenheld-55d0e1', 'dotenvheld-90ab12', 'fileother-8e7d6c5b']) {
            assert.ok(!redacted.includes(key), `${key} in ${redacted}`);
        }
        assert.ok(redacted.includes('/usr/bin:/bin-and-more') && redacted.includes('http://localhost:11434/v1'), 'what is not a key stays');
    });

    it('maps a key reference to <REF>_API_KEY', () => {
        assert.equal(environmentVariableFor('openai'), 'OPENAI_API_KEY');
        assert.equal(environmentVariableFor('my-proxy.eu'), 'MY_PROXY_EU_API_KEY');
    });

    it('reads the environment, trimmed, blank as missing', async () => {
        const store = new EnvironmentSecretsStore({ OPENAI_API_KEY: '  sk-1  ', BLANK_API_KEY: ' ' });
        assert.equal(await store.get('openai'), 'sk-1');
        assert.equal(await store.get('blank'), undefined);
        assert.equal(await store.get('absent'), undefined);
    });

    it('reads a .env file with quotes and comments', async () => {
        const path = join(dir, '.env');
        writeFileSync(path, '# keys\nANTHROPIC_API_KEY="sk-ant-x"\nOPENAI_API_KEY=sk-o # trailing\n');
        const store = new DotEnvSecretsStore(path);
        assert.equal(await store.get('anthropic'), 'sk-ant-x');
        assert.equal(await store.get('openai'), 'sk-o');
        assert.equal(await new DotEnvSecretsStore(join(dir, 'missing.env')).get('openai'), undefined);
    });

    it('writes a 0600 file atomically and reads it back', async () => {
        const path = join(dir, 'nested', 'secrets.json');
        const store = new FileSecretsStore(path);
        await store.set('openai', 'sk-file');
        await store.set('google', 'g-key');
        await store.delete('google');
        assert.equal(statSync(path).mode & 0o777, 0o600);
        assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { openai: 'sk-file' });
        assert.equal(await store.get('openai'), 'sk-file');
    });

    it('refuses a secrets file others can read, saying how to fix it', async () => {
        const path = join(dir, 'open.json');
        writeFileSync(path, '{"openai": "sk"}');
        chmodSync(path, 0o644);
        await assert.rejects(new FileSecretsStore(path).get('openai'), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Config' && error.info.message.includes(`chmod 600 "${path}"`));
    });

    it('refuses a corrupt secrets file without touching it', async () => {
        const path = join(dir, 'corrupt.json');
        writeFileSync(path, '[1, 2', { mode: 0o600 });
        await assert.rejects(new FileSecretsStore(path).set('a', 'b'), /not a JSON object/);
        assert.equal(readFileSync(path, 'utf8'), '[1, 2');
    });

    it('asks stores in order', async () => {
        const chain = new ChainedSecretsStore([new EnvironmentSecretsStore({ A_API_KEY: 'env' }), new EnvironmentSecretsStore({ A_API_KEY: 'later', B_API_KEY: 'b' })]);
        assert.equal(await chain.get('a'), 'env');
        assert.equal(await chain.get('b'), 'b');
        assert.equal(await chain.get('c'), undefined);
    });

    it('records every key the wrapped store hands out, and nothing for a missing one', async () => {
        const known = new KnownSecrets();
        const store = new RecordingSecretsStore(new EnvironmentSecretsStore({ OPENAI_API_KEY: 'env-key-0123456' }), known);
        assert.equal(await store.get('openai'), 'env-key-0123456');
        assert.equal(await store.get('absent'), undefined);
        assert.deepEqual(known.list(), ['env-key-0123456']);
    });

    it('records a key as soon as it is stored, and keeps it known after it is deleted', async () => {
        const known = new KnownSecrets();
        const store = new RecordingWritableSecretsStore(new FileSecretsStore(join(dir, 'recorded.json')), known);
        await store.set('qodeassist-mcp-server-token', 'mcp-token-abcdef012345');
        assert.deepEqual(known.list(), ['mcp-token-abcdef012345']);
        await store.delete('qodeassist-mcp-server-token');
        assert.equal(await store.get('qodeassist-mcp-server-token'), undefined);
        assert.deepEqual(known.list(), ['mcp-token-abcdef012345']);
    });
});

describe('sharedFolderProblem: where a key file may not go', () => {
    const uid = process.getuid?.() ?? 0;
    let root: string;
    beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'qodeassist-shared-')); });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const cases: Array<[string, number, { readable?: boolean }, RegExp | undefined]> = [
        ['private', 0o700, {}, undefined],
        ['readable by others, the .qodeassist folder (its file is 0600)', 0o755, {}, undefined],
        ['readable by others, the home (a world-readable volume)', 0o755, { readable: true }, /open to other users \(mode 755\)/],
        ['group-writable (a volume with an fsGroup)', 0o770, {}, /mode 770/],
        ['writable by anyone', 0o777, {}, /mode 777/],
        ['readable by its group only, the home', 0o750, { readable: true }, undefined]
    ];
    for (const [name, mode, options, problem] of cases) {
        it(name, () => {
            chmodSync(root, mode);
            const found = sharedFolderProblem(root, options, 'linux', uid);
            if (problem) {
                assert.match(found ?? '', problem);
            } else {
                assert.equal(found, undefined);
            }
        });
    }

    it('a folder of another user', () => {
        assert.match(sharedFolderProblem(root, {}, 'linux', uid + 1) ?? '', /belongs to another user/);
    });

    it('nothing on Windows, nothing for a folder that is not there yet', () => {
        assert.equal(sharedFolderProblem(root, {}, 'win32', uid + 1), undefined);
        assert.equal(sharedFolderProblem(join(root, 'missing'), {}, 'linux', uid), undefined);
    });
});
