import * as assert from 'node:assert/strict';
import {
    ChatEvent, ChatFeature, ChatOwners, chatAgentFor, CompletionRequest, configuredCompletionEngine, DEFAULT_COMPLETION_SETTINGS, ConfigurationService, EnvironmentSecretsStore, loadConfiguration,
    QodeAssistRuntime
} from '@qodeassist/core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { ConfigFixture } from './config-fixture';
import { FAKE_KEYS, writeFakeAgents } from './fake-agents';

/** What a user sees when the administrator's policy says no: who manages it and which rule, in chat and completion alike. */
describe('managed refusals and the daily limit under concurrent requests', function () {
    this.timeout(30_000);
    const server = new FakeProviderServer();
    let fixture: ConfigFixture;
    let managed: string;
    let home: string;

    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => {
        server.reset();
        fixture = new ConfigFixture();
        writeFakeAgents(fixture, server.url, 'fake-openai', 'user');
        fixture.user_('agents/mine.toml', 'schema_version = 1\nname = "mine"\nextends = "fake-openai"\n');
        managed = join(fixture.root, 'managed');
        mkdirSync(managed, { recursive: true });
        home = mkdtempSync(join(tmpdir(), 'qodeassist-refusals-'));
    });
    afterEach(() => {
        fixture.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    it('chat: a forbidden agent and one that extends it name forbidden_agents; an unknown one is still "no agent named"', () => {
        fixture.write(join(managed, 'policy.toml'), 'forbidden_agents = ["fake-openai"]\n');
        const configuration = loadConfiguration({ ...fixture.roots, managed });
        assert.throws(() => chatAgentFor(configuration, { agent: 'mine' }),
            { message: `The agent "mine" is managed by your administrator: it extends "fake-openai", and forbidden_agents in ${join(managed, 'policy.toml')} lists "fake-openai". Pick another in the chat's agent picker.` });
        assert.throws(() => chatAgentFor(configuration, { agent: 'nobody' }), /There is no agent named "nobody"/);
    });

    it('chat without a named agent: when the policy left the roster empty, the error says the administrator manages it', () => {
        const configuration = loadConfiguration({ ...fixture.roots, managed: join(fixture.root, 'not-mounted') });
        assert.throws(() => chatAgentFor(configuration, {}),
            /No chat agent is available: .* agent\(s\) are managed by your administrator \(e\.g\. "[^"]+": its provider "[^"]+" is at \S+: the administrator's folder .*not-mounted does not exist, so nothing is allowed until it is mounted\), which may be why no chat agent is left\./);
    });

    it('completion: an agent left out by allowed_origins says so, naming the origin', async () => {
        fixture.write(join(managed, 'policy.toml'), 'allowed_origins = ["https://gateway.corp.example"]\n');
        const configuration = new ConfigurationService({ ...fixture.roots, managed });
        const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home });
        const completion = configuredCompletionEngine(runtime, configuration, { settings: () => DEFAULT_COMPLETION_SETTINGS, agent: 'fake-openai' });
        try {
            const origin = new URL(server.url).origin.replace(/\./g, '\\.');
            const request = { file: join(fixture.workspace, 'a.ts'), relativePath: 'a.ts', language: 'typescript', text: 'let a = ', offset: 8 } as CompletionRequest;
            await assert.rejects(completion.engine.complete(request), new RegExp(
                `^QodeAssistError: The agent "fake-openai" is managed by your administrator: its provider "fake-openai-provider" is at ${origin}: allowed_origins in .*policy\\.toml does not include ${origin}\\.$`));
            assert.equal(server.requests.length, 0);
        } finally {
            completion.dispose();
            runtime.dispose();
            configuration.dispose();
        }
    });

    it('two chats at once against a limit that fits one estimate: one is sent, the other refused before it is sent; the ledger is the settled cost', async () => {
        // An output price that makes the worst case (max_tokens of output) cost exactly 1.00: one fits in 1.50, two do not.
        const maxTokens = loadConfiguration(fixture.roots).agents.get('fake-openai')!.maxOutputTokens;
        fixture.user_('agents/fake-priced.toml', `schema_version = 1\nname = "fake-priced"\nextends = "fake-openai"\n\n[pricing."fake-model"]\ninput_per_mtok = 0.0\noutput_per_mtok = ${(1_000_000 / maxTokens).toFixed(6)}\n`);
        fixture.write(join(managed, 'policy.toml'), 'max_daily_spend = 1.5\n');
        server.setDefault({ kind: 'replay', recording: openAITextRecording('ok', 100), firstByteDelayMs: 1500 });
        const configuration = new ConfigurationService({ ...fixture.roots, managed });
        const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home });
        const feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
        const events: ChatEvent[] = [];
        feature.setHost({ onEvents: (_id, batch) => events.push(...batch), onNotice: () => undefined, requestToolPermission: async () => 'deny' });
        try {
            const first = await feature.open({ location: 'user' });
            const second = await feature.open({ location: 'user' });
            await Promise.all([
                feature.send(first.chatId, { text: 'one', attachments: [] }, { agent: 'fake-priced' }),
                feature.send(second.chatId, { text: 'two', attachments: [] }, { agent: 'fake-priced' })
            ]);
            const deadline = Date.now() + 15_000;
            const ends = () => events.filter(event => event.type === 'Finished' || event.type === 'Failed');
            while (ends().length < 2 && Date.now() < deadline) {
                await new Promise(resolve => setTimeout(resolve, 20));
            }
            assert.deepEqual(ends().map(event => event.type).sort(), ['Failed', 'Finished']);
            const refused = ends().find(event => event.type === 'Failed');
            assert.ok(refused?.type === 'Failed');
            assert.match(refused.error.message, /has no room for this request \(estimated at up to 1\.00 USD\): 0\.00 USD spent today and 1\.00 USD held by requests in flight; max_daily_spend in .*policy\.toml, managed by your administrator/);
            assert.equal(server.requests.filter(request => request.method === 'POST').length, 1, 'only one request was sent');
            const ledger = JSON.parse(readFileSync(join(home, '.qodeassist', 'spend.json'), 'utf8')) as { amounts: Record<string, number>; reservations: object };
            assert.equal(ledger.amounts.USD.toFixed(6), (10 / maxTokens).toFixed(6), 'the settled cost: 10 output tokens');
            assert.deepEqual(ledger.reservations, {});
        } finally {
            feature.dispose();
            await feature.saved();
            runtime.dispose();
            configuration.dispose();
        }
    });
});
