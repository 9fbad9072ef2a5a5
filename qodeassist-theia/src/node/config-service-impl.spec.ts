import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ChainedSecretsStore, ConfigurationService, EnvironmentSecretsStore, FileSecretsStore } from '@qodeassist/core';
import { ConfigFixture, FakeProviderServer, writeFakeAgents } from '@qodeassist/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
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
        const profile = await service.agentProfile(fixture.workspace, 'fake-openai');
        assert.match(profile, /^# "fake-openai" after extends: .*openai-base\.toml → .*fake-openai\.toml/);
        assert.match(profile, /provider_instance = "fake-openai-provider" {2}# agents\/fake-openai\.toml/);
        assert.match(profile, /\n# \[body\] from .*openai-base\.toml\n\[body\]\n/);
    });

    it('Quick Setup: needed while the chat agent cannot answer; a local preset that answers becomes first in the user\'s rosters', async () => {
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-claude"]\n');
        configuration.reload();
        const before = await service.setupState(fixture.workspace);
        assert.equal(before.needed, true);
        assert.match(before.reason ?? '', /fake-claude: No key/);
        assert.deepEqual(before.presets.map(preset => preset.id), ['ollama', 'llamacpp', 'lmstudio', 'claude', 'openai', 'gemini', 'mistral', 'deepseek', 'openrouter']);
        const claude = before.presets.find(preset => preset.id === 'claude')!;
        assert.deepEqual([claude.keyVariable, claude.keyFound, claude.local], ['ANTHROPIC_API_KEY', false, false]);

        assert.equal((await service.applySetup(fixture.workspace, { preset: 'claude' })).status, 'needs-key');
        const unreachable = await service.applySetup(fixture.workspace, { preset: 'ollama', url: 'http://127.0.0.1:9' });
        assert.equal(unreachable.status, 'unreachable');
        assert.equal(existsSync(join(fixture.user, 'agents', 'rosters.toml')), false, 'nothing is written for a preset that does not answer');

        const done = await service.applySetup(fixture.workspace, { preset: 'ollama', url: server.url });
        assert.equal(done.status, 'reachable', done.message);
        assert.match(readFileSync(join(fixture.user, 'providers', 'ollama.toml'), 'utf8'), new RegExp(`url = "${server.url}"`));
        assert.match(readFileSync(join(fixture.user, 'agents', 'rosters.toml'), 'utf8'), /\[chat\]\nagents = \["ollama-chat", "fake-claude"\]/);
        // The project roster still wins where it names its own agents; the user's gets the preset first.
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n');
        configuration.reload();
        assert.equal(configuration.current.rosters.chat[0], 'ollama-chat');
        assert.equal((await service.setupState(fixture.workspace)).needed, false);
    });

    it('Quick Setup: checks every preset that could answer now, and marks the one the chat\'s agent failed on', async () => {
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["ollama-chat"]\n');
        // Nothing listens on port 9; the fake server plays LM Studio.
        fixture.user_('providers/ollama.toml', 'schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "http://127.0.0.1:9"\n');
        fixture.user_('providers/llamacpp.toml', 'schema_version = 1\nname = "llamacpp"\nclient_api = "llamacpp"\nurl = "http://127.0.0.1:9"\n');
        fixture.user_('providers/lmstudio.toml', `schema_version = 1\nname = "lmstudio"\nclient_api = "lmstudio"\nurl = "${server.url}/v1"\n`);
        configuration.reload();
        const state = await service.setupState(fixture.workspace);
        assert.equal(state.needed, true);
        assert.match(state.reason ?? '', /^ollama-chat: /);
        assert.deepEqual(Object.fromEntries(state.presets.map(preset => [preset.id, preset.failed ? 'failed' : preset.probe])), {
            ollama: 'failed', llamacpp: 'no-answer', lmstudio: 'answered',
            claude: 'not-tried', openai: 'not-tried', gemini: 'not-tried', mistral: 'not-tried', deepseek: 'not-tried', openrouter: 'not-tried'
        });
        assert.ok(server.requests.some(request => request.method === 'GET' && request.path === '/v1/models'), 'LM Studio was asked for its models');
    });

    it('keeps a model override in the user\'s agent_models.json, lists skills and the SKILL.md files it cannot use', async () => {
        await service.setModelOverride(fixture.workspace, 'fake-openai', 'other-model');
        assert.deepEqual(JSON.parse(readFileSync(join(fixture.user, 'agent_models.json'), 'utf8')), { 'fake-openai': 'other-model' });
        assert.equal(configuration.current.agents.get('fake-openai')?.model, 'other-model');
        assert.deepEqual((await service.overview(fixture.workspace)).modelOverrides, { 'fake-openai': 'other-model' });
        await service.setModelOverride(fixture.workspace, 'fake-openai', '');
        assert.equal(configuration.current.agents.get('fake-openai')?.model, 'fake-model', 'an empty model removes the override');
        await assert.rejects(service.setModelOverride(fixture.workspace, 'nope', 'x'), /no agent "nope"/);

        fixture.project_('skills/tone/SKILL.md', '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        fixture.project_('skills/Bad/SKILL.md', '---\nname: Bad\n---\nno description\n');
        const overview = await service.overview(fixture.workspace);
        assert.deepEqual(overview.pathRoots, [{ path: fixture.workspace, label: '' }, { path: homedir(), label: '~' }], 'paths are shown relative to the workspace or under ~');
        assert.deepEqual(overview.skills.map(skill => [skill.name, skill.scope]), [['tone', 'project']]);
        assert.equal(overview.skillIssues.length, 1);
        assert.match(overview.skillIssues[0].path, /Bad\/SKILL\.md$/);
        assert.equal(overview.skillsOff, undefined);

        // As the chat finds them: the extra folders of qodeassist.skills.folders too, and none when skills are off.
        const extra = join(fixture.workspace, 'team-skills');
        mkdirSync(join(extra, 'review'), { recursive: true });
        writeFileSync(join(extra, 'review', 'SKILL.md'), '---\nname: review\ndescription: Review the change\n---\nLook closely.\n');
        const withFolder = await service.overview(fixture.workspace, { enabled: true, folders: [extra, '  '] });
        assert.deepEqual(withFolder.skills.map(skill => [skill.name, skill.scope]).sort(), [['review', 'user'], ['tone', 'project']]);
        const off = await service.overview(fixture.workspace, { enabled: false, folders: [extra] });
        assert.deepEqual([off.skills, off.skillIssues, off.skillsOff], [[], [], true]);
    });
});
