import * as assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Page } from 'playwright-core';
import { deployManifests, REPO_ROOT, sessionPolicyFacts, writeConfigMapVolume } from '../deploy/theia-cloud-manifests';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { ChatPage } from './chat-page';
import { launchChromium, screenshotPath } from './chromium';
import { runCommand, waitForTheiaShell } from './theia-page';

/** The pod's user: not root, and owner of nothing in the tree (nobody/nogroup). */
const POD_UID = 65534;
const POD_GID = 65534;
const GATEWAY_KEY = 'sk-e2e-gateway-key-from-mounted-secret-0123';
const SESSION_USER = 'alice@corp.example';

/** Every file of a tree with its size and modification time: what "nothing was written here" is checked against. */
function snapshot(root: string): string[] {
    const entries: string[] = [];
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            const path = join(dir, entry.name);
            if (entry.isDirectory()) {
                walk(path);
            } else {
                const stats = statSync(path);
                entries.push(`${relative(root, path)} ${stats.size} ${stats.mtimeMs}`);
            }
        }
    };
    walk(root);
    return entries.sort();
}

/** Runs a command to its end with its output in a log file (shown on failure): the build prints thousands of lines. */
async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; log: string }): Promise<void> {
    const log = openSync(options.log, 'a');
    try {
        const code = await new Promise<number | null>((resolve, reject) => {
            const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', log, log] });
            child.once('error', reject);
            child.once('exit', resolve);
        });
        if (code !== 0) {
            throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${readFileSync(options.log, 'utf8').slice(-6000)}`);
        }
    } finally {
        closeSync(log);
    }
}

/**
 * The Theia Cloud image without a container builder: the Dockerfile's build stage
 * (deploy/theia-cloud/build-tree.sh) runs on a clean copy of the repository (`git archive` of the
 * working tree's state), and the backend starts from that tree as the pod starts it — as a user
 * who owns nothing in it, the tree read-only, the administrator's layer mounted from the real
 * ConfigMap the way the kubelet lays it out, the key from a Secret file, the variables the Kyverno
 * policy sets, and the gateway (here the fake provider) as the only way out.
 * QODEASSIST_DEPLOY_SOURCE names a clean source folder to build in instead (to iterate on this test).
 */
describe('the Theia Cloud image\'s tree, built from a clean clone and started as the pod starts it', function () {
    this.timeout(240_000);
    const scratch = mkdtempSync(join(tmpdir(), 'qodeassist-theia-cloud-'));
    const tree = join(scratch, 'app');
    const volumes = join(scratch, 'volumes');
    const managed = join(volumes, 'managed');
    const secrets = join(volumes, 'secrets');
    const workspace = join(volumes, 'project');
    const stateDir = join(volumes, 'state');
    const home = join(volumes, 'tmp', 'home');
    const fake = new FakeProviderServer();
    const policy = sessionPolicyFacts();
    let backend: ChildProcess | undefined;
    let output = '';
    let built: string[] = [];
    let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
    let page: Page;
    let chat: ChatPage;

    /**
     * The working tree's tracked state as a commit, without touching the index: HEAD when nothing
     * changed (a clean checkout, as in CI) or when git cannot make one (it says why on stderr).
     */
    function workingTreeCommit(): string {
        const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
        if (!dirty) {
            return 'HEAD';
        }
        try {
            // An identity of its own: the machine may have none, and the stash commit needs one.
            return execFileSync('git', ['-c', 'user.name=qodeassist-e2e', '-c', 'user.email=e2e@localhost', 'stash', 'create'],
                { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim() || 'HEAD';
        } catch {
            return 'HEAD';
        }
    }

    before(async function () {
        // Building the tree from nothing (npm ci, tsc, theia build) takes minutes; the time is printed.
        this.timeout(30 * 60_000);
        chmodSync(scratch, 0o755);
        let source = process.env.QODEASSIST_DEPLOY_SOURCE;
        if (!source) {
            source = join(scratch, 'src');
            mkdirSync(source);
            // The working tree's tracked state as a commit, without touching the index (HEAD when nothing changed).
            const commit = workingTreeCommit();
            execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C '${source}'`], { cwd: REPO_ROOT });
        }
        const started = Date.now();
        await run('sh', [join(source, 'deploy', 'theia-cloud', 'build-tree.sh'), source, tree], {
            cwd: source, log: join(scratch, 'build.log'),
            // npm's cache, as a developer's or CI's machine has it: packages are not fetched again.
            env: { ...process.env, npm_config_prefer_offline: 'true' }
        });
        console.log(`      (the image's tree built from a clean clone in ${Math.round((Date.now() - started) / 1000)} s)`);
        execFileSync('chmod', ['-R', 'a-w', tree]);
        built = snapshot(tree);

        // The volumes, as session-volumes.yaml mounts them.
        await fake.start();
        const origin = new URL(fake.url).origin;
        const config = deployManifests().find(document => document.kind === 'ConfigMap' && document.metadata.name === policy.configMapName) as unknown as { data: Record<string, string> };
        const data = Object.fromEntries(Object.entries(config.data).map(([key, text]) => [key, text.split('https://llm-gateway.corp.example').join(origin)]));
        mkdirSync(managed, { recursive: true });
        writeConfigMapVolume(managed, data, policy.managedItems);
        mkdirSync(secrets, { recursive: true });
        const keyFile = join(secrets, policy.env.QODEASSIST_GATEWAY_API_KEY_FILE.split('/').pop()!);
        writeFileSync(keyFile, `${GATEWAY_KEY}\n`, { mode: 0o440 });
        chownSync(keyFile, 0, POD_GID);
        for (const dir of [workspace, stateDir, home]) {
            mkdirSync(dir, { recursive: true });
            chownSync(dir, POD_UID, POD_GID);
        }
        // Where chats go is the user's own setting (a repository's .theia/settings.json cannot move them).
        mkdirSync(join(home, '.theia'));
        writeFileSync(join(home, '.theia', 'settings.json'), JSON.stringify({ 'qodeassist.chat.historyLocation': 'user' }));
        chownSync(join(home, '.theia'), POD_UID, POD_GID);
        chownSync(join(home, '.theia', 'settings.json'), POD_UID, POD_GID);

        const env: NodeJS.ProcessEnv = {
            PATH: process.env.PATH, LANG: 'C.UTF-8', NODE_ENV: 'production', HOME: home, THEIA_CONFIG_DIR: join(home, '.theia'),
            ...policy.env,
            QODEASSIST_STATE_DIR: stateDir, QODEASSIST_MANAGED_DIR: managed, QODEASSIST_GATEWAY_API_KEY_FILE: keyFile,
            QODEASSIST_GATEWAY_URL: policy.env.QODEASSIST_GATEWAY_URL.replace('https://llm-gateway.corp.example', origin),
            THEIACLOUD_SESSION_USER: SESSION_USER
        };
        const main = join(tree, 'browser-app', 'lib', 'backend', 'main.js');
        backend = spawn('setpriv', [`--reuid=${POD_UID}`, `--regid=${POD_GID}`, '--clear-groups', process.execPath, main, workspace, '--hostname=127.0.0.1', '--port=0'],
            { cwd: join(tree, 'browser-app'), env, stdio: ['ignore', 'pipe', 'pipe'] });
        const url = await new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`the backend did not start within 90 s:\n${output}`)), 90_000);
            const onData = (chunk: Buffer) => {
                output += chunk.toString();
                const match = /listening on (http:\/\/[\d.]+:\d+)/i.exec(output);
                if (match) {
                    clearTimeout(timer);
                    resolve(match[1]);
                }
            };
            backend!.stdout!.on('data', onData);
            backend!.stderr!.on('data', onData);
            backend!.once('exit', code => {
                clearTimeout(timer);
                reject(new Error(`the backend exited with ${code}:\n${output}`));
            });
        });
        chromium = await launchChromium();
        page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(url);
        await waitForTheiaShell(page, true);
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        chat = new ChatPage(page);
        await chat.input.waitFor({ state: 'visible', timeout: 30_000 });
    });
    afterEach(async function () {
        if (this.currentTest?.state === 'failed' && page) {
            await page.screenshot({ path: screenshotPath(`failed-theia-cloud-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`) });
        }
    });
    after(async () => {
        await chromium?.close();
        if (backend && backend.exitCode === null) {
            const exited = new Promise(done => backend!.once('exit', done));
            backend.kill('SIGTERM');
            await exited;
        }
        await fake.stop();
        execFileSync('chmod', ['-R', 'u+w', scratch]);
        rmSync(scratch, { recursive: true, force: true });
    });

    it('runs as the pod\'s user, who owns nothing in the tree', () => {
        const status = readFileSync(`/proc/${backend!.pid}/status`, 'utf8');
        assert.match(status, new RegExp(`^Uid:\\s+${POD_UID}\\s+${POD_UID}\\s+${POD_UID}\\s+${POD_UID}$`, 'm'), 'setpriv replaced itself with node: the backend runs as nobody');
        assert.equal(statSync(tree).uid, 0);
    });

    it('the managed agent answers through the gateway: the key from the Secret file, the user\'s identity on the chat and the model list, no other provider reached', async () => {
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Hello from the pod.') });
        await chat.send('Hello');
        await chat.waitForLastAnswer('done', 60_000);
        assert.match(await chat.lastAnswer().textContent() ?? '', /Hello from the pod\./);
        const sent = fake.requests.filter(request => request.method === 'POST');
        assert.equal(sent.length, 1);
        assert.equal(sent[0].path, '/v1/chat/completions', 'no doubled /v1');
        assert.equal(sent[0].headers.authorization, `Bearer ${GATEWAY_KEY}`);
        assert.equal(sent[0].headers['x-litellm-end-user-id'], SESSION_USER);
        assert.equal(JSON.parse(sent[0].body).model, 'corp-default', 'the administrator\'s agent from the ConfigMap, first in its roster');
        // The chat's setup check lists the agent's models (the Quick Setup's listing) before the first send.
        const listings = fake.requests.filter(request => request.method === 'GET');
        assert.ok(listings.some(listing => listing.path === '/v1/models'), 'the model list was asked of the gateway');
        for (const listing of listings) {
            assert.equal(listing.headers['x-litellm-end-user-id'], SESSION_USER, `${listing.path} carries the identity`);
        }
    });

    it('keeps the chat in the state dir, outside the workspace, and writes nothing into the tree', async () => {
        const chats = () => { try { return readdirSync(join(stateDir, '.qodeassist', 'chats')).filter(name => name.endsWith('.json')); } catch { return []; } };
        const deadline = Date.now() + 10_000;
        while (chats().length === 0 && Date.now() < deadline) {
            await new Promise(resolve => setTimeout(resolve, 100));
        }
        assert.equal(chats().length, 1, 'the chat is in the state dir');
        assert.equal(statSync(join(stateDir, '.qodeassist')).uid, POD_UID);
        assert.ok(!readdirSync(workspace).some(name => name.startsWith('.qodeassist')), 'nothing of the state dir in the workspace');
        await page.screenshot({ path: screenshotPath('theia-cloud-image') });
        assert.deepEqual(snapshot(tree), built, 'the image\'s tree stays as built (a read-only root filesystem works)');
    });
});
