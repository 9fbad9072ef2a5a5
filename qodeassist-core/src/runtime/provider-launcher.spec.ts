import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigRoots, defaultConfigRoots } from '../config/config-layers';
import { EnvironmentSecretsStore } from '../config/secrets-store';
import { QodeAssistRuntime } from './qodeassist-runtime';
import { SessionEvent } from '../session/session-events';
import { ConfigurationService } from '../agents/configuration-service';
import { loadConfiguration } from '../agents/configuration-loader';
import { LaunchStatus, ProviderLauncher, ProviderLaunchError } from './provider-launcher';
import { processAlive } from '../config/process-alive';

/**
 * A stand-in for `ollama serve`: appends its pid to a marker file, listens on the port after a
 * delay, lists no models on /api/tags and answers every chat with "Hello".
 */
const FAKE_SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const [port, delayMs, marker] = process.argv.slice(2);
fs.appendFileSync(marker, process.pid + '\\n');
setTimeout(() => {
    http.createServer((request, response) => {
        if (request.url === '/api/tags') {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end('{"models":[]}');
            return;
        }
        request.resume();
        request.on('end', () => {
            response.writeHead(200, { 'content-type': 'application/x-ndjson' });
            response.write(JSON.stringify({ model: 'm', message: { role: 'assistant', content: 'Hello' }, done: false }) + '\\n');
            response.end(JSON.stringify({ model: 'm', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 3, eval_count: 1 }) + '\\n');
        });
    }).listen(Number(port), '127.0.0.1');
}, Number(delayMs));
`;

async function freePort(): Promise<number> {
    return new Promise(done => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
            const port = (server.address() as { port: number }).port;
            server.close(() => done(port));
        });
    });
}

function isGone(pid: number): boolean {
    return !processAlive(pid);
}

async function goneSoon(pid: number): Promise<boolean> {
    for (let i = 0; i < 100 && !isGone(pid); i++) {
        await new Promise(done => setTimeout(done, 50));
    }
    return isGone(pid);
}

const pidsIn = (marker: string): number[] => existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).map(Number) : [];

describe('ProviderLauncher: [launch] starts a provider\'s server on first use', () => {
    let root: string;
    let user: string;
    let script: string;
    let marker: string;
    let port: number;
    const runtimes: QodeAssistRuntime[] = [];
    const services: ConfigurationService[] = [];
    const outside: ChildProcess[] = [];

    beforeEach(async () => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-launch-'));
        user = join(root, 'user');
        mkdirSync(join(user, 'providers'), { recursive: true });
        mkdirSync(join(user, 'agents'), { recursive: true });
        script = join(root, 'fake-server.js');
        writeFileSync(script, FAKE_SERVER);
        marker = join(root, 'started');
        port = await freePort();
    });
    afterEach(async () => {
        for (const runtime of runtimes.splice(0)) {
            runtime.dispose();
            await runtime.launcher.dispose();
        }
        services.splice(0).forEach(service => service.dispose());
        outside.splice(0).forEach(child => child.kill('SIGKILL'));
        for (const pid of pidsIn(marker)) {
            try {
                process.kill(pid, 'SIGKILL');
            } catch {
                // already gone
            }
        }
        rmSync(root, { recursive: true, force: true });
    });

    const launchSection = (delayMs: number, timeout = 20) =>
        `[launch]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([script, String(port), String(delayMs), marker])}\nstart_timeout = ${timeout}\n`;
    const provider = (folder: string, extra: string) => {
        const path = join(folder, 'providers', 'local.toml');
        mkdirSync(join(folder, 'providers'), { recursive: true });
        writeFileSync(path, `schema_version = 1\nname = "local"\nclient_api = "ollama"\nurl = "http://127.0.0.1:${port}"\n${extra}`);
        return path;
    };
    const agent = (folder: string) => {
        mkdirSync(join(folder, 'agents'), { recursive: true });
        writeFileSync(join(folder, 'agents', 'local-chat.toml'), 'schema_version = 1\nname = "local-chat"\nextends = "ollama-base"\nprovider_instance = "local"\nmodel = "m"\n');
    };
    const roots = (project?: string): ConfigRoots => {
        const bundled = defaultConfigRoots();
        return { bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user, project };
    };
    const runtimeFor = (configurationRoots: ConfigRoots) => {
        const configuration = new ConfigurationService(configurationRoots);
        services.push(configuration);
        const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({}), userHome: root });
        runtimes.push(runtime);
        return { configuration, runtime };
    };
    /** Sends one message with a fresh session and resolves with the events of the request. */
    const ask = async (runtime: QodeAssistRuntime, configuration: ConfigurationService): Promise<SessionEvent[]> => {
        const events: SessionEvent[] = [];
        let ended!: () => void;
        const done = new Promise<void>(resolve => { ended = resolve; });
        const pool = runtime.sessions(configuration);
        const session = await pool.acquire('local-chat', batch => {
            events.push(...batch);
            if (batch.some(event => event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled')) {
                ended();
            }
        });
        await session.send([{ type: 'text', text: 'hi' }]);
        await done;
        await pool.release(session);
        return events;
    };
    const outcome = (events: SessionEvent[]) => {
        const end = events.find(event => event.type === 'Finished' || event.type === 'Failed');
        const text = events.filter(event => event.type === 'TextDelta').map(event => (event as { text: string }).text).join('');
        return end?.type === 'Failed' ? `Failed: ${end.error.category}: ${end.error.message}` : `${end?.type}: ${text}`;
    };

    it('starts the server when the first request finds its port closed, waits until it answers, then sends; a second request starts nothing more', async () => {
        provider(user, launchSection(300));
        agent(user);
        const { configuration, runtime } = runtimeFor(roots());
        const statuses: LaunchStatus[] = [];
        const underWay: LaunchStatus[][] = [];
        runtime.launcher.onStatus(status => {
            statuses.push(status);
            underWay.push(runtime.launcher.startingNow);
        });

        assert.equal(outcome(await ask(runtime, configuration)), 'Finished: Hello');
        assert.equal(outcome(await ask(runtime, configuration)), 'Finished: Hello');

        assert.equal(pidsIn(marker).length, 1, 'started exactly once');
        assert.deepEqual(statuses.map(status => [status.state, status.summary]), [['starting', 'starting Local…'], ['ready', 'Local is ready']]);
        assert.match(statuses[0].message, /^starting Local… \(/);
        assert.deepEqual(underWay.map(list => list.map(status => status.state)), [['starting'], []], 'the start is under way between its two statuses');
        assert.deepEqual(runtime.launcher.startingNow, [], 'no start under way once it is ready');
        assert.deepEqual(runtime.launcher.running, ['local']);
    });

    it('starts one server for requests that arrive together', async () => {
        provider(user, launchSection(300));
        agent(user);
        const { configuration, runtime } = runtimeFor(roots());
        const outcomes = await Promise.all([ask(runtime, configuration), ask(runtime, configuration)]);
        assert.deepEqual(outcomes.map(outcome), ['Finished: Hello', 'Finished: Hello']);
        assert.equal(pidsIn(marker).length, 1);
    });

    it('a server that does not get ready within start_timeout is stopped, with a typed error naming the provider, the command and the key', async () => {
        const file = provider(user, launchSection(60_000, 0.5));
        const launcher = new ProviderLauncher({ pollMs: 50 });
        const local = loadConfiguration(roots()).providers.get('local')!;
        try {
            await assert.rejects(launcher.ensureRunning(local), (error: unknown) => {
                assert.ok(error instanceof ProviderLaunchError);
                assert.deepEqual([error.info.category, error.provider, error.key], ['Network', 'local', 'launch.start_timeout']);
                assert.equal(error.command, `${process.execPath} ${script} ${port} 60000 ${marker}`);
                assert.equal(error.message, `Provider "local" did not get ready within 0.5 s of starting "${error.command}", so it was stopped. Raise [launch] start_timeout in ${file}, or start the server yourself.`);
                return true;
            });
            assert.equal(await goneSoon(pidsIn(marker)[0]), true, 'the server that never got ready is gone');
            assert.deepEqual(launcher.running, []);
        } finally {
            await launcher.dispose();
        }
    });

    it('dispose stops the server it started, and never one that was already running', async () => {
        provider(user, launchSection(0));
        const local = loadConfiguration(roots()).providers.get('local')!;
        const launcher = new ProviderLauncher();
        await launcher.ensureRunning(local);
        const [pid] = pidsIn(marker);
        await launcher.dispose();
        assert.equal(await goneSoon(pid), true);

        // Someone else's server on the port: found open, so nothing is started and nothing is stopped.
        const theirs = join(root, 'theirs');
        const running = spawn(process.execPath, [script, String(port), '0', theirs], { stdio: 'ignore' });
        outside.push(running);
        const other = new ProviderLauncher();
        while (!(await fetch(`http://127.0.0.1:${port}/api/tags`).then(response => response.ok, () => false))) {
            await new Promise(done => setTimeout(done, 50));
        }
        await other.ensureRunning(local);
        await other.dispose();
        assert.deepEqual(pidsIn(marker), [pid], 'nothing new was started');
        assert.equal(isGone(running.pid!), false, 'the server that was already running still runs');
        assert.equal(await fetch(`http://127.0.0.1:${port}/api/tags`).then(response => response.status), 200);
    });

    describe('the program is judged by what it really is (attack: links around the workspace)', () => {
        const launchWith = (command: string) =>
            `[launch]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify([script, String(port), '0', marker])}\nstart_timeout = 20\n`;

        it('a link outside the workspace that leads to a program inside it is refused: nothing starts, the error names the target', async () => {
            const workspace = join(root, 'workspace');
            mkdirSync(join(workspace, 'bin'), { recursive: true });
            const planted = join(workspace, 'bin', 'serve');
            writeFileSync(planted, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
            const link = join(root, 'tools', 'ollama');
            mkdirSync(join(root, 'tools'));
            symlinkSync(planted, link);
            provider(user, launchWith(link));
            const launcher = new ProviderLauncher();
            try {
                await assert.rejects(launcher.ensureRunning(loadConfiguration(roots()).providers.get('local')!, { workspaceRoots: [workspace] }), (error: unknown) => {
                    assert.ok(error instanceof ProviderLaunchError);
                    assert.deepEqual([error.info.category, error.key], ['Config', 'launch.command']);
                    assert.ok(error.message.includes(`${link} (a link to ${realpathSync(planted)}) is inside the workspace, and QodeAssist never starts a program from a workspace`), error.message);
                    return true;
                });
                assert.equal(existsSync(marker), false, 'nothing was started');
            } finally {
                await launcher.dispose();
            }
        });

        it('a link inside the workspace that leads to a program outside it is judged by that program: the program starts', async () => {
            const workspace = join(root, 'workspace');
            mkdirSync(join(workspace, 'bin'), { recursive: true });
            const link = join(workspace, 'bin', 'node');
            symlinkSync(process.execPath, link);
            provider(user, launchWith(link));
            const launcher = new ProviderLauncher();
            try {
                await launcher.ensureRunning(loadConfiguration(roots()).providers.get('local')!, { workspaceRoots: [workspace] });
                assert.equal(pidsIn(marker).length, 1, 'the program the link leads to was started');
            } finally {
                await launcher.dispose();
            }
        });

        it('a program inside the workspace named by its own path is refused', async () => {
            const workspace = join(root, 'workspace');
            mkdirSync(join(workspace, 'bin'), { recursive: true });
            const planted = join(workspace, 'bin', 'serve');
            writeFileSync(planted, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
            provider(user, launchWith(planted));
            const launcher = new ProviderLauncher();
            try {
                await assert.rejects(launcher.ensureRunning(loadConfiguration(roots()).providers.get('local')!, { workspaceRoots: [workspace] }),
                    (error: unknown) => error instanceof ProviderLaunchError && error.message.includes(`${planted} is inside the workspace`));
                assert.equal(existsSync(marker), false);
            } finally {
                await launcher.dispose();
            }
        });
    });

    it('a project provider with [launch] starts nothing, trusted or not: the marker stays absent and a notice names the file', async () => {
        const workspace = join(root, 'workspace');
        const project = join(workspace, '.qodeassist');
        const file = provider(project, launchSection(0));
        agent(project);

        // Untrusted: the project layer is not read, so neither its provider nor its agent exists.
        const untrusted = loadConfiguration(roots());
        assert.deepEqual([untrusted.providers.has('local'), untrusted.agents.has('local-chat')], [false, false]);
        const trusted = runtimeFor(roots(project));
        assert.equal(trusted.configuration.current.issues.some(issue => issue.file === file && issue.severity === 'notice'
            && issue.message === 'project provider "local" has a [launch] section, which QodeAssist never runs from a repository; nothing is started for it'), true);
        assert.match(outcome(await ask(trusted.runtime, trusted.configuration)), /^Failed: Network: /);
        assert.equal(existsSync(marker), false, 'nothing was started');
        assert.deepEqual(trusted.runtime.launcher.running, []);
    });

    it('enabled = false leaves the provider and its agents out of every roster, with a notice naming its file', () => {
        const file = provider(user, 'enabled = false\n');
        agent(user);
        writeFileSync(join(user, 'agents', 'rosters.toml'), 'schema_version = 1\n[chat]\nagents = ["local-chat", "ollama-chat"]\n');
        const configuration = loadConfiguration(roots());
        assert.equal(configuration.providers.has('local'), false);
        assert.equal(configuration.agents.has('local-chat'), false);
        assert.deepEqual(configuration.rosters.chat, ['ollama-chat']);
        assert.deepEqual(configuration.issues.filter(issue => issue.file === file || issue.severity === 'error').map(issue => [issue.severity, issue.file, issue.line, issue.message]), [
            ['notice', file, 5, 'provider "local" is disabled (enabled = false): it and its agents are left out of every roster (local-chat)']
        ]);
    });

    it('a start_timeout that is not a positive number is a Config issue on the provider file', () => {
        const file = provider(user, '[launch]\ncommand = "ollama"\nstart_timeout = 0\n');
        const configuration = loadConfiguration(roots());
        assert.deepEqual(configuration.issues.filter(issue => issue.file === file).map(issue => [issue.severity, issue.message]),
            [['error', '[launch] start_timeout must be more than 0 seconds']]);
        assert.equal(configuration.providers.has('local'), false);
    });
});
