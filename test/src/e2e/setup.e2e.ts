import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ollamaChatRecording } from '../fake-provider/recordings';
import { ChatPage } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

describe('Quick Setup in Chromium (first run, nothing configured)', function () {
    this.timeout(180_000);

    // No .qodeassist at all: the bundled chat roster starts with Ollama on localhost:11434, where nothing runs.
    const session = useBrowserApp(() => ({ files: { 'README.md': 'a project\n' } }));
    const { fake, app } = session;
    let page: Page;
    before(() => { page = session.page; });

    it('shows the setup card instead of an error, sets up a local server, and the chat answers through it', async () => {
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        const card = page.locator('.qa-chat .qa-setup');
        await card.waitFor({ timeout: 30_000 });
        assert.match(await card.locator('.qa-setup-reason').textContent() ?? '', /ollama-chat/);
        await page.screenshot({ path: screenshotPath('setup-card') });

        await card.locator('button[data-preset=claude]').click();
        await card.locator('[data-action=apply-setup]').click();
        await card.locator('.qa-setup-result[data-status=needs-key]').waitFor({ timeout: 10_000 });

        await card.locator('button[data-preset=ollama]').click();
        await card.locator('input[data-field=url]').fill(fake.url);
        await card.locator('[data-action=apply-setup]').click();
        await card.waitFor({ state: 'detached', timeout: 20_000 });
        assert.match(readFileSync(join(app.root, 'home', '.qodeassist', 'providers', 'ollama.toml'), 'utf8'), new RegExp(`url = "${fake.url}"`));

        fake.enqueue({ kind: 'replay', recording: ollamaChatRecording(['Hello from ', 'the local model.']) });
        const chat = new ChatPage(page);
        await chat.send('hi');
        await chat.waitForLastAnswer('done');
        assert.match(await chat.lastAnswer().textContent() ?? '', /Hello from the local model\./);
        assert.equal(fake.lastModelRequest()!.path, '/api/chat');
        await page.screenshot({ path: screenshotPath('setup-done') });
    });
});
