import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ConfigurationService, EnvironmentSecretsStore, FileSecretsStore } from '@qodeassist/core';
import { ConfigFixture } from '@qodeassist/test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { QodeAssistConfigServiceImpl } from './config-service-impl';

/**
 * The configuration view's side of a project's external agent and of the trust notice: the agent
 * is listed with its consent text, Test does not start it, consent is refused while the workspace
 * is not trusted or for another fingerprint; a provider the project replaces is in the notice.
 */
describe('QodeAssistConfigServiceImpl: project consent and the trust notice', function () {
    this.timeout(20_000);
    let fixture: ConfigFixture;
    let trusted: ConfigurationService;
    let untrusted: ConfigurationService;
    let trust: boolean;
    let service: QodeAssistConfigServiceImpl;
    const marker = () => join(fixture.root, 'project-agent-ran');

    beforeEach(() => {
        fixture = new ConfigFixture();
        fixture.project_('acp/claude-code.toml', [
            `command = ${JSON.stringify(process.execPath)}`,
            `args = ["-e", ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(marker())}, 'ran')`)}]`,
            'env = ["ANTHROPIC_API_KEY"]'
        ].join('\n'));
        trusted = new ConfigurationService(fixture.roots);
        untrusted = new ConfigurationService({ ...fixture.roots, project: undefined });
        trust = true;
        const file = new FileSecretsStore(join(fixture.root, 'secrets.json'));
        service = new QodeAssistConfigServiceImpl(new EnvironmentSecretsStore({}), file, { forWorkspace: () => trust ? trusted : untrusted });
    });
    afterEach(() => {
        service.dispose();
        trusted.dispose();
        untrusted.dispose();
        fixture.dispose();
    });

    it('lists the project\'s agent as claude-code@project with its consent text; Test does not start it; consent is refused untrusted or stale, and kept in the user\'s folder', async () => {
        const overview = await service.overview(fixture.workspace);
        const waiting = overview.externalAgents?.find(agent => agent.name === 'claude-code@project');
        assert.deepEqual([waiting?.layer, waiting?.consent?.envNames, waiting?.consent?.cwd], ['project', ['ANTHROPIC_API_KEY'], fixture.workspace]);
        assert.match(waiting?.problem ?? '', /waits for your consent/);
        assert.equal(overview.externalAgents?.find(agent => agent.name === 'claude-code')?.layer, 'bundled', 'the bundled entry keeps its name');

        const test = await service.testExternalAgent(fixture.workspace, 'claude-code@project');
        assert.ok(test.status === 'error' && /waits for your consent/.test(test.message));

        trust = false;
        assert.equal(await service.grantExternalAgentConsent(fixture.workspace, 'claude-code@project', waiting!.consent!.fingerprint), false, 'untrusted: refused');
        trust = true;
        assert.equal(await service.grantExternalAgentConsent(fixture.workspace, 'claude-code@project', 'f'.repeat(64)), false, 'a fingerprint never shown: refused');
        assert.equal(existsSync(join(fixture.user, 'consents.json')), false);
        assert.equal(await service.grantExternalAgentConsent(fixture.workspace, 'claude-code@project', waiting!.consent!.fingerprint), true);
        assert.ok(existsSync(join(fixture.user, 'consents.json')));
        assert.equal((await service.overview(fixture.workspace)).externalAgents?.find(agent => agent.name === 'claude-code@project')?.consent, undefined);
        await new Promise(resolve => setTimeout(resolve, 200));
        assert.equal(existsSync(marker()), false, 'neither listing, Test nor consent ran the program');
    });

    it('a trusted workspace whose provider replaces the user\'s at another URL gets a trust notice naming both URLs', async () => {
        fixture.user_('providers/ollama.toml', 'schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "http://localhost:11500"\n');
        fixture.project_('providers/ollama.toml', 'schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "http://127.0.0.1:47232"\n');
        trusted.reload();
        const state = await service.projectTrust(fixture.workspace);
        assert.equal(state.trusted, true);
        assert.equal(state.overrides?.length, 1);
        assert.match(state.notice ?? '', /replaces yours: .*"ollama" sends to http:\/\/127\.0\.0\.1:47232 in place of your provider "ollama" .* at http:\/\/localhost:11500/);
    });
});
