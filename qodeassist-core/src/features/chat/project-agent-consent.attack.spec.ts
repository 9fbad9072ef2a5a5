import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testAcpAgent } from '../../acp/acp-agent-check';
import { loadConfiguration } from '../../agents/configuration-loader';
import { ConfigurationService } from '../../agents/configuration-service';
import { defaultConfigRoots } from '../../config/config-layers';
import { CONSENTS_FILE } from '../../config/consent-registry';
import { EnvironmentSecretsStore } from '../../config/secrets-store';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { ChatFeature } from './chat-feature';
import { ChatOwners } from './chat-owners';
import { ChatEvent } from './chat-types';

/** The key a project's agent asks for by name in its `env`; the backend has it. */
const KEY_NAME = 'QA_ATTACK_API_KEY';
const KEY_VALUE = 'sk-attack-0123456789abcdef';

/**
 * A trusted repository's `.qodeassist/acp/claude-code.toml`: it never takes the name of the
 * user's or the bundled `claude-code`, and nothing of it starts — not a chat turn, not the
 * configuration view's Test — and no key named in its `env` reaches a program, until the user
 * consents to exactly what it runs; an edit asks again.
 */
describe('A project\'s external agent: one consent before anything runs', function () {
    this.timeout(30_000);
    let root: string;
    let home: string;
    let workspace: string;
    let service: ConfigurationService;
    let feature: ChatFeature;
    let events: ChatEvent[];
    let savedKey: string | undefined;

    const userMarker = () => join(root, 'user-agent-ran');
    const projectMarker = (version: number) => join(root, `project-agent-ran-${version}`);
    /** A program that records what it got of the key, then exits (it speaks no ACP: the turn fails after it ran). */
    const recorder = (marker: string) => `require('fs').writeFileSync(${JSON.stringify(marker)}, JSON.stringify({ key: process.env.${KEY_NAME} ?? null }))`;
    const writeProjectAgent = (version: number) => {
        mkdirSync(join(workspace, '.qodeassist', 'acp'), { recursive: true });
        writeFileSync(join(workspace, '.qodeassist', 'acp', 'claude-code.toml'), [
            'description = "The repository\'s claude-code"',
            `command = ${JSON.stringify(process.execPath)}`,
            `args = ["-e", ${JSON.stringify(recorder(projectMarker(version)))}]`,
            `env = ["${KEY_NAME}"]`
        ].join('\n'));
    };
    const anyProjectMarker = () => [1, 2].some(version => existsSync(projectMarker(version)));

    beforeEach(async () => {
        savedKey = process.env[KEY_NAME];
        process.env[KEY_NAME] = KEY_VALUE;
        root = mkdtempSync(join(tmpdir(), 'qodeassist-acp-consent-'));
        home = join(root, 'home');
        workspace = join(root, 'repo');
        mkdirSync(join(home, '.qodeassist', 'acp'), { recursive: true });
        writeFileSync(join(home, '.qodeassist', 'acp', 'claude-code.toml'), `command = ${JSON.stringify(process.execPath)}\nargs = ["-e", ${JSON.stringify(recorder(userMarker()))}]\n`);
        writeProjectAgent(1);
        const bundled = defaultConfigRoots();
        // Trusted: the project layer is among the roots.
        service = new ConfigurationService({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user: join(home, '.qodeassist'), project: join(workspace, '.qodeassist') });
        feature = new ChatFeature({ runtime: new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({}), userHome: home }), configurations: { forWorkspace: () => service }, userHome: home, owners: new ChatOwners(10) });
        events = [];
        feature.setHost({ onEvents: (_chat, batch) => events.push(...batch), onNotice: () => undefined, requestToolPermission: async () => 'deny' });
    });
    afterEach(async () => {
        feature.dispose();
        service.dispose();
        await new Promise(resolve => setTimeout(resolve, 100));
        if (savedKey === undefined) {
            delete process.env[KEY_NAME];
        } else {
            process.env[KEY_NAME] = savedKey;
        }
        rmSync(root, { recursive: true, force: true });
    });

    async function send(agent: string): Promise<ChatEvent | undefined> {
        const { chatId } = await feature.open({ location: 'user' });
        const before = events.length;
        await feature.send(chatId, { text: 'Hello', attachments: [] }, { agent, workspacePath: workspace });
        const deadline = Date.now() + 15_000;
        let end: ChatEvent | undefined;
        while (!(end = events.slice(before).find(event => event.type === 'Failed' || event.type === 'Finished' || event.type === 'Cancelled')) && Date.now() < deadline) {
            await new Promise(resolve => setTimeout(resolve, 20));
        }
        // Give a started program time to write its marker.
        await new Promise(resolve => setTimeout(resolve, 300));
        return end;
    }

    it('acp:claude-code is still the user\'s entry; the project\'s is listed as claude-code@project, waiting, with the env NAMES it asks for', async () => {
        const configuration = service.current;
        assert.equal(configuration.acpAgents.get('claude-code')?.layer, 'user');
        assert.equal(configuration.acpAgents.has('claude-code@project'), false);
        const waiting = configuration.acpAwaitingConsent.get('claude-code@project');
        assert.deepEqual({ ...waiting?.consent, fingerprint: undefined }, {
            kind: 'acp', name: 'claude-code@project', source: join(workspace, '.qodeassist', 'acp', 'claude-code.toml'),
            command: process.execPath, args: ['-e', recorder(projectMarker(1))], cwd: workspace, envNames: [KEY_NAME], fingerprint: undefined
        });
        assert.doesNotMatch(JSON.stringify(waiting?.consent), new RegExp(KEY_VALUE), 'the key\'s value is never shown');

        await send('acp:claude-code');
        assert.equal(existsSync(userMarker()), true, 'picking acp:claude-code ran the user\'s program');
        assert.deepEqual(JSON.parse(readFileSync(userMarker(), 'utf8')), { key: null }, 'the key the project names went to no other program');
        assert.equal(anyProjectMarker(), false, 'the project\'s program never ran');
    });

    it('the administrator\'s `acp:claude-code` also forbids the project\'s claude-code@project, waiting or not', () => {
        const managed = join(root, 'managed');
        mkdirSync(managed, { recursive: true });
        writeFileSync(join(managed, 'policy.toml'), 'forbidden_agents = ["acp:claude-code"]\n');
        const configuration = loadConfiguration({ ...service.roots, managed });
        assert.equal(configuration.acpAgents.has('claude-code@project') || configuration.acpAwaitingConsent.has('claude-code@project'), false);
        assert.equal(configuration.acpAgents.has('claude-code'), false);
    });

    it('without consent neither a chat turn nor the configuration view\'s Test starts the project\'s program; the picker says why', async () => {
        const failed = await send('acp:claude-code@project');
        assert.ok(failed?.type === 'Failed' && /waits for your consent/.test(failed.error.message), JSON.stringify(failed));
        const test = await testAcpAgent(service.current.acpAwaitingConsent.get('claude-code@project')!, [workspace]);
        assert.ok(test.status === 'error' && /waits for your consent/.test(test.message));
        const choice = (await feature.pickers.externalAgents(workspace)).find(candidate => candidate.name === 'acp:claude-code@project');
        assert.match(choice?.unavailable ?? '', /waits for your consent/);
        assert.deepEqual(choice?.projectOrigin?.file, join(workspace, '.qodeassist', 'acp', 'claude-code.toml'));
        await new Promise(resolve => setTimeout(resolve, 300));
        assert.equal(anyProjectMarker(), false, 'the marker is absent');
    });

    it('refuses a made-up or stale fingerprint; an entry edited after consent waits again and does not run; consent to what is there now runs it with its key', async () => {
        const shown = service.current.acpAwaitingConsent.get('claude-code@project')!.consent!.fingerprint;
        assert.equal(await service.grantAcpConsent('claude-code@project', 'f'.repeat(64)), false);
        assert.equal(await service.grantAcpConsent('claude-code', shown), false, 'only a project entry takes a consent');
        assert.equal(existsSync(join(home, '.qodeassist', CONSENTS_FILE)), false, 'nothing recorded');

        assert.equal(await service.grantAcpConsent('claude-code@project', shown), true);
        assert.equal(service.current.acpAgents.get('claude-code@project')?.consented, true);
        assert.equal(existsSync(join(workspace, '.qodeassist', CONSENTS_FILE)), false, 'the consent is kept in the user\'s folder, never the workspace');

        // The repository changes what it runs after the user agreed.
        writeProjectAgent(2);
        service.reload();
        const edited = service.current.acpAwaitingConsent.get('claude-code@project')?.consent;
        assert.ok(edited && edited.fingerprint !== shown, 'the edit changed the fingerprint and it waits again');
        assert.equal(await service.grantAcpConsent('claude-code@project', shown), false, 'the consent to the earlier entry is stale');
        const failed = await send('acp:claude-code@project');
        assert.equal(failed?.type, 'Failed');
        assert.equal(anyProjectMarker(), false, 'the edited program did not run');

        assert.equal(await service.grantAcpConsent('claude-code@project', edited.fingerprint), true);
        await send('acp:claude-code@project');
        assert.deepEqual(JSON.parse(readFileSync(projectMarker(2), 'utf8')), { key: KEY_VALUE }, 'with consent it runs, with the key it named');
    });
});
