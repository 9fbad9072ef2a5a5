import * as assert from 'node:assert/strict';
import { ChainedSecretsStore, ChatEvent, ChatFeature, ChatOwners, ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { ConfigFixture } from './config-fixture';
import { writeFakeAgents } from './fake-agents';

/** A rotated key file applies to the very next request: it is compared before each one, not only when a watcher hears of it. */
describe('a rotated key file, the very next request', function () {
    this.timeout(30_000);
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let folder: string;
    const saved = process.env.FAKE_OPENAI_API_KEY_FILE;
    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'qodeassist-rotation-')); });
    afterEach(() => {
        if (saved === undefined) {
            delete process.env.FAKE_OPENAI_API_KEY_FILE;
        } else {
            process.env.FAKE_OPENAI_API_KEY_FILE = saved;
        }
        rmSync(folder, { recursive: true, force: true });
    });

    /** A Secret volume as Kubernetes writes it: the key file is a link through `..data`, swapped for a new folder at each update. */
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

    it('no settle window: the request sent right after the ..data swap carries the new key, and the old key is not in it', async () => {
        const secret = secretVolume('sk-rotated-old-0123456789');
        process.env.FAKE_OPENAI_API_KEY_FILE = secret.path;
        const configuration = new ConfigurationService(fixture.roots);
        const home = mkdtempSync(join(tmpdir(), 'qodeassist-rotation-home-'));
        // No watcher at all: what makes the new key apply is the check before each request.
        const runtime = new QodeAssistRuntime({ secrets: new ChainedSecretsStore([new EnvironmentSecretsStore({ FAKE_OPENAI_API_KEY_FILE: secret.path })]), userHome: home });
        const feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
        const events: ChatEvent[] = [];
        feature.setHost({ onEvents: (_id, batch) => events.push(...batch), onNotice: () => undefined, requestToolPermission: async () => 'deny' });
        const until = async (count: number) => {
            const deadline = Date.now() + 10_000;
            while (events.filter(event => event.type === 'Finished' || event.type === 'Failed').length < count && Date.now() < deadline) {
                await new Promise(resolve => setTimeout(resolve, 5));
            }
        };
        try {
            server.reset();
            server.setDefault({ kind: 'replay', recording: openAITextRecording('ok') });
            const { chatId } = await feature.open({ location: 'user' });
            await feature.send(chatId, { text: 'first', attachments: [] }, { agent: 'fake-openai' });
            await until(1);
            secret.rotate('sk-rotated-new-9876543210');
            await feature.send(chatId, { text: 'second', attachments: [] }, { agent: 'fake-openai' });
            await until(2);
            assert.deepEqual(events.filter(event => event.type === 'Failed'), []);
            assert.deepEqual(server.requests.map(request => request.headers.authorization), ['Bearer sk-rotated-old-0123456789', 'Bearer sk-rotated-new-9876543210']);
            assert.ok(!JSON.stringify(server.requests[1]).includes('sk-rotated-old-0123456789'));
        } finally {
            feature.dispose();
            await feature.saved();
            runtime.dispose();
            configuration.dispose();
            rmSync(home, { recursive: true, force: true });
        }
    });
});
