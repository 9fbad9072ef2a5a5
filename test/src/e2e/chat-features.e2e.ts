import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAIReasoningRecording, openAITextRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { openFile, runCommand, waitForTheiaShell } from './theia-page';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** Files as a drop or a paste would carry them, built in the page. */
async function dataTransfer(page: Page, files: Array<{ name: string; type: string; base64: string }>) {
    return page.evaluateHandle(entries => {
        const transfer = new DataTransfer();
        for (const entry of entries) {
            const bytes = Uint8Array.from(atob(entry.base64), c => c.charCodeAt(0));
            transfer.items.add(new File([bytes], entry.name, { type: entry.type }));
        }
        return transfer;
    }, files);
}

describe('chat features in Chromium: attachments, mentions, skills, pickers, token counter, history, summarize', function () {
    this.timeout(180_000);

    const session = useBrowserChat(fake => ({
        files: {
            ...workspaceConfiguration(fake.url),
            'src/greeting.ts': 'export const greeting = "hi";\n',
            'src/farewell.ts': 'export const farewell = "bye";\n',
            '.qodeassist/skills/tone/SKILL.md': '---\nname: tone\ndescription: Answer kindly\n---\nAlways be kind.\n'
        },
        env: { E2E_API_KEY: 'sk-e2e-features-0123456789' }
    }));
    const { fake, app } = session;
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const lastBody = () => JSON.parse(fake.lastModelRequest()!.body);
    const lastUserContent = () => JSON.stringify(lastBody().messages.at(-1).content);

    it('attaches a dropped file and a pasted image, sends both, and refuses an oversized file with the limit', async () => {
        const composer = page.locator('.qa-chat .qa-composer');
        await composer.dispatchEvent('drop', { dataTransfer: await dataTransfer(page, [{ name: 'notes.md', type: 'text/markdown', base64: Buffer.from('# Notes\nship on Friday').toString('base64') }]) });
        await page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="notes.md"]').waitFor({ timeout: 10_000 });
        const clipboard = await dataTransfer(page, [{ name: 'shot.png', type: 'image/png', base64: PNG.toString('base64') }]);
        await chat.input.evaluate((input, clipboardData) => input.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true })), clipboard);
        await page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="shot.png"]').waitFor({ timeout: 10_000 });
        await composer.dispatchEvent('drop', { dataTransfer: await dataTransfer(page, [{ name: 'huge.png', type: 'image/png', base64: Buffer.alloc(6 * 1024 * 1024).toString('base64') }]) });
        const error = page.locator('.qa-chat .qa-composer-error');
        await error.waitFor({ timeout: 10_000 });
        assert.match(await error.textContent() ?? '', /"huge.png" is 6.0 MB; the chat takes images up to 5.0 MB/);
        await page.screenshot({ path: screenshotPath('chat-attachments') });
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('I see a tiny image and your notes.') });
        await chat.send('what do you see?');
        await chat.waitForLastAnswer('done');
        const content = lastBody().messages.at(-1).content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
        assert.deepEqual(content.map(part => part.type), ['text', 'image_url', 'text']);
        assert.equal(content[0].text, 'Attached file notes.md:\n```\n# Notes\nship on Friday\n```');
        assert.equal(content[1].image_url?.url, `data:image/png;base64,${PNG.toString('base64')}`);
        const sent = page.locator('.qa-chat .qa-message[data-role=user]').last();
        assert.deepEqual(await sent.locator('.qa-chip').allTextContents(), [' notes.md', ' shot.png']);
        assert.equal(await page.locator('.qa-chat .qa-composer .qa-chip').count(), 0, 'the composer is empty again');
        // Chat folders only: a save under way leaves a `<id>.json.<uuid>.tmp` file beside them for a moment.
        const stored = readdirSync(join(app.workspace, '.qodeassist', 'chats'), { withFileTypes: true }).filter(entry => entry.isDirectory()).map(entry => entry.name);
        assert.equal(stored.length, 1);
        assert.deepEqual(readdirSync(join(app.workspace, '.qodeassist', 'chats', stored[0], 'attachments')).sort(), ['notes.md', 'shot.png']);
    });

    it('attaches a workspace file through the paperclip\'s file dialog; a chip can be removed before sending', async () => {
        await page.locator('.qa-chat button[data-action=attach]').click();
        const dialog = page.locator('.dialogBlock', { hasText: 'Attach files or images' });
        await dialog.waitFor({ timeout: 10_000 });
        await dialog.locator('.theia-TreeNode', { hasText: /^src$/ }).dblclick();
        await dialog.locator('.theia-TreeNode', { hasText: 'farewell.ts' }).click();
        await dialog.locator('button.theia-button.main').click();
        const chip = page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="farewell.ts"]');
        await chip.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('chat-attach-dialog') });
        const copies = readdirSync(join(app.workspace, '.qodeassist', 'chats'), { withFileTypes: true }).filter(entry => entry.isDirectory());
        assert.ok(copies.some(entry => existsSync(join(app.workspace, '.qodeassist', 'chats', entry.name, 'attachments', 'farewell.ts'))), 'a copy is kept beside the chat');
        await chip.locator('button.qa-chip-remove').click();
        assert.equal(await page.locator('.qa-chat .qa-composer .qa-chip').count(), 0);
    });

    it('@-mentions a workspace file from the suggestions and sends its content', async () => {
        await chat.input.fill('');
        await chat.input.pressSequentially('explain @gree');
        const suggestion = page.locator('.qa-chat .qa-suggestion[data-value="src/greeting.ts"]');
        await suggestion.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('chat-mention') });
        await chat.input.press('Enter');
        assert.equal(await chat.input.inputValue(), 'explain @src/greeting.ts ');
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('It exports a greeting.') });
        await chat.submit();
        await chat.waitForLastAnswer('done');
        assert.match(lastUserContent(), /Attached file src\/greeting.ts:\\n```\\nexport const greeting = \\"hi\\";/);
        assert.match(lastUserContent(), /explain @src\/greeting.ts/);
    });

    it('offers skills on / and sends the chosen skill; the role picker adds the role to the system prompt', async () => {
        await page.locator('.qa-chat .qa-role-picker').selectOption('reviewer');
        // The workspace's own provider decides where fake-chat sends: the picker says so.
        assert.ok((await page.locator('.qa-chat .qa-agent-picker option').allTextContents()).includes('fake-chat · fake-model (project)'));
        assert.match(await page.locator('.qa-chat .qa-agent-picker option[value=fake-chat]').getAttribute('title') ?? '', /^from this project \(.*fake\.toml\): sends to http:\/\/127\.0\.0\.1:\d+$/);
        await chat.input.fill('');
        await chat.input.pressSequentially('/to');
        await page.locator('.qa-chat .qa-suggestion[data-value="tone"]').waitFor({ timeout: 10_000 });
        await chat.input.press('Tab');
        await chat.input.pressSequentially('review greeting.ts');
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Looks kind.') });
        await chat.submit();
        await chat.waitForLastAnswer('done');
        assert.match(lastUserContent(), /<skill name=\\"tone\\">\\nAlways be kind.\\n<\/skill>/);
        assert.match(lastBody().messages[0].content, /meticulous code reviewer/);
        assert.equal(await page.locator('.qa-chat .qa-message[data-role=user]').last().locator('.qa-skill-badge').textContent(), ' /tone');
        await page.locator('.qa-chat .qa-role-picker').selectOption('');
    });

    it('counts the next request\'s tokens live, shows the manifest with linked open editors, and sends them', async () => {
        await openFile(page, 'src/farewell.ts');
        await runCommand(page, 'QodeAssist: Open Chat in Right Sidebar');
        await page.locator('#theia-right-content-panel .qa-chat .qa-input').waitFor({ timeout: 10_000 });
        await page.locator('.qa-chat input[data-action=sync-editors]').check();
        await page.locator('.qa-chat .qa-chip.qa-linked[data-linked="src/farewell.ts"]').waitFor({ timeout: 10_000 });
        const counter = page.locator('.qa-chat .qa-token-counter');
        const empty = await counter.textContent();
        await chat.input.fill('x'.repeat(4_000));
        await page.waitForFunction(previous => {
            const text = document.querySelector('.qa-chat .qa-token-counter')?.textContent ?? '';
            return text !== previous && /^\s*\d+(\.\d)?k? \/ \d+k$/.test(text);
        }, empty, { timeout: 10_000 });
        const before = await counter.textContent();
        await counter.click();
        const manifest = page.locator('.qa-chat .qa-manifest');
        await manifest.waitFor();
        const rows = await manifest.locator('td:first-child').allTextContents();
        assert.ok(rows.includes('system: agent.system'), rows.join(' | '));
        assert.ok(rows.includes('Linked file src/farewell.ts'), rows.join(' | '));
        assert.ok(rows.some(row => /^history \(\d+ messages/.test(row)), rows.join(' | '));
        await page.screenshot({ path: screenshotPath('chat-token-counter-manifest') });
        await chat.input.fill('short');
        await page.waitForFunction(previous => document.querySelector('.qa-chat .qa-token-counter')?.textContent !== previous, before, { timeout: 10_000 });
        await counter.click();
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('It says bye.') });
        await chat.submit();
        await chat.waitForLastAnswer('done');
        assert.match(lastUserContent(), /Linked file src\/farewell.ts:\\n```\\nexport const farewell = \\"bye\\";/);
        await page.locator('.qa-chat input[data-action=sync-editors]').uncheck();
    });

    it('shows thinking collapsed, highlights code and copies a code block', async () => {
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
        fake.enqueue({ kind: 'replay', recording: openAIReasoningRecording('The user wants a loop. A for-of loop reads best.', 'Use:\n\n```ts\nfor (const item of items) {\n    print(item);\n}\n```\n') });
        await chat.send('how do I loop?');
        await chat.waitForLastAnswer('done');
        const thinking = chat.lastAnswer().locator('details.qa-thinking');
        assert.equal(await thinking.getAttribute('open'), null, 'thinking starts collapsed');
        await thinking.locator('summary').click();
        assert.match(await thinking.textContent() ?? '', /A for-of loop reads best\./);
        const code = chat.lastAnswer().locator('.qa-code');
        assert.equal(await code.locator('.qa-code-language').textContent(), 'ts');
        // Highlighted in the worker, a moment after the block is shown.
        await code.locator('.hljs-keyword').nth(1).waitFor({ timeout: 5_000 });
        assert.equal(await code.locator('code').textContent(), 'for (const item of items) {\n    print(item);\n}\n', 'highlighting keeps the text as it was');
        await code.locator('button[data-copy=code]').click();
        await code.locator('button[data-copy=code]', { hasText: 'Copied' }).waitFor({ timeout: 5_000 });
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'for (const item of items) {\n    print(item);\n}\n');
        await page.screenshot({ path: screenshotPath('chat-thinking-and-code') });
    });

    it('keeps the chat across a page reload and lists it in the history', async () => {
        const messages = await page.locator('.qa-chat .qa-message').count();
        assert.ok(messages >= 10);
        const files = readdirSync(join(app.workspace, '.qodeassist', 'chats')).filter(name => name.endsWith('.json'));
        assert.equal(files.length, 1);
        const saved = JSON.parse(readFileSync(join(app.workspace, '.qodeassist', 'chats', files[0]), 'utf8'));
        assert.equal(saved.version, 1);
        assert.equal(saved.title, 'what do you see?');
        assert.equal(saved.history.length, 10);
        await page.reload();
        await waitForTheiaShell(page);
        await page.waitForFunction(count => document.querySelectorAll('.qa-chat .qa-message').length === count, messages, { timeout: 30_000 });
        assert.match(await page.locator('.qa-chat .qa-message[data-role=assistant]').last().locator(':scope > .qa-markdown').textContent() ?? '', /for \(const item of items\)/);
        assert.equal(await page.locator('.qa-chat .qa-message[data-role=assistant]').last().locator('details.qa-thinking').count(), 1, 'thinking is restored too');
        assert.deepEqual(await page.locator('.qa-chat .qa-message[data-role=user]').first().locator('.qa-chip').allTextContents(), [' notes.md', ' shot.png']);
        await page.screenshot({ path: screenshotPath('chat-restored-after-reload') });
        await runCommand(page, 'QodeAssist: Chat History…');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'what do you see?' });
        await row.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('chat-history-list') });
        await page.keyboard.press('Escape');
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Still here.') });
        await chat.send('do you remember the notes?');
        await chat.waitForLastAnswer('done');
        assert.match(JSON.stringify(lastBody().messages), /ship on Friday[\s\S]*do you remember the notes\?/, 'the restored history seeds the new session');
    });

    it('summarizes into a new chat that links back to the kept original', async () => {
        // A file waiting in the composer goes along with the first message of the summary chat.
        await page.locator('.qa-chat .qa-composer').dispatchEvent('drop', {
            dataTransfer: await dataTransfer(page, [{ name: 'plan.md', type: 'text/markdown', base64: Buffer.from('step one').toString('base64') }])
        });
        await page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="plan.md"]').waitFor({ timeout: 10_000 });
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('The user shared notes (ship on Friday) and an image, and asked about two files.') });
        await page.locator('.qa-chat button[data-action=summarize]').click();
        const note = page.locator('.qa-chat .qa-summary-note');
        await note.waitFor({ timeout: 20_000 });
        assert.match(JSON.stringify(lastBody().messages.at(-1).content), /Summarize the conversation below/);
        assert.match(await page.locator('.qa-chat .qa-message[data-role=user]').first().locator('.qa-plain').textContent() ?? '', /^Summary of the conversation so far:\s+The user shared notes \(ship on Friday\)/);
        const files = readdirSync(join(app.workspace, '.qodeassist', 'chats')).filter(name => name.endsWith('.json'));
        assert.equal(files.length, 2, 'the original chat is kept beside the summary');
        await page.screenshot({ path: screenshotPath('chat-summarized') });
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Continuing from the summary.') });
        await chat.send('go on');
        await chat.waitForLastAnswer('done');
        assert.match(JSON.stringify(lastBody().messages), /Summary of the conversation so far[\s\S]*go on/);
        assert.match(lastUserContent(), /Attached file plan.md:\\n```\\nstep one/, 'the waiting attachment was copied beside the summary chat');
        assert.doesNotMatch(JSON.stringify(lastBody().messages), /do you remember the notes/, 'the summary replaced the history');
        await note.locator('a.qa-open-original').click();
        await page.waitForFunction(() => document.querySelectorAll('.qa-chat').length === 2, undefined, { timeout: 20_000 });
        const original = page.locator('.qa-chat').filter({ hasText: 'do you remember the notes?' });
        await original.waitFor({ timeout: 10_000 });
        assert.equal(existsSync(join(app.workspace, '.qodeassist', 'chats')), true);
    });

    /** Deleting a chat cannot be undone: it is asked first. */
    async function confirmDelete(): Promise<void> {
        const dialog = page.locator('.dialogOverlay', { hasText: 'Delete this chat?' });
        await dialog.waitFor({ timeout: 10_000 });
        await dialog.locator('button.theia-button.main').click();
    }

    it('exports, renames and deletes saved chats from the history list; an open chat is not deleted', async () => {
        const chats = join(app.workspace, '.qodeassist', 'chats');
        const stored = () => readdirSync(chats).filter(name => name.endsWith('.json')).map(name => JSON.parse(readFileSync(join(chats, name), 'utf8')) as { id: string; title: string });
        const originalId = stored().find(chat => chat.title === 'what do you see?')!.id;
        const historyRow = async (title: string) => {
            await runCommand(page, 'QodeAssist: Chat History…');
            const row = page.locator(`.quick-input-list .monaco-list-row[aria-label^="${title},"]`);
            await row.waitFor({ timeout: 10_000 });
            await row.hover();
            return row;
        };
        const until = async (what: string, test: () => boolean) => {
            for (let i = 0; i < 200 && !test(); i++) {
                await page.waitForTimeout(50);
            }
            assert.ok(test(), what);
        };

        await (await historyRow('what do you see?')).getByRole('button', { name: 'Export as Markdown' }).click();
        const exports = join(app.workspace, '.qodeassist', 'exports');
        const exported = join(exports, `what-do-you-see-${originalId.slice(0, 8)}.md`);
        await until('the chat is exported as Markdown', () => existsSync(exported));
        assert.match(readFileSync(exported, 'utf8'), /^# what do you see\?\n[\s\S]*## You\n\n> Attached: notes.md\n\n> Attached: shot.png\n\nwhat do you see\?\n\n## QodeAssist\n\nI see a tiny image and your notes\./);
        await page.locator('.theia-editor .monaco-editor').filter({ hasText: 'what do you see?' }).first().waitFor({ timeout: 10_000 });

        await (await historyRow('what do you see?')).getByRole('button', { name: 'Rename' }).click();
        const input = page.locator('.quick-input-widget input.input');
        await input.waitFor({ timeout: 10_000 });
        await input.fill('Notes and image');
        await input.press('Enter');
        await until('the open chat is renamed on disk', () => stored().find(chat => chat.id === originalId)?.title === 'Notes and image');

        await (await historyRow('Notes and image')).getByRole('button', { name: 'Delete' }).click();
        await confirmDelete();
        await page.locator('.theia-notification-message', { hasText: 'This chat is open in a window; close its view before deleting it' }).first().waitFor({ timeout: 10_000 });
        assert.ok(existsSync(join(chats, `${originalId}.json`)));
        await page.keyboard.press('Escape');

        // Close the original's view: move it into the editor area, where its tab has a close button.
        const originalView = page.locator('.qa-chat').filter({ hasText: 'do you remember the notes?' });
        await originalView.locator('.qa-input').click();
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        await page.locator('#theia-main-content-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabCloseIcon').click();
        await page.waitForFunction(() => document.querySelectorAll('.qa-chat').length === 1, undefined, { timeout: 10_000 });
        assert.equal(await originalView.count(), 0, 'the original\'s view is the one closed');
        const row = await historyRow('Notes and image');
        await row.getByRole('button', { name: 'Delete' }).click();
        await confirmDelete();
        await until('the chat file and its folder are deleted', () => !existsSync(join(chats, `${originalId}.json`)) && !existsSync(join(chats, originalId)));
        await page.locator('.quick-input-list .monaco-list-row[aria-label^="Notes and image,"]').waitFor({ state: 'detached', timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('chat-history-after-delete') });
        await page.keyboard.press('Escape');
    });

    it('renders tables, quotes and links, and loads nothing an answer points at: a web image is a link, raw HTML is text', async () => {
        const pixel = `${fake.url}/pixel.png?leak=sk-secret`;
        fake.enqueue({ kind: 'replay', recording: openAITextRecording([
            '| tool | use |', '|:-|-:|', '| grep | search |', '', '> quoted *advice*', '',
            `See [the docs](https://example.com/docs) and ![a chart](${pixel}).`, '',
            `<img src="${fake.url}/raw.png" onerror="document.title='owned'">`
        ].join('\n')) });
        await chat.send('show me a table');
        await chat.waitForLastAnswer('done');
        const answer = chat.lastAnswer().locator('.qa-markdown');
        assert.deepEqual(await answer.locator('th').allTextContents(), ['tool', 'use']);
        assert.equal(await answer.locator('td').nth(1).evaluate(cell => getComputedStyle(cell).textAlign), 'right');
        assert.match(await answer.locator('blockquote').innerHTML(), /quoted <em>advice<\/em>/);
        assert.equal(await answer.locator('a[href="https://example.com/docs"]').getAttribute('target'), '_blank');
        const image = answer.locator('a.qa-image-link');
        assert.equal(await image.textContent(), '[image: a chart]');
        assert.equal(await image.getAttribute('href'), pixel);
        assert.equal(await answer.locator('img').count(), 0);
        assert.match(await answer.textContent() ?? '', /<img src=.*onerror=/);
        await page.waitForTimeout(1_000);
        assert.deepEqual(fake.requests.filter(request => /\.png$/.test(request.path)).map(request => request.path), [], 'no image was fetched');
        assert.notEqual(await page.title(), 'owned');
        await chat.lastAnswer().scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('chat-rich-markdown') });
    });
});
