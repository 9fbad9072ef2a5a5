import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

const CRASHING_SERVER = join(__dirname, '..', '..', 'fixtures', 'mcp', 'crashing-server.mjs');

describe('MCP in Chromium: the server mode\'s token and permission prompt, the hub\'s servers in the chat', function () {
    this.timeout(180_000);

    const session = useBrowserApp(fake => ({
        files: {
            ...workspaceConfiguration(fake.url),
            '.qodeassist/mcp.json': JSON.stringify({ mcpServers: { crashy: { command: process.execPath, args: [CRASHING_SERVER] } } }),
            'notes.txt': 'draft\n'
        },
        // The server mode is the user's to switch on: a repository's settings cannot (docs/ARCHITECTURE.md §7).
        userFiles: { '.theia/settings.json': JSON.stringify({ 'qodeassist.mcp.server.enabled': true, 'qodeassist.mcp.server.port': 0 }) },
        env: { E2E_API_KEY: 'sk-e2e-mcp-0123456789' }
    }));
    const { fake, app } = session;
    let page: Page;
    let url: string;
    let token: string;
    before(() => { page = session.page; });

    it('shows the new token once with copy-ready snippets, and an outside client calling a write tool is asked about here', async () => {
        const dialog = page.locator('.dialogBlock', { hasText: 'QodeAssist MCP Server Token' });
        await dialog.waitFor({ timeout: 30_000 });
        const blocks = dialog.locator('.qa-mcp-snippet');
        const titles = await blocks.locator('.qa-mcp-snippet-title').allTextContents();
        assert.deepEqual(titles.map(title => title.replace(/Copy$/, '')), ['Token', 'Streamable HTTP', 'HTTP+SSE (legacy clients)',
            'Claude Desktop and other stdio clients (mcpServers JSON)', 'VS Code (.vscode/mcp.json)', 'Claude Code']);
        token = (await blocks.nth(0).locator('pre').textContent())!;
        url = (await blocks.nth(1).locator('pre').textContent())!;
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.match(await blocks.nth(5).locator('pre').textContent() ?? '', new RegExp(`claude mcp add --transport http qodeassist ${url} --header "Authorization: Bearer ${token}"`));
        await page.screenshot({ path: screenshotPath('mcp-server-token') });
        await dialog.locator('.dialogControl button.main').click();

        const client = new Client({ name: 'outside', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
        try {
            assert.ok((await client.listTools()).tools.some(tool => tool.name === 'read_file'));
            const call = client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } });
            // A modal, plain-text prompt: the claimed client name, the path and the diff computed by the backend.
            const prompt = page.locator('.dialogBlock', { hasText: 'An MCP client wants to change a file (edit_file)' });
            await prompt.waitFor({ timeout: 20_000 });
            assert.equal(readFileSync(join(app.workspace, 'notes.txt'), 'utf8'), 'draft\n', 'nothing is written before the user answers');
            assert.equal(await prompt.locator('.qa-mcp-path .qa-mcp-field-value').textContent(), 'notes.txt');
            assert.equal(await prompt.locator('.qa-mcp-client .qa-mcp-field-value').textContent(), 'outside 1.0.0');
            assert.match(await prompt.locator('.qa-mcp-diff .qa-mcp-field-value').textContent() ?? '', /-draft\n\+final/);
            await page.screenshot({ path: screenshotPath('mcp-server-permission') });
            await prompt.locator('button[data-answer=allow-once]').click();
            const result = await call;
            assert.equal(result.isError, false, JSON.stringify(result.content));
            for (let waited = 0; readFileSync(join(app.workspace, 'notes.txt'), 'utf8') !== 'final\n' && waited < 10_000; waited += 50) {
                await new Promise(resolve => setTimeout(resolve, 50));
            }
            assert.equal(readFileSync(join(app.workspace, 'notes.txt'), 'utf8'), 'final\n');
        } finally {
            await client.close();
        }
    });

    it('asks consent for the project\'s server, lists the hub\'s servers with their state, and the chat calls a hub tool after asking', async () => {
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'crashy' });
        // The project's server waits for consent (once the trusted workspace is reported); it is given from the servers list.
        for (let attempt = 0; ; attempt++) {
            await runCommand(page, 'QodeAssist: MCP Servers…');
            await row.waitFor({ timeout: 2_000 }).catch(() => undefined);
            if (/waiting for your consent/.test(await row.textContent({ timeout: 1_000 }).catch(() => '') ?? '') || attempt === 20) {
                break;
            }
            await page.keyboard.press('Escape');
            await page.waitForTimeout(250);
        }
        await row.click();
        const consent = page.locator('.dialogBlock', { hasText: 'Start the project\'s MCP server "crashy"?' });
        await consent.waitFor({ timeout: 10_000 });
        assert.match(await consent.locator('.qa-mcp-args .qa-mcp-field-value').textContent() ?? '', /crashing-server\.mjs/);
        await page.screenshot({ path: screenshotPath('mcp-hub-consent') });
        await consent.locator('.dialogControl button.main').click();
        await consent.waitFor({ state: 'detached', timeout: 10_000 });

        for (let attempt = 0; ; attempt++) {
            await runCommand(page, 'QodeAssist: MCP Servers…');
            await row.waitFor({ timeout: 10_000 });
            if (/ready · 2 tools/.test(await row.textContent() ?? '') || attempt === 20) {
                break;
            }
            await page.keyboard.press('Escape');
            await page.waitForTimeout(250);
        }
        assert.match(await row.textContent() ?? '', /ready · 2 tools/);
        await page.screenshot({ path: screenshotPath('mcp-hub-servers') });
        await page.keyboard.press('Escape');

        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        const chat = new ChatPage(page);
        await chat.input.waitFor({ timeout: 20_000 });
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'm1', name: 'mcp_crashy_ok', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('The MCP server answered.') }
        );
        await chat.send('ask the mcp server');
        const prompt = page.locator('.qa-chat .qa-permission[data-tool=mcp_crashy_ok]');
        await prompt.waitFor({ timeout: 30_000 });
        await page.screenshot({ path: screenshotPath('mcp-hub-tool-in-chat') });
        await prompt.locator('button[data-answer=allow-once]').click();
        await chat.waitForLastAnswer('done');
        assert.match(JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages), /fine from \d+/);
    });
});
