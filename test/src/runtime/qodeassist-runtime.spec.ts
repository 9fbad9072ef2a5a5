import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
    AnyTool, ConfigurationService, EnvironmentSecretsStore, FILE_TOOLS, QodeAssistRuntime, ResolvedAgent, SecretsStore, sessionAgentFor, SkillsEngine, ToolHost, ToolSettings
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { closedLoopbackPort } from '../fake-provider/closed-port';

const SETTINGS: ToolSettings = {
    disabled: [], allowedCommands: [], commandTimeoutSeconds: 10, commandOutputLimit: 10_000, buildCommand: 'make', allowOutsideWorkspace: false, useGitignore: true
};
const ignore = () => undefined;

describe('QodeAssistRuntime: one host\'s session pools, tools and skills', () => {
    const fixture = new ConfigFixture();
    let home: string;
    let configuration: ConfigurationService;
    let runtime: QodeAssistRuntime;

    before(async () => {
        // Nothing is sent here: the agents point at a loopback port nothing listens on.
        writeFakeAgents(fixture, `http://127.0.0.1:${await closedLoopbackPort()}`);
        fixture.write(join(fixture.workspace, '.qodeassist', 'skills', 'tone', 'SKILL.md'), '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
    });
    after(() => fixture.dispose());
    beforeEach(() => {
        home = mkdtempSync(join(tmpdir(), 'qodeassist-runtime-home-'));
        fixture.write(join(home, '.qodeassist', 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: The user\'s own\n---\nMine.\n');
        configuration = new ConfigurationService(fixture.roots);
        runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home });
    });
    afterEach(() => {
        runtime.dispose();
        configuration.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    describe('sessions', () => {
        it('gives the same pool for a configuration and purpose, conversation by default', () => {
            const conversation = runtime.sessions(configuration);
            assert.equal(runtime.sessions(configuration, 'conversation'), conversation);
            assert.equal(runtime.sessions(configuration), conversation);
        });

        it('gives completion a pool of its own, keeping one idle session per agent where a conversation keeps two', async () => {
            const conversation = runtime.sessions(configuration, 'conversation');
            const completion = runtime.sessions(configuration, 'completion');
            assert.notEqual(completion, conversation);
            for (const pool of [conversation, completion]) {
                const sessions = await Promise.all([1, 2, 3].map(() => pool.acquire('fake-openai', ignore)));
                for (const session of sessions) {
                    await pool.release(session);
                }
            }
            assert.deepEqual([conversation.pooled('fake-openai'), completion.pooled('fake-openai')], [2, 1]);
        });

        it('gives another configuration another pool', () => {
            const other = new ConfigurationService(fixture.roots);
            try {
                assert.notEqual(runtime.sessions(other), runtime.sessions(configuration));
            } finally {
                other.dispose();
            }
        });

        it('resolves agents again after the configuration changed, in both pools, and drops the pooled sessions', async () => {
            const conversation = runtime.sessions(configuration);
            const completion = runtime.sessions(configuration, 'completion');
            const before = [await conversation.agent('fake-openai'), await completion.agent('fake-openai')];
            await conversation.release(await conversation.acquire('fake-openai', ignore));
            assert.equal(conversation.pooled('fake-openai'), 1);
            assert.equal(await conversation.agent('fake-openai'), before[0], 'unchanged: the same object');

            configuration.reload();

            assert.equal(conversation.pooled('fake-openai'), 0);
            const after = [await conversation.agent('fake-openai'), await completion.agent('fake-openai')];
            assert.notEqual(after[0], before[0]);
            assert.notEqual(after[1], before[1]);
            assert.equal(runtime.sessions(configuration), conversation, 'the pool itself stays');
        });

        it('a configuration change leaves another configuration\'s agents as they were', async () => {
            const other = new ConfigurationService(fixture.roots);
            try {
                const kept = await runtime.sessions(other).agent('fake-openai');
                configuration.reload();
                assert.equal(await runtime.sessions(other).agent('fake-openai'), kept);
            } finally {
                other.dispose();
            }
        });

        it('resolves every configuration\'s agents again when a stored key changed, and the new key is the one used', async () => {
            let secretsChanged: () => void = ignore;
            const keys: Record<string, string> = { ...FAKE_KEYS };
            const live = new QodeAssistRuntime({
                secrets: new EnvironmentSecretsStore(keys), userHome: home,
                onSecretsChange: listener => {
                    secretsChanged = listener;
                    return ignore;
                }
            });
            const other = new ConfigurationService(fixture.roots);
            try {
                const before = [await live.sessions(configuration).agent('fake-openai'), await live.sessions(other, 'completion').agent('fake-openai')];
                keys.FAKE_OPENAI_API_KEY = 'sk-stored-later-0123456789';
                assert.equal(await live.sessions(configuration).agent('fake-openai'), before[0], 'until the event, the resolved agent is kept');

                secretsChanged();

                const after = [await live.sessions(configuration).agent('fake-openai'), await live.sessions(other, 'completion').agent('fake-openai')];
                assert.notEqual(after[0], before[0]);
                assert.notEqual(after[1], before[1]);
                assert.equal(after[0].headers.authorization, 'Bearer sk-stored-later-0123456789');
            } finally {
                live.dispose();
                other.dispose();
            }
        });

        it('makes agents ready through the resolveAgent hook; a name not configured is a Config error without calling it', async () => {
            const asked: string[] = [];
            const hooked = new QodeAssistRuntime({
                secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home,
                resolveAgent: async (agent: ResolvedAgent, secrets: SecretsStore) => {
                    asked.push(agent.name);
                    return { ...await sessionAgentFor(agent, secrets), url: 'http://127.0.0.1:9/elsewhere' };
                }
            });
            try {
                const pool = hooked.sessions(configuration);
                assert.equal((await pool.agent('fake-claude')).url, 'http://127.0.0.1:9/elsewhere');
                await assert.rejects(pool.agent('nobody'), /The agent "nobody" is no longer configured\./);
                assert.deepEqual(asked, ['fake-claude']);
            } finally {
                hooked.dispose();
            }
        });
    });

    describe('toolKit', () => {
        const host: ToolHost = { requestToolPermission: async () => 'deny', getDiagnostics: async () => [] };
        const names = (runtimeInUse: QodeAssistRuntime, request: Partial<Parameters<QodeAssistRuntime['toolKit']>[0]>) =>
            runtimeInUse.toolKit({ host, ownerId: 'chat-1', workspace: fixture.workspace, projectTrusted: true, settings: SETTINGS, ...request }).definitions().map(tool => tool.name);

        it('offers the terminal and the build in a trusted workspace', () => {
            const offered = names(runtime, { projectTrusted: true });
            assert.ok(offered.includes('execute_terminal_command') && offered.includes('build_project'), offered.join(', '));
        });

        it('offers no tool that starts programs in an untrusted workspace, and still the file tools', () => {
            const offered = names(runtime, { projectTrusted: false });
            assert.ok(!offered.includes('execute_terminal_command') && !offered.includes('build_project'), offered.join(', '));
            assert.ok(offered.includes('read_file') && offered.includes('edit_file'), offered.join(', '));
        });

        it('offers the host\'s extra tools for the workspace, asked for at every request', () => {
            const extra: AnyTool[] = [];
            const workspaces: string[] = [];
            const withExtras = new QodeAssistRuntime({
                secrets: new EnvironmentSecretsStore({}), userHome: home,
                extraTools: workspace => {
                    workspaces.push(workspace);
                    return () => extra;
                }
            });
            try {
                const kit = withExtras.toolKit({ host, ownerId: 'chat-1', workspace: fixture.workspace, projectTrusted: false, settings: SETTINGS });
                assert.ok(!kit.definitions().some(tool => tool.name === 'mcp_lookup'));
                extra.push({ ...FILE_TOOLS[0], name: 'mcp_lookup' } as AnyTool);
                assert.equal(kit.definitions().filter(tool => tool.name === 'mcp_lookup').length, 1, 'a tool that came later is offered, even untrusted');
                assert.deepEqual(workspaces, [fixture.workspace]);
            } finally {
                withExtras.dispose();
            }
        });

        it('offers get_diagnostics only when the host shows problems', () => {
            assert.ok(names(runtime, { host }).includes('get_diagnostics'));
            assert.ok(!names(runtime, { host: { requestToolPermission: async () => 'deny' } }).includes('get_diagnostics'));
            assert.ok(!names(runtime, { host: undefined }).includes('get_diagnostics'));
        });
    });

    describe('environment', () => {
        it('reuses a workspace\'s git branch for a few seconds, and fills each request\'s own file and build command', async () => {
            const repo = join(home, 'repo');
            fixture.write(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
            const first = await runtime.environment({ workspace: repo, activeFile: 'src/a.ts', buildCommand: 'make' });
            assert.deepEqual([first.branch, first.activeFile, first.language, first.buildCommand], ['main', 'src/a.ts', 'typescript', 'make']);
            fixture.write(join(repo, '.git', 'HEAD'), 'ref: refs/heads/feature\n');
            const next = await runtime.environment({ workspace: repo, activeFile: 'b.py' });
            assert.deepEqual([next.branch, next.activeFile, next.language, next.buildCommand], ['main', 'b.py', 'python', undefined], 'the branch read a moment ago');
            const other = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({}) });
            try {
                assert.equal((await other.environment({ workspace: repo })).branch, 'feature', 'another runtime reads it afresh');
            } finally {
                other.dispose();
            }
        });
    });

    describe('skillsFor', () => {
        it('shares one watched engine per workspace and roots', () => {
            const engine = runtime.skillsFor(fixture.workspace, undefined, true);
            assert.ok(engine);
            assert.equal(runtime.skillsFor(fixture.workspace, { enabled: true, folders: [] }, true), engine);
            assert.notEqual(runtime.skillsFor(fixture.workspace, { enabled: true, folders: [join(home, 'team-skills')] }, true), engine);
        });

        it('reads the project\'s skills only in a trusted workspace; the user\'s always', () => {
            const trusted = runtime.skillsFor(fixture.workspace, undefined, true)!;
            const untrusted = runtime.skillsFor(fixture.workspace, undefined, false)!;
            assert.notEqual(untrusted, trusted);
            assert.deepEqual(trusted.all.map(skill => skill.name).sort(), ['mine', 'tone']);
            assert.deepEqual(untrusted.all.map(skill => skill.name), ['mine']);
        });

        it('is undefined when the user turned skills off', () => {
            assert.equal(runtime.skillsFor(fixture.workspace, { enabled: false, folders: [] }, true), undefined);
        });
    });

    describe('dispose', () => {
        /** Counts the configuration's listeners that are still subscribed. */
        const watchListeners = (service: ConfigurationService): Set<unknown> => {
            const live = new Set<unknown>();
            const subscribe = service.onDidChange.bind(service);
            service.onDidChange = listener => {
                const stop = subscribe(listener);
                const entry = {};
                live.add(entry);
                return () => {
                    live.delete(entry);
                    return stop();
                };
            };
            return live;
        };

        it('can be called twice: stops watching the stored keys once and disposes each skills engine once', () => {
            let stopped = 0;
            const disposable = new QodeAssistRuntime({
                secrets: new EnvironmentSecretsStore({}), userHome: home,
                onSecretsChange: () => () => { stopped++; }
            });
            const engines = [disposable.skillsFor(fixture.workspace, undefined, true)!, disposable.skillsFor(fixture.workspace, undefined, false)!];
            const disposed = new Map<SkillsEngine, number>();
            for (const engine of engines) {
                const dispose = engine.dispose.bind(engine);
                engine.dispose = () => {
                    disposed.set(engine, (disposed.get(engine) ?? 0) + 1);
                    dispose();
                };
            }
            disposable.dispose();
            disposable.dispose();
            assert.equal(stopped, 1);
            assert.deepEqual(engines.map(engine => disposed.get(engine)), [1, 1]);
            assert.equal(disposable.skillsFor(fixture.workspace, undefined, true), undefined, 'no new engine after dispose');
        });

        it('stops watching the configurations: a change afterwards resolves nothing again', async () => {
            const live = watchListeners(configuration);
            const pool = runtime.sessions(configuration);
            const agent = await pool.agent('fake-openai');
            assert.equal(live.size, 1);
            runtime.dispose();
            assert.equal(live.size, 0);
            configuration.reload();
            assert.equal(await pool.agent('fake-openai'), agent);
        });

        it('a pool asked for after dispose does not subscribe to the configuration (it would never be unsubscribed)', () => {
            const live = watchListeners(configuration);
            runtime.dispose();
            runtime.sessions(configuration);
            assert.equal(live.size, 0);
        });
    });
});
