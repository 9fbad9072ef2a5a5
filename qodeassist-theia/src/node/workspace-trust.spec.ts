import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ChainedSecretsStore, EnvironmentSecretsStore, FileSecretsStore } from '@qodeassist/core';
import { ConfigFixture } from '@qodeassist/test';
import { join } from 'node:path';
import { WorkspaceConfigurations } from './workspace-configurations';
import { QodeAssistConfigServiceImpl } from './config-service-impl';
import { WorkspaceTrustRegistry } from './workspace-trust';

describe('Workspace trust in the backend: the project layer follows the windows\' answer', () => {
    let fixture: ConfigFixture;
    let trust: WorkspaceTrustRegistry;
    let configurations: WorkspaceConfigurations;
    let service: QodeAssistConfigServiceImpl;

    beforeEach(() => {
        fixture = new ConfigFixture();
        fixture.project_('agents/project-agent.toml', 'schema_version = 1\nname = "project-agent"\nextends = "ollama-base"\nprovider_instance = "ollama"\nmodel = "m"\n');
        fixture.write(join(fixture.workspace, '.claude', 'skills', 'one', 'SKILL.md'), '---\nname: one\ndescription: A project skill\n---\nbody\n');
        trust = new WorkspaceTrustRegistry();
        const bundled = fixture.roots;
        configurations = new WorkspaceConfigurations(trust, project => ({ ...bundled, project: project ? join(project, '.qodeassist') : undefined }));
        const file = new FileSecretsStore(join(fixture.root, 'secrets.json'));
        service = new QodeAssistConfigServiceImpl(new ChainedSecretsStore([new EnvironmentSecretsStore({}), file]), file, configurations, undefined, undefined, trust);
    });
    afterEach(() => {
        service.dispose();
        configurations.dispose();
        fixture.dispose();
    });

    it('a folder no window has vouched for is untrusted: no project agent, no project skill, and a notice naming what was skipped', async () => {
        assert.equal(configurations.forWorkspace(fixture.workspace).current.agents.has('project-agent'), false);
        const overview = await service.overview(fixture.workspace);
        assert.equal(overview.skills.some(skill => skill.name === 'one'), false);
        assert.deepEqual(overview.projectTrust, {
            trusted: false, skipped: ['.qodeassist/agents', '.claude/skills'],
            notice: 'project configuration not loaded: workspace not trusted (skipped .qodeassist/agents, .claude/skills)'
        });
    });

    it('granting trust loads the project layer live (listeners hear it); withdrawing it unloads it', async () => {
        const live = configurations.forWorkspace(fixture.workspace);
        const heard: boolean[] = [];
        live.onDidChange(configuration => heard.push(configuration.agents.has('project-agent')));
        assert.deepEqual(await service.setWorkspaceTrust(fixture.workspace, true), { trusted: true, skipped: [] });
        assert.equal(live.current.agents.has('project-agent'), true);
        assert.equal((await service.overview(fixture.workspace)).skills.some(skill => skill.name === 'one'), true);
        await service.setWorkspaceTrust(fixture.workspace, false);
        assert.equal(live.current.agents.has('project-agent'), false);
        assert.deepEqual(heard, [true, false]);
    });

    it('trust is per folder: trusting one workspace reads nothing of another', async () => {
        await service.setWorkspaceTrust(join(fixture.root, 'elsewhere'), true);
        assert.equal(configurations.forWorkspace(fixture.workspace).current.agents.has('project-agent'), false);
    });
});
