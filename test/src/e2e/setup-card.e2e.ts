import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording } from '../fake-provider/recordings';
import { controlsWithoutNameOrTooltip, describeViolations, seriousViolations } from './axe-check';
import { ChatPage } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

describe('Quick Setup card in Chromium: offers what answered, reads cleanly, passes axe', function () {
    this.timeout(180_000);

    // The bundled chat roster starts with Ollama; here nothing answers where Ollama and llama.cpp are
    // expected (port 9), while "LM Studio" (the fake server) does.
    const session = useBrowserApp(fake => ({
        files: { 'README.md': 'a project\n' },
        userFiles: {
            '.qodeassist/providers/ollama.toml': 'schema_version = 1\nname = "ollama"\nclient_api = "ollama"\nurl = "http://127.0.0.1:9"\n',
            '.qodeassist/providers/llamacpp.toml': 'schema_version = 1\nname = "llamacpp"\nclient_api = "llamacpp"\nurl = "http://127.0.0.1:9"\n',
            '.qodeassist/providers/lmstudio.toml': `schema_version = 1\nname = "lmstudio"\nclient_api = "lmstudio"\nurl = "${fake.url}/v1"\n`
        }
    }));
    const { fake, app } = session;
    let page: Page;
    before(() => { page = session.page; });

    it('selects the first preset that answered, not the one the chat just failed on, and says what each check found', async () => {
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        const card = page.locator('.qa-chat .qa-setup');
        await card.waitFor({ timeout: 30_000 });
        assert.deepEqual(await card.locator('button[aria-pressed=true]').evaluateAll(buttons => buttons.map(button => button.getAttribute('data-preset'))), ['lmstudio']);
        const badges = Object.fromEntries(await card.locator('.qa-setup-presets button').evaluateAll(buttons => buttons.map(button =>
            [button.getAttribute('data-preset'), button.querySelector('.qa-setup-badge')?.getAttribute('data-badge') ?? ''])));
        assert.deepEqual([badges.ollama, badges.llamacpp, badges.lmstudio, badges.claude], ['failed', 'no answer', 'answers', '']);
        assert.equal(await card.locator('input[data-field=url]').inputValue(), `${fake.url}/v1`, 'the selected preset\'s URL is shown');

        const reason = await card.locator('.qa-setup-reason').textContent() ?? '';
        assert.match(reason, /^The chat has no agent it can reach\. ollama-chat: /);
        assert.doesNotMatch(reason, /\(ollama-chat/, 'the provider\'s sentence is not wrapped in parentheses');
        assert.equal(await card.locator('.qa-setup-pick').textContent(), 'Choose a provider:');

        const violations = await seriousViolations(page, '.qa-setup');
        assert.equal(violations.length, 0, `axe found serious or critical violations in the setup card:\n${describeViolations(violations)}`);
        assert.deepEqual(await controlsWithoutNameOrTooltip(page, '.qa-setup'), []);
        await page.screenshot({ path: screenshotPath('setup-card-preselected') });

        await card.locator('button[data-preset=claude]').click();
        assert.equal(await card.locator('label', { has: page.locator('input[data-field=key]') }).locator('.qa-setup-hint').textContent(),
            'Kept for your user on the machine running QodeAssist, never in the browser. Or set ANTHROPIC_API_KEY there instead.');
        await card.locator('[data-action=apply-setup]').click();
        const result = card.locator('.qa-setup-result[data-status=needs-key]');
        await result.waitFor({ timeout: 10_000 });
        assert.equal(await result.textContent(), 'Enter the Anthropic Claude key (or set ANTHROPIC_API_KEY where QodeAssist runs).');
        const withKey = await seriousViolations(page, '.qa-setup');
        assert.equal(withKey.length, 0, describeViolations(withKey));
        await page.screenshot({ path: screenshotPath('setup-card-key') });
    });

    it('uses the preset that answered: its agent comes first and the chat answers through it', async () => {
        const card = page.locator('.qa-chat .qa-setup');
        await card.locator('button[data-preset=lmstudio]').click();
        await card.locator('[data-action=apply-setup]').click();
        await card.waitFor({ state: 'detached', timeout: 20_000 });
        assert.match(readFileSync(join(app.home, '.qodeassist', 'agents', 'rosters.toml'), 'utf8'), /\[chat\]\nagents = \["lmstudio-chat"/);

        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Hello from LM Studio.') });
        const chat = new ChatPage(page);
        await chat.send('hi');
        await chat.waitForLastAnswer('done');
        assert.match(await chat.lastAnswer().textContent() ?? '', /Hello from LM Studio\./);
        assert.equal(fake.lastModelRequest()!.path, '/v1/chat/completions');
    });
});
