import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording } from '../fake-provider/recordings';
import { REPO_ROOT } from './browser-app-process';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

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

/**
 * The deployment for Theia Cloud, without a container builder: deploy/theia-cloud/build-tree.sh (the
 * Dockerfile's build step) makes the runtime tree in a clean folder, and the app starts from it as
 * the image would — the home a throw-away folder, the state dir on the "workspace volume", the
 * administrator's layer and a key file mounted from folders of their own.
 */
describe('the Theia Cloud deployment\'s runtime tree, started as the image would start it', function () {
    this.timeout(240_000);
    const scratch = mkdtempSync(join(tmpdir(), 'qodeassist-theia-cloud-'));
    const tree = join(scratch, 'app');
    const managed = join(scratch, 'etc', 'qodeassist', 'managed');
    const secrets = join(scratch, 'run', 'secrets', 'qodeassist');
    const fileKey = 'sk-e2e-from-mounted-secret-0123456789';
    let built: string[] = [];

    // The Dockerfile's build stage, into a clean folder; the mounts, as the pod has them.
    execFileSync('sh', [join(REPO_ROOT, 'deploy', 'theia-cloud', 'build-tree.sh'), REPO_ROOT, tree], { stdio: 'pipe' });
    mkdirSync(managed, { recursive: true });
    mkdirSync(secrets, { recursive: true });
    writeFileSync(join(secrets, 'e2e'), `${fileKey}\n`, { mode: 0o440 });
    const stateDir = () => join(session.app.workspace, '.qodeassist-user');

    const session = useBrowserApp(fake => {
        writeFileSync(join(managed, 'policy.toml'), [
            `allowed_origins = [${JSON.stringify(new URL(fake.url).origin)}]`, 'forbidden_agents = ["fake-forbidden"]', 'max_tool_permission = "read"', ''
        ].join('\n'));
        built = snapshot(tree);
        return {
            main: join(tree, 'browser-app', 'lib', 'backend', 'main.js'),
            files: {
                ...workspaceConfiguration(fake.url),
                '.qodeassist/agents/fake-forbidden.toml': 'schema_version = 1\nname = "fake-forbidden"\nextends = "fake-chat"\n',
                // The user's own layer is in the state dir now: there the user lets the workspace provider's key go to its URL.
                '.qodeassist-user/.qodeassist/key_origins.json': JSON.stringify({ e2e: [new URL(fake.url).origin] })
            },
            settings: { 'qodeassist.chat.historyLocation': 'user' },
            env: { QODEASSIST_MANAGED_DIR: managed, QODEASSIST_STATE_DIR: stateDir(), E2E_API_KEY_FILE: join(secrets, 'e2e'), NODE_ENV: 'production' }
        };
    });
    after(() => rmSync(scratch, { recursive: true, force: true }));
    let page: Page;
    let chat: ChatPage;

    before(async () => {
        page = session.page;
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        chat = new ChatPage(page);
        await chat.input.waitFor({ state: 'visible', timeout: 30_000 });
    });

    it('answers with the key from the mounted Secret and keeps the chat in the state dir on the workspace volume', async () => {
        session.fake.enqueue({ kind: 'replay', recording: openAITextRecording('Hello from the pod.') });
        await chat.send('Hello');
        await chat.waitForLastAnswer('done', 30_000);
        assert.equal(session.fake.requests.at(-1)?.headers.authorization, `Bearer ${fileKey}`);
        const deadline = Date.now() + 10_000;
        const chats = () => { try { return readdirSync(join(stateDir(), '.qodeassist', 'chats')).filter(name => name.endsWith('.json')); } catch { return []; } };
        while (chats().length === 0 && Date.now() < deadline) {
            await new Promise(resolve => setTimeout(resolve, 100));
        }
        assert.equal(chats().length, 1, 'the chat is on the workspace volume, not in the pod\'s home');
    });

    it('shows what the administrator forbids as managed by your administrator, and wrote nothing into the app\'s tree', async () => {
        await runCommand(page, 'QodeAssist: Open Configuration');
        const problems = page.locator('[data-section=issues]');
        await problems.waitFor({ state: 'visible', timeout: 20_000 });
        await page.waitForFunction(() => document.querySelector('[data-section=issues]')?.textContent?.includes('managed by your administrator'), undefined, { timeout: 20_000 });
        const shown = await problems.textContent() ?? '';
        assert.match(shown, /agent "fake-forbidden" is managed by your administrator/);
        assert.match(shown, /providers managed by your administrator: .*anthropic \(https:\/\/api\.anthropic\.com\)/);
        await page.screenshot({ path: screenshotPath('theia-cloud-managed') });
        assert.deepEqual(snapshot(tree), built, 'the image\'s tree stays as built (a read-only root filesystem works)');
    });
});
