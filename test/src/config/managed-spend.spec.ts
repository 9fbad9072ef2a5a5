import * as assert from 'node:assert/strict';
import { ChatEvent, ChatFeature, ChatOwners, ConfigurationService, EnvironmentSecretsStore, MANAGED_LABEL, QodeAssistRuntime } from '@qodeassist/core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { ConfigFixture } from './config-fixture';
import { FAKE_KEYS, writeFakeAgents } from './fake-agents';

/** The administrator's max_daily_spend: a user's priced requests add up per day, and past the limit none goes out. */
describe('the administrator\'s daily spend limit', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let home: string;

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        // 100 input and ~ output tokens at 3 and 15 per million: a few thousandths per request.
        fixture.user_('agents/fake-priced.toml', ['schema_version = 1', 'name = "fake-priced"', 'extends = "fake-openai"', '', '[pricing."fake-model"]', 'input_per_mtok = 3000.0', 'output_per_mtok = 15000.0', ''].join('\n'));
        const managed = join(fixture.root, 'managed');
        mkdirSync(managed, { recursive: true });
        fixture.write(join(managed, 'policy.toml'), 'max_daily_spend = 0.4\ncurrency = "USD"\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        home = mkdtempSync(join(tmpdir(), 'qodeassist-spend-'));
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));

    function window(configuration: ConfigurationService) {
        const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home });
        const feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
        const events: ChatEvent[] = [];
        feature.setHost({ onEvents: (_id, batch) => events.push(...batch), onNotice: () => undefined, requestToolPermission: async () => 'deny' });
        return { runtime, feature, events };
    }

    it('counts priced requests in the user\'s folder, refuses the one past the limit before it is sent, and says who manages it', async () => {
        server.setDefault({ kind: 'replay', recording: openAITextRecording('ok', 100) });
        const configuration = new ConfigurationService({ ...fixture.roots, managed: join(fixture.root, 'managed') });
        const { runtime, feature, events } = window(configuration);
        try {
            const { chatId } = await feature.open({ location: 'user' });
            const ends = () => events.filter(event => event.type === 'Finished' || event.type === 'Failed');
            const ask = async (text: string, count: number) => {
                await feature.send(chatId, { text, attachments: [] }, { agent: 'fake-priced' });
                const deadline = Date.now() + 10_000;
                while (ends().length < count && Date.now() < deadline) {
                    await new Promise(resolve => setTimeout(resolve, 10));
                }
            };
            await ask('first', 1);
            assert.equal(ends()[0].type, 'Finished');
            const ledger = JSON.parse(readFileSync(join(home, '.qodeassist', 'spend.json'), 'utf8')) as { amounts: Record<string, number> };
            assert.ok(ledger.amounts.USD >= 0.4, JSON.stringify(ledger));
            const sent = server.requests.length;
            await ask('second', 2);
            const refused = ends()[1];
            assert.ok(refused.type === 'Failed');
            assert.match(refused.error.message, new RegExp(`spend limit of 0.40 USD is reached.*${MANAGED_LABEL}`));
            assert.equal(server.requests.length, sent, 'nothing was sent past the limit');

            // Another window (a reload, a second backend process) reads the same figure.
            const other = window(configuration);
            const { chatId: otherChat } = await other.feature.open({ location: 'user' });
            await other.feature.send(otherChat, { text: 'third', attachments: [] }, { agent: 'fake-priced' });
            assert.equal(server.requests.length, sent);
            other.feature.dispose();
            other.runtime.dispose();
        } finally {
            feature.dispose();
            await feature.saved();
            runtime.dispose();
            configuration.dispose();
        }
    });
});
