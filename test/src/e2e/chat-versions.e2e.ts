import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import type { StoredChat } from '@qodeassist/core';
import { openAITextRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { waitForTheiaShell } from './theia-page';

describe('chat versions in Chromium: a failed answer kept across a reload, edit and resend, regenerate, reset and bring back', function () {
    this.timeout(180_000);

    const session = useBrowserChat(fake => ({ files: workspaceConfiguration(fake.url), env: { E2E_API_KEY: 'sk-e2e-versions-0123456789' } }));
    const { fake, app } = session;
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const messages = () => page.locator('.qa-chat .qa-message');
    /** What the view shows: each message's role, status and text. */
    const shown = async () => (await messages().evaluateAll(elements => elements.map(element => {
        const body = Array.from(element.querySelectorAll('.qa-message-body'), part => part.textContent ?? '').join('').trim();
        return `${element.getAttribute('data-role')}/${element.getAttribute('data-status')}: ${body}`.trim();
    })));
    const savedChat = (): StoredChat => {
        const folder = join(app.workspace, '.qodeassist', 'chats');
        const [file] = readdirSync(folder).filter(name => name.endsWith('.json'));
        return JSON.parse(readFileSync(join(folder, file), 'utf8')) as StoredChat;
    };
    async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
        const deadline = Date.now() + 20_000;
        while (!await condition()) {
            if (Date.now() > deadline) {
                throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await shown())}`);
            }
            await new Promise(resolve => setTimeout(resolve, 100));
        }
    }

    it('keeps a failed answer with its error and Retry across a page reload', async () => {
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('A1') });
        await chat.send('Q1');
        await chat.waitForLastAnswer('done');
        fake.enqueue({ kind: 'status', status: 400, body: JSON.stringify({ error: { message: 'the model refused politely' } }) });
        await chat.send('Q2');
        await chat.waitForLastAnswer('failed');
        await until(() => savedChat().history.at(-1)?.ended?.reason === 'failed', 'the failure to be saved');

        await page.reload();
        await waitForTheiaShell(page);
        await chat.input.waitFor({ state: 'visible', timeout: 20_000 });
        await until(async () => (await shown()).length === 4, 'the chat to be shown again');
        assert.deepEqual(await shown(), ['user/done: Q1', 'assistant/done: A1', 'user/done: Q2', 'assistant/failed:']);
        const failed = messages().last();
        assert.match(await failed.textContent() ?? '', /the model refused politely/);
        await page.screenshot({ path: screenshotPath('chat-failed-after-reload') });

        fake.enqueue({ kind: 'replay', recording: openAITextRecording('A2') });
        await failed.locator('button[data-action=retry]').click();
        await until(async () => (await shown()).at(-1) === 'assistant/done: A2', 'the retried answer');
    });

    it('edits and resends the first question: the rest is replaced, and the earlier version can be brought back', async () => {
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('A1 edited') });
        const first = messages().first();
        await first.hover();
        await first.locator('button[data-action=edit-message]').click();
        const editor = first.locator('.qa-question-input');
        await editor.fill('Q1 edited');
        await page.screenshot({ path: screenshotPath('chat-edit-message') });
        await editor.press('Enter');
        await until(async () => JSON.stringify(await shown()) === JSON.stringify(['user/done: Q1 edited', 'assistant/done: A1 edited']), 'the edited turn');
        const sent = JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages);
        assert.ok(sent.includes('Q1 edited') && !sent.includes('Q2'), sent);

        const versions = messages().first().locator('select[data-action=versions]');
        await versions.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('chat-versions') });
        const [, earlier] = await versions.locator('option').evaluateAll(options => options.map(option => (option as HTMLOptionElement).value));
        await versions.selectOption(earlier);
        await until(async () => (await shown()).length === 4, 'the earlier version');
        assert.deepEqual(await shown(), ['user/done: Q1', 'assistant/done: A1', 'user/done: Q2', 'assistant/done: A2']);
        await until(() => savedChat().history.length === 4 && savedChat().branches?.length === 1, 'the switch to be saved, the edit kept as a version');
    });

    it('regenerates the last answer, keeping the earlier one as a version', async () => {
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('A2 again') });
        const answer = messages().last();
        await answer.hover();
        await answer.locator('button[data-action=regenerate]').click();
        await until(async () => (await shown()).at(-1) === 'assistant/done: A2 again', 'the regenerated answer');
        await messages().last().locator('select[data-action=versions]').waitFor({ timeout: 10_000 });
    });

    it('resets the chat to an answer after asking, and brings the removed messages back', async () => {
        const answer = messages().nth(1);
        await answer.hover();
        await answer.locator('button[data-action=reset-to]').click();
        const dialog = page.locator('.dialogOverlay');
        await dialog.waitFor({ timeout: 10_000 });
        await dialog.locator('button.theia-button.main').click();
        await until(async () => (await shown()).length === 2, 'the reset');
        const bringBack = page.locator('.qa-chat .qa-reset-versions button[data-action=bring-back]');
        await bringBack.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('chat-reset') });
        await until(() => savedChat().history.length === 2, 'the reset to be saved');
        await bringBack.click();
        await until(async () => (await shown()).length === 4, 'the messages brought back');
        assert.deepEqual((await shown()).slice(2), ['user/done: Q2', 'assistant/done: A2 again']);
    });
});
