import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand, waitForTheiaShell } from './theia-page';

interface SavedChat {
    id: string;
    revision?: number;
    history: Array<{ role: string; interrupted?: boolean; blocks: Array<{ type: string; text?: string }> }>;
}

const CRASHES = 3;

describe('no message lost: the backend killed mid-answer and restarted under an open page', function () {
    this.timeout(420_000);

    const session = useBrowserApp(fake => ({ files: workspaceConfiguration(fake.url), env: { E2E_API_KEY: 'sk-e2e-restart-0123456789' } }), fake => fake
        .when({ promptIncludes: 'crash during this', scenario: { kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 250 } }));
    const { fake, app } = session;
    let page: Page;
    const chat = () => new ChatPage(page);
    const chats = () => join(app.workspace, '.qodeassist', 'chats');
    const chatFiles = () => existsSync(chats()) ? readdirSync(chats()).filter(name => name.endsWith('.json')) : [];
    /** Every chat file parses (a kill never leaves half a file); the one chat there is. */
    function theChat(): SavedChat {
        const files = chatFiles();
        const parsed = files.map(name => JSON.parse(readFileSync(join(chats(), name), 'utf8')) as SavedChat);
        assert.equal(parsed.length, 1, `one chat file, not a new chat per restart: ${files.join(', ')}`);
        return parsed[0];
    }
    const textOf = (message: SavedChat['history'][number]) => message.blocks.filter(block => block.type === 'text').map(block => block.text).join('');

    before(async () => {
        page = session.page;
        await runCommand(page, 'QodeAssist: Open Chat');
        await chat().input.waitFor({ state: 'visible', timeout: 20_000 });
    });

    it(`kill -9 mid-stream ${CRASHES} times: every finished message kept, each cut answer kept as interrupted, every file parses; the page reconnects by itself, a message typed meanwhile stays in the input, and the next goes to the same chat with the whole conversation`, async () => {
        for (let crash = 1; crash <= CRASHES; crash++) {
            await chat().send(`crash during this answer ${crash}`);
            // Streaming, and saved at least once mid-stream with what had arrived.
            const deadline = Date.now() + 30_000;
            let saved: SavedChat | undefined;
            while (Date.now() < deadline) {
                const files = chatFiles();
                if (files.length === 1) {
                    const candidate = JSON.parse(readFileSync(join(chats(), files[0]), 'utf8')) as SavedChat;
                    const last = candidate.history.at(-1);
                    if (last?.interrupted && textOf(last).length > 40 && candidate.history.length === crash * 2) {
                        saved = candidate;
                        break;
                    }
                }
                await page.waitForTimeout(100);
            }
            assert.ok(saved, `answer ${crash} was saved while it streamed`);
            await app.kill('SIGKILL');

            const afterKill = theChat();
            assert.equal(afterKill.history.length, crash * 2, 'every earlier message and the cut answer are in the file');
            assert.ok(afterKill.history.at(-1)?.interrupted, 'the cut answer is marked interrupted');

            // The page notices; a message typed now is not taken and not reported as a provider error.
            await page.locator('.qa-chat .qa-backend-away').waitFor({ state: 'visible', timeout: 30_000 });
            await chat().send(`typed while away ${crash}`);
            await page.locator('.qa-chat', { hasText: /backend is restarting/i }).first().waitFor({ timeout: 10_000 });
            if (crash === 1) {
                await page.screenshot({ path: screenshotPath('restart-backend-away') });
            }
            assert.equal(await chat().input.inputValue(), `typed while away ${crash}`, 'the draft stays in the input');
            assert.equal(await page.locator('.qa-chat', { hasText: 'Provider unreachable' }).count(), 0);
            await chat().input.fill('');

            await app.restart();
            // Reconnected without a reload: the view shows the answer as the file has it, interrupted, with what had arrived.
            await page.locator('.qa-chat .qa-backend-away').waitFor({ state: 'hidden', timeout: 60_000 });
            await page.locator('.qa-chat .qa-message[data-role=assistant][data-status=interrupted]').nth(crash - 1).waitFor({ timeout: 30_000 });
            if (crash === 1) {
                await page.screenshot({ path: screenshotPath('restart-interrupted-answer') });
            }
            const leftovers = readdirSync(chats()).filter(name => name.endsWith('.tmp'));
            assert.deepEqual(leftovers, [], 'no temporary file left after the restart');
        }

        await chat().send('after the crashes');
        await chat().waitForLastAnswer('done', 30_000);
        const said = JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages);
        for (let crash = 1; crash <= CRASHES; crash++) {
            assert.ok(said.includes(`crash during this answer ${crash}`), `the provider got message ${crash} of the conversation`);
        }
        assert.ok(said.includes('after the crashes'));
        // The answer's end is saved just after the view shows it.
        for (let i = 0; i < 100 && (theChat().history.length < CRASHES * 2 + 2 || theChat().history.at(-1)?.interrupted); i++) {
            await page.waitForTimeout(50);
        }
        const final = theChat();
        assert.equal(final.history.length, CRASHES * 2 + 2);
        assert.deepEqual(final.history.map(message => message.interrupted ?? false), [...Array(CRASHES).fill([false, true]).flat(), false, false]);
        await page.screenshot({ path: screenshotPath('restart-conversation-continues') });
    });

    it('two windows on the same chat: each shows the other\'s message and answer live, and the file keeps both in order', async () => {
        const title = 'crash during this answer 1';
        const second = await session.chromium.newPage({ viewport: { width: 1400, height: 900 } });
        try {
            await second.goto(app.url);
            await waitForTheiaShell(second);
            await runCommand(second, 'QodeAssist: Open Chat');
            await second.locator('.qa-chat .qa-input').waitFor({ state: 'visible', timeout: 20_000 });
            await runCommand(second, 'QodeAssist: Chat History…');
            const row = second.locator(`.quick-input-list .monaco-list-row[aria-label^="${title},"]`);
            await row.waitFor({ timeout: 10_000 });
            await row.click();
            await second.locator('.qa-chat .qa-message[data-role=user]', { hasText: 'after the crashes' }).first().waitFor({ timeout: 20_000 });
            const before = theChat().history.length;

            await chat().send('from the first window');
            await chat().waitForLastAnswer('done', 30_000);
            // The second window may have restored a view of its own beside the one History filled: drive the one showing the chat.
            const shown = await second.evaluate(() => Array.from(document.querySelectorAll('.qa-chat')).find(node => node.textContent?.includes('after the crashes'))?.id);
            assert.ok(shown, 'the second window shows the chat');
            const inSecond = new ChatPage(second, `[id="${shown}"]`);
            await second.locator(`[id="${shown}"] .qa-message[data-role=user]`, { hasText: 'from the first window' }).waitFor({ timeout: 10_000 });
            await inSecond.waitForLastAnswer('done', 10_000);

            await inSecond.send('from the second window');
            await inSecond.waitForLastAnswer('done', 30_000);
            await page.locator('.qa-chat .qa-message[data-role=user]', { hasText: 'from the second window' }).waitFor({ timeout: 10_000 });
            await page.screenshot({ path: screenshotPath('two-windows-first') });
            await second.screenshot({ path: screenshotPath('two-windows-second') });

            const said = JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages);
            assert.ok(said.includes('from the first window') && said.includes('from the second window'), 'the second window\'s message went with the first\'s');
            for (let i = 0; i < 100 && theChat().history.length < before + 4; i++) {
                await page.waitForTimeout(50);
            }
            const users = theChat().history.slice(before).filter(message => message.role === 'user').map(textOf);
            assert.deepEqual(users, ['from the first window', 'from the second window']);
        } finally {
            await second.close();
        }
    });
});
