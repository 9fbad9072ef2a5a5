import * as assert from 'node:assert/strict';
import {
    ChainedSecretsStore, ChatEvent, ChatFeature, ChatOwners, ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime, watchKeyFiles
} from '@qodeassist/core';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { ConfigFixture } from './config-fixture';
import { writeFakeAgents } from './fake-agents';

/** Keys from files a variable names (`<REF>_API_KEY_FILE`): a mounted Kubernetes Secret, rotated in place. */
describe('keys from mounted secrets (<REF>_API_KEY_FILE)', () => {
    let folder: string;
    beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'qodeassist-key-files-')); });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    const file = (name: string, text: string) => {
        const path = join(folder, name);
        writeFileSync(path, text);
        return path;
    };

    const cases: Array<{ name: string; env: () => Record<string, string>; key?: string; error?: RegExp }> = [
        { name: 'the file\'s key, its line end not part of it', env: () => ({ OPENAI_API_KEY_FILE: file('openai', 'sk-from-file-0123\n') }), key: 'sk-from-file-0123' },
        { name: 'the variable alone, as before', env: () => ({ OPENAI_API_KEY: 'sk-from-variable' }), key: 'sk-from-variable' },
        { name: 'neither: no key', env: () => ({}), key: undefined },
        { name: 'both: refused, naming both', env: () => ({ OPENAI_API_KEY: 'sk-a', OPENAI_API_KEY_FILE: file('openai', 'sk-b') }), error: /Both OPENAI_API_KEY and OPENAI_API_KEY_FILE are set.*Unset one/ },
        { name: 'a missing file: the variable, the path and what to do', env: () => ({ OPENAI_API_KEY_FILE: join(folder, 'nope') }), error: /OPENAI_API_KEY_FILE names the key file .*nope, which cannot be read \(does not exist\)\. Mount the Secret there/ },
        { name: 'an empty file', env: () => ({ OPENAI_API_KEY_FILE: file('openai', '\n') }), error: /The key file .* \(OPENAI_API_KEY_FILE\) is empty/ },
        { name: 'a huge file is no key', env: () => ({ OPENAI_API_KEY_FILE: file('openai', 'x'.repeat(70 * 1024)) }), error: /larger than 64 KiB/ }
    ];
    for (const entry of cases) {
        it(entry.name, async () => {
            const store = new EnvironmentSecretsStore(entry.env());
            if (entry.error) {
                await assert.rejects(store.get('openai'), entry.error);
            } else {
                assert.equal(await store.get('openai'), entry.key);
            }
        });
    }

    it('a broken key file is an error even when another store has the key: never a silent fall-back', async () => {
        const chain = new ChainedSecretsStore([new EnvironmentSecretsStore({ OPENAI_API_KEY_FILE: join(folder, 'nope') }), { get: async () => 'sk-from-keyring' }]);
        await assert.rejects(chain.get('openai'), /cannot be read/);
    });

    describe('a rotated Secret applies without a restart', () => {
        const server = new FakeProviderServer();
        const fixture = new ConfigFixture();
        before(async () => {
            await server.start();
            writeFakeAgents(fixture, server.url, 'fake-openai');
        });
        after(async () => {
            await server.stop();
            fixture.dispose();
        });

        /** A Secret volume as Kubernetes writes it: the key file is a link through `..data`, which is swapped for a new folder at each update. */
        function secretVolume(key: string): { path: string; rotate(next: string): void } {
            const volume = join(folder, 'secret');
            let version = 0;
            const writeVersion = (value: string) => {
                const dir = join(volume, `..${++version}`);
                mkdirSync(dir, { recursive: true });
                writeFileSync(join(dir, 'fake-openai'), `${value}\n`);
                symlinkSync(`..${version}`, join(volume, '..data_tmp'));
                renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
            };
            writeVersion(key);
            symlinkSync(join('..data', 'fake-openai'), join(volume, 'fake-openai'));
            return { path: join(volume, 'fake-openai'), rotate: writeVersion };
        }

        it('the next request after the Secret changed sends the new key; the old one is never sent again', async () => {
            const secret = secretVolume('sk-rotated-old-0123456789');
            const env = { FAKE_OPENAI_API_KEY_FILE: secret.path };
            const configuration = new ConfigurationService(fixture.roots);
            const home = mkdtempSync(join(tmpdir(), 'qodeassist-key-rotation-'));
            const runtime = new QodeAssistRuntime({ secrets: new ChainedSecretsStore([new EnvironmentSecretsStore(env)]), userHome: home, onSecretsChange: listener => watchKeyFiles(env, listener) });
            const feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
            const events: ChatEvent[] = [];
            feature.setHost({ onEvents: (_id, batch) => events.push(...batch), onNotice: () => undefined, requestToolPermission: async () => 'deny' });
            const ends = () => events.filter(event => event.type === 'Finished' || event.type === 'Failed').length;
            const until = async (count: number) => {
                const deadline = Date.now() + 10_000;
                while (ends() < count && Date.now() < deadline) {
                    await new Promise(resolve => setTimeout(resolve, 10));
                }
            };
            try {
                server.reset();
                server.setDefault({ kind: 'replay', recording: openAITextRecording('ok') });
                const { chatId } = await feature.open({ location: 'user' });
                await feature.send(chatId, { text: 'first', attachments: [] }, { agent: 'fake-openai' });
                await until(1);
                secret.rotate('sk-rotated-new-9876543210');
                await new Promise(resolve => setTimeout(resolve, 600));
                await feature.send(chatId, { text: 'second', attachments: [] }, { agent: 'fake-openai' });
                await until(2);
                assert.deepEqual(events.filter(event => event.type === 'Failed'), []);
                assert.deepEqual(server.requests.map(request => request.headers.authorization), ['Bearer sk-rotated-old-0123456789', 'Bearer sk-rotated-new-9876543210']);
            } finally {
                feature.dispose();
                await feature.saved();
                runtime.dispose();
                configuration.dispose();
                rmSync(home, { recursive: true, force: true });
            }
        });
    });
});
