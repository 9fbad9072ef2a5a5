import * as assert from 'node:assert/strict';
import { Page } from 'playwright-core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { runCommand } from './theia-page';

const API_KEY = 'sk-e2e-test-key-0123456789';

describe('chat view in Chromium (walking skeleton)', function () {
    this.timeout(180_000);

    const session = useBrowserChat(fake => ({ files: workspaceConfiguration(fake.url), env: { E2E_API_KEY: API_KEY } }), fake => fake
        .when({ promptIncludes: 'stream slowly', scenario: { kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 40 } })
        .when({ promptIncludes: 'stop me', scenario: { kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 250 } })
        .when({ promptIncludes: 'bad key', scenario: { kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key provided"}}' } }), 'QodeAssist: Open Chat');
    const { fake, app } = session;
    let page: Page;

    before(() => ({ page } = session));

    const chat = () => new ChatPage(page);
    const sendMessage = (text: string) => chat().send(text);
    const lastAnswer = () => chat().lastAnswer();
    const waitForLastAnswer = (status: string) => chat().waitForLastAnswer(status);

    it('streams the answer into the view piece by piece and renders Markdown', async () => {
        await sendMessage('Please stream slowly: how do I reverse a string?');
        const lengths = new Set<number>();
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
            const snapshot = await lastAnswer().evaluate(element => ({
                status: element.getAttribute('data-status'),
                length: element.querySelector('.qa-markdown')?.textContent?.length ?? 0
            }));
            if (snapshot.status !== 'streaming') {
                assert.equal(snapshot.status, 'done');
                break;
            }
            if (snapshot.length > 0) {
                lengths.add(snapshot.length);
            }
            await page.waitForTimeout(25);
        }
        assert.ok(lengths.size >= 5, `expected the text to grow in at least 5 visible steps, saw ${lengths.size}`);
        await assertMarkdownRendered();
        const request = fake.lastModelRequest()!;
        assert.equal(request.headers.authorization, `Bearer ${API_KEY}`, 'the backend sends the key to the provider');
        const body = JSON.parse(request.body);
        assert.equal(body.model, 'fake-model');
        assert.match(body.messages[0].content, /You are QodeAssist/, 'the agent\'s system prompt (developer role) leads the request');
        assert.equal(await lastAnswer().locator('.qa-message-agent').textContent(), 'fake-chat');
        assert.ok(!(await page.content()).includes(API_KEY), 'the key never reaches the browser');
        await page.screenshot({ path: screenshotPath('chat-streamed-answer') });
    });

    async function assertMarkdownRendered(): Promise<void> {
        const answer = lastAnswer();
        assert.equal(await answer.locator('.qa-markdown h2').textContent(), 'Reversing a string');
        assert.match(await answer.locator('.qa-markdown pre code').textContent() ?? '', /export function reverse\(text: string\): string/);
        assert.equal(await answer.locator('.qa-markdown ol li').count(), 3);
        assert.match(await answer.locator('.qa-usage').textContent() ?? '', /^40 in · 32 cached · \d+ out$/);
    }

    it('Stop cancels the request mid-stream and the backend aborts the HTTP request', async () => {
        await sendMessage('stop me halfway');
        await page.waitForFunction(() => {
            const streaming = document.querySelector('.qa-chat .qa-message[data-role=assistant][data-status=streaming] .qa-markdown');
            return /Reversing/.test(streaming?.textContent ?? '');
        }, undefined, { timeout: 20_000 });
        await page.locator('.qa-chat .qa-stop').click();
        await waitForLastAnswer('cancelled');
        const request = fake.lastModelRequest()!;
        assert.equal(await request.ended, 'aborted-by-client');
        assert.ok(request.recordsSent < 20, `the stream stopped early, after ${request.recordsSent} records`);
        assert.equal(await lastAnswer().locator('.qa-cancelled').textContent(), 'Cancelled');
        assert.match(await lastAnswer().locator('.qa-markdown').textContent() ?? '', /Reversing/, 'the partial answer stays visible');
        assert.equal(await lastAnswer().locator('.qa-error').count(), 0, 'cancellation is not shown as an error');
        await page.locator('.qa-chat .qa-send').waitFor({ state: 'visible' });
        await page.screenshot({ path: screenshotPath('chat-cancelled') });
    });

    it('shows an Auth error with what to do when the provider answers 401', async () => {
        await sendMessage('bad key test');
        const error = lastAnswer().locator('.qa-error[data-category=Auth]');
        await error.waitFor({ timeout: 20_000 });
        assert.match(await error.locator('.qa-error-message').textContent() ?? '', /HTTP 401.*Set a valid API key.*environment variable E2E_API_KEY/);
        assert.equal(await error.locator('.qa-error-detail').textContent(), 'Incorrect API key provided');
        assert.match(await error.locator('.qa-error-hint').textContent() ?? '', /environment variable/);
        assert.equal(await error.locator('button[data-action=open-settings]').count(), 1);
        await page.screenshot({ path: screenshotPath('chat-auth-error') });
    });

    it('runs a tool round: asks before editing with the diff, the edit lands on disk, Undo and Apply change it back and forth', async () => {
        const file = join(app.workspace, 'src', 'greeting.ts');
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, 'export const greeting = "hi";\n');
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'r1', name: 'read_file', arguments: { path: 'src/greeting.ts' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: { path: 'src/greeting.ts', old_text: '"hi"', new_text: '"hello"' } }]) },
            { kind: 'replay', recording: openAITextRecording('Changed the greeting to "hello".') }
        );
        await sendMessage('make the greeting friendlier');
        const prompt = page.locator('.qa-chat .qa-permission[data-tool=edit_file]');
        await prompt.waitFor({ timeout: 20_000 });
        assert.deepEqual(await prompt.locator('.qa-diff .qa-diff-del, .qa-diff .qa-diff-add').allTextContents(), ['-"hi"', '+"hello"']);
        assert.equal(readFileSync(file, 'utf8'), 'export const greeting = "hi";\n', 'nothing is written before the user allows it');
        await page.locator('.qa-chat .qa-tool[data-tool=read_file][data-status=done]').waitFor();
        await page.screenshot({ path: screenshotPath('chat-tool-permission') });
        await prompt.locator('button[data-answer=allow-once]').click();
        await waitForLastAnswer('done');
        assert.equal(readFileSync(file, 'utf8'), 'export const greeting = "hello";\n');
        assert.equal(await lastAnswer().locator('.qa-tool[data-tool=edit_file][data-status=done]').count(), 1);
        assert.match(await lastAnswer().locator('.qa-markdown').textContent() ?? '', /Changed the greeting/);
        const edit = lastAnswer().locator('.qa-file-edit[data-path="src/greeting.ts"]');
        assert.equal(await edit.getAttribute('data-state'), 'applied');
        assert.match(await edit.locator('.qa-diff').textContent() ?? '', /-export const greeting = "hi";\+export const greeting = "hello";/);
        await lastAnswer().locator('.qa-tool[data-tool=edit_file] summary').click();
        await page.screenshot({ path: screenshotPath('chat-tool-round-done') });
        await edit.locator('button[data-action=undo]').click();
        await page.locator('.qa-chat .qa-file-edit[data-state=undone]').waitFor({ timeout: 10_000 });
        assert.equal(readFileSync(file, 'utf8'), 'export const greeting = "hi";\n', 'Undo restores the file on disk');
        await page.screenshot({ path: screenshotPath('chat-edit-undone') });
        await edit.locator('button[data-action=apply]').click();
        await page.locator('.qa-chat .qa-file-edit[data-state=applied]').waitFor({ timeout: 10_000 });
        assert.equal(readFileSync(file, 'utf8'), 'export const greeting = "hello";\n', 'Apply writes it again');
        // The next request carries the run's working set; the manifest shows it.
        const continuation = JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages);
        assert.match(continuation, /<working_set>[\s\S]*Then: make the greeting friendlier[\s\S]*src\/greeting.ts: edited/);
        await page.locator('.qa-chat .qa-token-counter').click();
        const rows = await page.locator('.qa-chat .qa-manifest td:first-child').allTextContents();
        assert.ok(rows.some(row => /^working set \(at message \d+ of \d+\)$/.test(row)), rows.join(' | '));
        await page.screenshot({ path: screenshotPath('chat-working-set-manifest') });
        await page.locator('.qa-chat .qa-token-counter').click();
    });

    it('moves the chat between placements without losing it, opens a second chat, and extracts one to its own window', async () => {
        const messages = await page.locator('.qa-chat .qa-message').count();
        assert.ok(messages >= 8);
        const placements: Array<[string, string]> = [
            ['QodeAssist: Open Chat in Bottom Panel', '#theia-bottom-content-panel'],
            ['QodeAssist: Open Chat in Left Sidebar', '#theia-left-content-panel'],
            ['QodeAssist: Open Chat in Editor Area', '#theia-main-content-panel'],
            ['QodeAssist: Open Chat in Right Sidebar', '#theia-right-content-panel']
        ];
        for (const [command, panel] of placements) {
            await runCommand(page, command);
            const chat = page.locator(`${panel} .qa-chat`);
            await chat.waitFor({ state: 'visible', timeout: 10_000 });
            assert.equal(await page.locator('.qa-chat').count(), 1, `${command}: one chat, moved`);
            assert.equal(await chat.locator('.qa-message').count(), messages, `${command}: the conversation moved with it`);
            await page.screenshot({ path: screenshotPath(`chat-placement-${panel.replace(/#theia-|-content-panel/g, '')}`) });
        }
        await runCommand(page, 'QodeAssist: New Chat');
        await page.locator('.qa-chat .qa-empty').waitFor({ timeout: 10_000 });
        assert.equal(await page.locator('.qa-chat').count(), 2, 'two chats at once');
        const popup = page.waitForEvent('popup', { timeout: 20_000 });
        await runCommand(page, 'QodeAssist: Open Chat in Separate Window');
        const window = await popup;
        await window.locator('.qa-chat .qa-empty').waitFor({ timeout: 20_000 });
        await window.screenshot({ path: screenshotPath('chat-separate-window') });
        assert.equal(await page.locator('.qa-chat').count(), 1, 'the new chat left the main window');
    });

    it('shows a Network error with Retry when the provider is unreachable', async () => {
        await fake.stop();
        await sendMessage('anyone there?');
        const error = lastAnswer().locator('.qa-error[data-category=Network]');
        await error.waitFor({ timeout: 30_000 });
        assert.match(await error.locator('.qa-error-message').textContent() ?? '', /refused the connection/);
        assert.equal(await error.locator('button[data-action=retry]').count(), 1);
        await page.screenshot({ path: screenshotPath('chat-network-error') });
    });
});
