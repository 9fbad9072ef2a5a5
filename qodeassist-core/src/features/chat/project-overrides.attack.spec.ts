import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfiguration } from '../../agents/configuration-loader';
import { ConfigRoots, defaultConfigRoots } from '../../config/config-layers';
import { projectOverrideNotice } from '../../config/project-trust';
import { agentChoices } from './chat-agents';

/**
 * A trusted repository that points the user's key-less `ollama` at its own server, or replaces the
 * user's rosters: allowed (the user trusts the workspace, and no key goes along), never silently.
 * The trust notice names it with the URL, and the chat's agent choice carries where it sends.
 */
describe('A project\'s provider or roster replacing the user\'s is named, never silent', () => {
    let root: string;
    let roots: ConfigRoots;
    const attacker = 'http://127.0.0.1:47231';
    const write = (path: string, text: string) => {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
    };
    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-overrides-'));
        const bundled = defaultConfigRoots();
        roots = { bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user: join(root, 'home', '.qodeassist'), project: join(root, 'repo', '.qodeassist') };
        write(join(roots.user!, 'providers', 'ollama.toml'), 'schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "http://localhost:11500"\n');
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('a project provider "ollama" at another origin: requests go to it, and the notice and the agent choice say so with both URLs', () => {
        const file = join(roots.project!, 'providers', 'ollama.toml');
        write(file, `schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "${attacker}"\n`);
        const configuration = loadConfiguration(roots);
        // What we decided: the trusted project's provider is used (no key goes with it) — named wherever the user looks.
        assert.equal(new URL(configuration.agents.get('ollama-chat')!.url).origin, attacker);
        const override = configuration.projectOverrides.find(candidate => candidate.kind === 'provider' && candidate.name === 'ollama');
        assert.deepEqual({ file: override?.file, replaces: override?.replaces, sendsTo: override?.sendsTo, insteadOf: override?.insteadOf },
            { file, replaces: 'user', sendsTo: attacker, insteadOf: 'http://localhost:11500' });
        const notice = projectOverrideNotice(configuration.projectOverrides) ?? '';
        assert.match(notice, /provider "ollama" sends to http:\/\/127\.0\.0\.1:47231 in place of your provider "ollama"/);
        assert.ok(configuration.issues.some(issue => issue.severity === 'notice' && issue.file === file && issue.message.includes(attacker)));
        const choice = agentChoices(configuration, 'chat').find(candidate => candidate.name === 'ollama-chat');
        assert.deepEqual(choice?.projectOrigin, { file, sendsTo: attacker, insteadOf: 'http://localhost:11500' });
    });

    it('a project provider at the same origin, or under a name of its own, replaces nothing of the user\'s and is not named as replacing', () => {
        write(join(roots.project!, 'providers', 'ollama.toml'), 'schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "http://localhost:11500/"\n');
        write(join(roots.project!, 'providers', 'team.toml'), `schema_version = 1\nname = "team"\nclient_api = "ollama"\nurl = "${attacker}"\n`);
        const configuration = loadConfiguration(roots);
        assert.deepEqual(configuration.projectOverrides, []);
        assert.equal(projectOverrideNotice(configuration.projectOverrides), undefined);
        // The user's own agents carry no project origin; they still send where the user said.
        const choice = agentChoices(configuration, 'chat').find(candidate => candidate.name === 'ollama-chat');
        assert.equal(new URL(configuration.agents.get('ollama-chat')!.url).origin, 'http://localhost:11500');
        assert.deepEqual(choice?.projectOrigin, { file: join(roots.project!, 'providers', 'ollama.toml'), sendsTo: 'http://localhost:11500' });
    });

    it('a project provider that would carry a key elsewhere is still left out (no key leaves), and so not named as sending', () => {
        write(join(roots.user!, 'providers', 'proxy.toml'), 'schema_version = 1\nname = "proxy"\nclient_api = "openai"\nurl = "https://proxy.example.com/v1"\napi_key_ref = "proxy"\n');
        write(join(roots.project!, 'providers', 'proxy.toml'), `schema_version = 1\nname = "proxy"\nclient_api = "openai"\nurl = "${attacker}/v1"\napi_key_ref = "proxy"\n`);
        const configuration = loadConfiguration(roots);
        assert.equal(configuration.providers.get('proxy')?.layer, 'user');
        assert.deepEqual(configuration.projectOverrides.filter(override => override.name === 'proxy'), []);
    });

    it('a project rosters.toml replacing the user\'s chat roster is named in the notice with both lists; an identical one is not', () => {
        write(join(roots.user!, 'agents', 'rosters.toml'), 'schema_version = 1\n[chat]\nagents = ["claude-chat"]\n[refactor]\nagents = ["claude-refactor"]\n');
        const rosters = join(roots.project!, 'agents', 'rosters.toml');
        write(rosters, 'schema_version = 1\n[chat]\nagents = ["ollama-chat"]\n[refactor]\nagents = ["claude-refactor"]\n');
        const configuration = loadConfiguration(roots);
        assert.deepEqual(configuration.rosters.chat, ['ollama-chat'], 'the trusted project\'s roster applies');
        const overrides = configuration.projectOverrides.filter(override => override.kind === 'roster');
        assert.deepEqual(overrides.map(override => [override.name, override.file, override.replaces]), [['chat', rosters, 'user']]);
        assert.match(projectOverrideNotice(configuration.projectOverrides) ?? '', /project's chat roster \[ollama-chat\] replaces your chat roster .*\[claude-chat\]/);
    });
});
