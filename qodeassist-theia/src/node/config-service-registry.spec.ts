import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { AcpRegistryCatalogue, bundledRegistrySnapshot, ConfigurationService, EnvironmentSecretsStore, FileSecretsStore } from '@qodeassist/core';
import { ConfigFixture } from '@qodeassist/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { QodeAssistConfigServiceImpl } from './config-service-impl';

const agent = (id: string, args: string[] = ['--acp']) => ({
    id, name: `Agent ${id}`, version: '2.0.0', description: `the ${id} agent`, repository: `https://example.com/${id}`,
    distribution: { npx: { package: `@example/${id}@2.0.0`, args } }
});

/**
 * The configuration view's side of the ACP registry: the registry's agents not yet configured,
 * from the registry when it answers and the bundled snapshot when not (saying so); Add writes the
 * user's acp/<id>.toml, which the live configuration then lists, and nothing else.
 */
describe('QodeAssistConfigServiceImpl: the ACP registry', function () {
    this.timeout(20_000);
    let fixture: ConfigFixture;
    let configuration: ConfigurationService;
    let service: QodeAssistConfigServiceImpl;
    let server: Server;
    let url: string;
    const answer = { body: '' };

    beforeEach(async () => {
        fixture = new ConfigFixture();
        configuration = new ConfigurationService(fixture.roots);
        const catalogue = new AcpRegistryCatalogue({ snapshotFile: bundledRegistrySnapshot(fixture.roots.bundledAgents), platform: 'linux-x86_64', timeoutMs: 2_000 });
        service = new QodeAssistConfigServiceImpl(new EnvironmentSecretsStore({}), new FileSecretsStore(join(fixture.root, 'secrets.json')), { forWorkspace: () => configuration },
            undefined, undefined, undefined, undefined, catalogue);
        server = createServer((_request, response) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(answer.body);
        });
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/registry.json`;
    });
    afterEach(async () => {
        await new Promise(resolve => server.close(resolve));
        service.dispose();
        configuration.dispose();
        fixture.dispose();
    });

    it('offline, lists the bundled snapshot\'s agents not configured yet and says it is the snapshot of its date', async () => {
        const state = await service.registryAgents(fixture.workspace, 'http://127.0.0.1:9/registry.json');
        assert.equal(state.source, 'snapshot');
        assert.match(state.notice ?? '', /^offline: showing the bundled snapshot from \d{4}-\d{2}-\d{2}/);
        const ids = state.agents.map(offer => offer.id);
        assert.ok(ids.includes('github-copilot-cli'), ids.join());
        assert.ok(!ids.includes('claude-code'), 'the bundled claude-code is configured already');
        assert.equal(state.agents.find(offer => offer.id === 'github-copilot-cli')?.installCommand, 'npx -y @github/copilot --acp');
    });

    it('takes a changed index from the registry; Add writes the user\'s acp/<id>.toml, which the configuration lists after the reload, never in the workspace', async () => {
        answer.body = JSON.stringify({ version: '1.0.0', agents: [agent('alpha')] });
        assert.deepEqual((await service.registryAgents(fixture.workspace, url)).agents.map(offer => offer.id), ['alpha']);
        answer.body = JSON.stringify({ version: '1.0.0', agents: [agent('alpha'), agent('beta', ['acp'])] });
        const state = await service.registryAgents(fixture.workspace, url, true);
        assert.deepEqual([state.source, state.notice], ['registry', undefined]);
        assert.deepEqual(state.agents.map(offer => offer.id), ['alpha', 'beta']);

        const file = await service.addRegistryAgent(fixture.workspace, url, 'beta');
        assert.equal(file, join(fixture.user, 'acp', 'beta.toml'));
        assert.equal(existsSync(join(fixture.project, 'acp')), false, 'nothing in the workspace');
        const loaded = configuration.current.acpAgents.get('beta');
        assert.deepEqual([loaded?.layer, loaded?.command, loaded?.args, loaded?.homepage], ['user', 'npx', ['-y', '@example/beta@2.0.0', 'acp'], 'https://example.com/beta']);
        assert.deepEqual((await service.registryAgents(fixture.workspace, url)).agents.map(offer => offer.id), ['alpha'], 'beta is configured now');
        await assert.rejects(service.addRegistryAgent(fixture.workspace, url, 'beta'), /configured already/);
    });

    it('refuses to write over an existing file of that name, and says so', async () => {
        answer.body = JSON.stringify({ version: '1.0.0', agents: [agent('gamma')] });
        // A broken file is no configured agent, but it is the user's: never replaced.
        const mine = fixture.user_('acp/gamma.toml', 'command = \n');
        configuration.reload();
        assert.ok((await service.registryAgents(fixture.workspace, url)).agents.some(offer => offer.id === 'gamma'));
        await assert.rejects(service.addRegistryAgent(fixture.workspace, url, 'gamma'), /exists already; QodeAssist does not replace it/);
        assert.equal(readFileSync(mine, 'utf8'), 'command = \n');
    });

    it('attack: a hostile index\'s bad entries are reported, not offered, and Add of one writes no file', async () => {
        answer.body = `{"version":"1.0.0","__proto__":{"polluted":true},"agents":[${JSON.stringify(agent('fine'))},
            ${JSON.stringify(agent('shell', ['--acp && touch /tmp/qa-registry-pwned']))},
            ${JSON.stringify({ ...agent('plain'), repository: 'http://example.com/plain' })},
            {"id":"typed","name":["not","a","name"],"distribution":{}}]}`;
        const state = await service.registryAgents(fixture.workspace, url, true);
        assert.deepEqual(state.agents.map(offer => offer.id), ['fine']);
        assert.deepEqual(state.problems.map(problem => problem.id), ['shell', 'plain', 'typed']);
        for (const id of ['shell', 'plain', 'typed', '../../escape']) {
            await assert.rejects(service.addRegistryAgent(fixture.workspace, url, id), /lists no agent/);
        }
        assert.equal(existsSync(join(fixture.user, 'acp')), false, 'no file written');
        assert.equal(existsSync('/tmp/qa-registry-pwned'), false);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.deepEqual(readdirSync(fixture.user).filter(name => name !== 'cache'), [], 'only the cache of the fetched index');
    });
});
