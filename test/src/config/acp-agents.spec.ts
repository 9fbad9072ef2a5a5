import * as assert from 'node:assert/strict';
import { loadConfiguration, projectLayerEntries } from '@qodeassist/core';
import { ConfigFixture } from './config-fixture';

/** `acp/*.toml`: the bundled catalogue, the user's and a trusted project's external agents. */
describe('external agents (acp/*.toml) in the configuration', () => {
    let fixture: ConfigFixture;
    beforeEach(() => { fixture = new ConfigFixture(); });
    afterEach(() => fixture.dispose());

    it('bundles a catalogue of the well-known agents, each with how to install it', () => {
        const agents = fixture.load().acpAgents;
        assert.deepEqual([...agents.keys()].sort(), ['claude-code', 'codex', 'gemini-cli', 'goose', 'opencode', 'qwen-code']);
        for (const agent of agents.values()) {
            assert.equal(agent.layer, 'bundled');
            assert.equal(agent.enabled, true);
            assert.ok(agent.install && agent.description, `${agent.name} says how to install it`);
            assert.ok(agent.env.every(name => /^[A-Z_][A-Z0-9_]*$/.test(name)));
        }
        assert.deepEqual({ command: agents.get('gemini-cli')?.command, args: agents.get('gemini-cli')?.args }, { command: 'gemini', args: ['--acp'] });
        assert.deepEqual(fixture.load().issues.filter(issue => issue.file.includes('acp/')), []);
    });

    it('a user file shadows the bundled one by name; the file name is the name unless name says otherwise', () => {
        fixture.user_('acp/claude-code.toml', 'command = "/opt/claude/bin/claude-agent-acp"\nargs = ["--verbose"]\nenabled = false\n');
        fixture.user_('acp/mine.toml', 'name = "my-agent"\ncommand = "my-agent"\nenv = ["MY_AGENT_KEY"]\n');
        const agents = fixture.load().acpAgents;
        const claude = agents.get('claude-code');
        assert.deepEqual({ command: claude?.command, args: claude?.args, enabled: claude?.enabled, layer: claude?.layer },
            { command: '/opt/claude/bin/claude-agent-acp', args: ['--verbose'], enabled: false, layer: 'user' });
        assert.deepEqual(agents.get('my-agent')?.env, ['MY_AGENT_KEY']);
        assert.equal(agents.has('mine'), false);
    });

    it('a project\'s agents load only with the project layer (a trusted workspace), and an untrusted one lists what it skipped', () => {
        fixture.project_('acp/repo-agent.toml', 'command = "repo-agent"\n');
        // Listed under a name of its own, and waiting for the user's consent before it may start.
        const trusted = fixture.load();
        assert.equal(trusted.acpAwaitingConsent.get('repo-agent@project')?.layer, 'project');
        assert.equal(trusted.acpAgents.has('repo-agent@project') || trusted.acpAgents.has('repo-agent'), false);
        const untrusted = loadConfiguration({ ...fixture.roots, project: undefined });
        assert.equal(untrusted.acpAgents.has('repo-agent') || untrusted.acpAwaitingConsent.has('repo-agent@project'), false);
        assert.ok(projectLayerEntries(fixture.workspace).includes('.qodeassist/acp'));
    });

    const broken: Array<{ name: string; text: string; field?: string; message: RegExp }> = [
        { name: 'no command', text: 'description = "x"\n', field: 'command', message: /command/ },
        { name: 'a value in env', text: 'command = "x"\nenv = ["ANTHROPIC_API_KEY=sk-ant-123"]\n', field: 'env.0', message: /variable NAME/ },
        { name: 'an unknown key', text: 'command = "x"\nargz = ["a"]\n', message: /argz/ },
        { name: 'args not a list', text: 'command = "x"\nargs = "--acp"\n', field: 'args', message: /array/i },
        { name: 'a TOML syntax error', text: 'command = = "x"\n', message: /TOML syntax error/ },
        { name: 'a homepage that is no URL', text: 'command = "x"\nhomepage = "not a url"\n', field: 'homepage', message: /URL/i }
    ];
    for (const entry of broken) {
        it(`a broken file is an issue naming it, and hides no other file: ${entry.name}`, () => {
            const path = fixture.user_('acp/broken.toml', entry.text);
            fixture.user_('acp/fine.toml', 'command = "fine"\n');
            const configuration = fixture.load();
            const issues = configuration.issues.filter(issue => issue.file === path);
            assert.equal(issues.length >= 1, true, JSON.stringify(configuration.issues.filter(issue => issue.file.includes('acp'))));
            assert.ok(issues.some(issue => issue.severity === 'error' && entry.message.test(`${issue.field ?? ''} ${issue.message} ${issue.fix ?? ''}`)
                && (entry.field === undefined || issue.field === entry.field)), JSON.stringify(issues));
            assert.equal(configuration.acpAgents.has('broken'), false);
            assert.equal(configuration.acpAgents.get('fine')?.command, 'fine');
            // A key written into the file by mistake is not echoed back in the issue.
            assert.ok(!JSON.stringify(issues).includes('sk-ant-123'));
        });
    }
});
