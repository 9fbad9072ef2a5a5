import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ChainedSecretsStore, ConfigurationService, EnvironmentSecretsStore, FileSecretsStore } from '@qodeassist/core';
import { ConfigFixture, FakeProviderServer, writeFakeAgents } from '@qodeassist/test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QodeAssistConfigServiceImpl } from './config-service-impl';

describe('QodeAssistConfigServiceImpl', () => {
    const server = new FakeProviderServer();
    let fixture: ConfigFixture;
    let service: QodeAssistConfigServiceImpl;
    let configuration: ConfigurationService;

    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => {
        server.reset();
        fixture = new ConfigFixture();
        writeFakeAgents(fixture, server.url);
        configuration = new ConfigurationService(fixture.roots);
        const file = new FileSecretsStore(join(fixture.root, 'secrets.json'));
        service = new QodeAssistConfigServiceImpl(new ChainedSecretsStore([new EnvironmentSecretsStore({}), file]), file, { forWorkspace: () => configuration });
    });
    afterEach(() => {
        service.dispose();
        configuration.dispose();
        fixture.dispose();
    });

    it('lists providers with their key state, agents with their rosters, and the loader\'s issues', async () => {
        const overview = await service.overview(fixture.workspace);
        const openai = overview.providers.find(provider => provider.name === 'fake-openai-provider')!;
        assert.deepEqual([openai.clientApi, openai.keyRef, openai.keyVariable, openai.keyState], ['openai_compatible', 'fake_openai', 'FAKE_OPENAI_API_KEY', 'missing']);
        assert.equal(overview.providers.find(provider => provider.name === 'fake-ollama-provider')!.keyState, 'not-needed');
        assert.deepEqual(overview.agents.find(agent => agent.name === 'fake-openai')!.rosters, ['chat']);
        assert.ok(overview.clientApis.includes('ollama'));
        assert.deepEqual(overview.issues.filter(issue => issue.severity === 'error'), []);
    });

    it('tests a provider live: needs a key, then lists the fake server\'s models once the key is set; unreachable names the cause', async () => {
        assert.equal((await service.testProvider(fixture.workspace, 'fake-claude-provider')).status, 'needs-key');
        assert.equal(await service.setKey('fake_claude', 'sk-ant-test-0123456789'), undefined);
        assert.equal((await service.overview(fixture.workspace)).providers.find(provider => provider.name === 'fake-claude-provider')!.keyState, 'set');
        const reachable = await service.testProvider(fixture.workspace, 'fake-claude-provider');
        assert.equal(reachable.status, 'reachable', reachable.message);
        assert.ok(reachable.models.length > 0);
        assert.equal(server.requests.at(-1)!.headers['x-api-key'], 'sk-ant-test-0123456789');
        await service.clearKey('fake_claude');
        assert.equal((await service.testProvider(fixture.workspace, 'fake-claude-provider')).status, 'needs-key');

        fixture.project_('providers/gone.toml', 'schema_version = 1\nname = "gone"\nclient_api = "ollama"\nurl = "http://127.0.0.1:9"\n');
        configuration.reload();
        const gone = await service.testProvider(fixture.workspace, 'gone');
        assert.equal(gone.status, 'unreachable');
        assert.match(gone.message, /127\.0\.0\.1:9/);
    });

    it('adds a provider file the loader reads, never over an existing one; rewrites a roster keeping the file', async () => {
        const file = await service.addProvider(fixture.workspace, { name: 'my-proxy', clientApi: 'openai_compatible', url: `${server.url}/v1`, keyRef: 'my_proxy' });
        assert.equal(file, join(fixture.workspace, '.qodeassist', 'providers', 'my-proxy.toml'));
        configuration.reload();
        assert.equal(configuration.current.providers.get('my-proxy')?.instance.api_key_ref, 'my_proxy');
        await assert.rejects(service.addProvider(fixture.workspace, { name: 'my-proxy', clientApi: 'ollama' }), /exists already/);
        await assert.rejects(service.addProvider(fixture.workspace, { name: 'bad name', clientApi: 'ollama' }), /name — use letters/);

        const rosters = join(fixture.workspace, '.qodeassist', 'agents', 'rosters.toml');
        writeFileSync(rosters, `${readFileSync(rosters, 'utf8')}# my note\n`);
        await service.saveRoster(fixture.workspace, 'refactor', ['fake-claude', 'fake-openai']);
        configuration.reload();
        assert.deepEqual(configuration.current.rosters.refactor, ['fake-claude', 'fake-openai']);
        assert.deepEqual(configuration.current.rosters.chat, ['fake-openai']);
        assert.match(readFileSync(rosters, 'utf8'), /# my note/);
        assert.ok(existsSync(rosters));
        assert.match(await service.agentPreview(fixture.workspace, 'fake-openai'), /"model": "fake-model"/);
    });
});
