// Checks a runtime tree before it ships: the backend finds the bundled agents, providers and core
// where its bundle looks for them, the configuration loads with bundled agents in it, and the backend
// starts and answers HTTP on a free 127.0.0.1 port. Fails (exit 1, with the cause) otherwise, so an
// image whose every chat would fail is never built.
// Usage: node check-tree.mjs TREE
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const START_TIMEOUT_MS = 90_000;
const tree = resolve(process.argv[2] ?? '');
const main = join(tree, 'browser-app', 'lib', 'backend', 'main.js');

/** The throw-away home and workspace of the check; removed on every way out (process.exit skips finally). */
let scratch;

function fail(message) {
    console.error(`build-tree: the runtime tree in ${tree} cannot run: ${message}`);
    if (scratch) {
        rmSync(scratch, { recursive: true, force: true });
    }
    process.exit(1);
}

// Resolved from the backend bundle's own folder, as its require.resolve calls are.
const requireFromBackend = createRequire(main);
for (const module of ['@qodeassist/agents/package.json', '@qodeassist/providers/package.json', '@qodeassist/core/package.json', '@qodeassist/core/bin/qodeassist-mcp.js']) {
    try {
        requireFromBackend.resolve(module);
    } catch (error) {
        fail(`${module} is not found from ${main} (${error.message.split('\n')[0]}); the tree lacks a workspace package`);
    }
}
scratch = mkdtempSync(join(tmpdir(), 'qodeassist-check-tree-scratch-'));
try {
    const core = requireFromBackend('@qodeassist/core');
    const configuration = core.loadConfiguration(core.defaultConfigRoots(undefined, scratch));
    const errors = configuration.issues.filter(issue => issue.severity === 'error');
    if (configuration.agents.size === 0 || errors.length) {
        fail(`the bundled configuration loads ${configuration.agents.size} agents${errors.length ? `, with errors: ${errors.map(issue => `${issue.file}: ${issue.message}`).join('; ')}` : ''}`);
    }
    await answers();
    console.log(`build-tree: checked ${tree}: ${configuration.agents.size} bundled agents load, the backend starts and answers`);
} finally {
    rmSync(scratch, { recursive: true, force: true });
}

/** Starts the backend as the image does (its own workspace and home, here throw-away) until it answers, then stops it. */
async function answers() {
    const workspace = join(scratch, 'workspace');
    const env = { ...process.env, HOME: scratch, THEIA_CONFIG_DIR: join(scratch, '.theia'), NODE_ENV: 'production', QODEASSIST_STATE_DIR: join(scratch, 'state') };
    const child = spawn(process.execPath, [main, workspace, '--hostname=127.0.0.1', '--port=0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let failure;
    try {
        const url = await new Promise((resolveUrl, reject) => {
            const timer = setTimeout(() => reject(new Error(`it did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
            const onData = chunk => {
                output += chunk.toString();
                const match = /listening on (http:\/\/[\d.]+:\d+)/i.exec(output);
                if (match) {
                    clearTimeout(timer);
                    resolveUrl(match[1]);
                }
            };
            child.stdout.on('data', onData);
            child.stderr.on('data', onData);
            child.once('exit', code => {
                clearTimeout(timer);
                reject(new Error(`it exited with ${code}`));
            });
        });
        const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
        if (response.status !== 200) {
            throw new Error(`${url} answered ${response.status}`);
        }
    } catch (error) {
        failure = error;
    }
    // Stopped before any way out: a failed check leaves no backend behind.
    if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise(done => child.once('exit', done));
        child.kill('SIGTERM');
        const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(forced);
    }
    if (failure) {
        fail(`the backend ${main}: ${failure.message}\n${output.slice(-4000)}`);
    }
}
