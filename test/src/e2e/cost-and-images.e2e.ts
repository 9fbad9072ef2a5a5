import * as assert from 'node:assert/strict';
import { Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { runCommand } from './theia-page';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A priced provider on the fake server, an agent that takes images and one whose template sends text only. */
function configuration(serverUrl: string): Record<string, string> {
    return {
        '.qodeassist/providers/fake.toml': [
            'schema_version = 1', 'name = "fake"', 'client_api = "openai_compatible"', `url = "${serverUrl}/v1"`, 'api_key_ref = "e2e"', '',
            '[pricing."fake-model"]', 'input_per_mtok = 3.0', 'output_per_mtok = 15.0', 'currency = "USD"', ''
        ].join('\n'),
        '.qodeassist/agents/fake-chat.toml': 'schema_version = 1\nname = "fake-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = "fake-model"\n',
        '.qodeassist/agents/fake-text.toml': 'schema_version = 1\nname = "fake-text"\nextends = "fake-chat"\n\n[body]\nmessages = "{% include \'openai/text-messages.njk\' %}"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[chat]\nagents = ["fake-chat", "fake-text"]\n',
        'src/a.ts': 'export const a = 1;\n'
    };
}

async function dropImage(page: Page, name: string): Promise<void> {
    const transfer = await page.evaluateHandle(([fileName, base64]) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(base64), c => c.charCodeAt(0))], fileName, { type: 'image/png' }));
        return data;
    }, [name, PNG] as const);
    await page.locator('.qa-chat .qa-composer').dispatchEvent('drop', { dataTransfer: transfer });
}

describe('images follow the agent, and what a chat cost, in Chromium', function () {
    this.timeout(180_000);

    const session = useBrowserChat(fake => ({ files: configuration(fake.url), env: { E2E_API_KEY: 'sk-e2e-cost-0123456789' } }));
    const { fake } = session;
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const lastBody = () => JSON.parse(fake.lastModelRequest()!.body);

    it('refuses an image for an agent that takes none at once, offers the agents that do, and attaches it on switching', async () => {
        const picker = page.locator('.qa-chat .qa-agent-picker');
        await page.locator('.qa-chat .qa-agent-picker option[value="fake-text"]').waitFor({ state: 'attached', timeout: 20_000 });
        await picker.selectOption('fake-text');
        await dropImage(page, 'login-form.png');
        const notice = page.locator('.qa-chat .qa-image-notice');
        await notice.waitFor({ timeout: 10_000 });
        assert.equal(await notice.getAttribute('role'), 'alert');
        assert.match(await notice.textContent() ?? '', /fake-text takes no images \(its request template sends text only\), so "login-form\.png" was not attached\. Switch to an agent that takes images to attach it:/);
        assert.equal(await page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="login-form.png"]').count(), 0, 'nothing was attached');
        await page.screenshot({ path: screenshotPath('chat-image-refused') });

        await notice.locator('button[data-switch-agent="fake-chat"]').click();
        await page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="login-form.png"]').waitFor({ timeout: 10_000 });
        assert.equal(await picker.inputValue(), 'fake-chat');
        assert.equal(await notice.count(), 0);

        await picker.selectOption('fake-text');
        await notice.waitFor({ timeout: 10_000 });
        assert.match(await notice.textContent() ?? '', /"login-form\.png" cannot go with the next message\. Switch to an agent that takes images, or remove the image:/);
        await page.screenshot({ path: screenshotPath('chat-image-cannot-go') });
        await notice.locator('button[data-switch-agent="fake-chat"]').click();
        await notice.waitFor({ state: 'detached', timeout: 10_000 });

        fake.enqueue({ kind: 'replay', recording: openAITextRecording('A login form.') });
        await chat.send('what is this?');
        await chat.waitForLastAnswer('done');
        const content = lastBody().messages.at(-1).content as Array<{ type: string }>;
        assert.ok(content.some(part => part.type === 'image_url'), JSON.stringify(content));
    });

    it('sums every request of a tool round in the usage line and shows the turn\'s and the chat\'s cost in the counter and in Chat History', async () => {
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: 'list_project_files', arguments: {} }], 1_000) },
            { kind: 'replay', recording: openAITextRecording('One source file: src/a.ts.', 2_000) }
        );
        await chat.send('which files are there?');
        await chat.waitForLastAnswer('done');
        const usage = chat.lastAnswer().locator('.qa-usage');
        // 1000 + 2000 in, 20 + 10 out; 3000 × $3 + 30 × $15 per million.
        assert.match(await usage.textContent() ?? '', /^2 requests · 3000 in · 30 out · \$0\.009\d$/);
        const tooltip = await usage.getAttribute('title') ?? '';
        assert.match(tooltip, /Request 1: 1000 in · 20 out · \$0\.0033\nRequest 2: 2000 in · 10 out · \$0\.0062/);

        await chat.input.fill('and the tests?');
        const counter = page.locator('.qa-chat .qa-token-counter');
        await counter.waitFor({ timeout: 10_000 });
        await counter.click();
        const cost = page.locator('.qa-chat .qa-manifest [data-cost]');
        await cost.waitFor({ timeout: 10_000 });
        assert.match(await cost.locator('[data-cost-turn]').textContent() ?? '', /^Last turn: \$0\.009\d$/);
        // The first turn's answer (in 100, out 10: $0.00045) and this one.
        assert.match(await cost.locator('[data-cost-chat]').textContent() ?? '', /^This chat: \$0\.009\d$/);
        await page.screenshot({ path: screenshotPath('chat-cost-popover') });
        await counter.click();
        await chat.input.fill('');

        await runCommand(page, 'QodeAssist: Chat History…');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'what is this?' });
        await row.waitFor({ timeout: 10_000 });
        assert.match(await row.textContent() ?? '', /cost \$0\.0\d+/);
        await page.screenshot({ path: screenshotPath('chat-history-cost') });
        await page.keyboard.press('Escape');
    });
});
