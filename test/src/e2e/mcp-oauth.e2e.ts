import * as assert from 'node:assert/strict';
import { OAuthServers, startOAuthServers } from '@qodeassist/core/lib/mcp/mcp-oauth.spec-support';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Locator, Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

describe('MCP OAuth in Chromium: sign in to an HTTP server, call its tool, restart the backend, a token expires and is refreshed', function () {
    this.timeout(180_000);
    let servers: OAuthServers;
    // The SDK's demo authorization server and a resource server on 127.0.0.1, before the app reads the user's mcp.json.
    before(async () => { servers = await startOAuthServers(); });
    after(async () => { await servers?.close(); });

    const session = useBrowserApp(fake => ({
        files: workspaceConfiguration(fake.url),
        userFiles: { '.qodeassist/mcp.json': JSON.stringify({ mcpServers: { guarded: { url: servers.mcpUrl } } }) },
        env: { E2E_API_KEY: 'sk-e2e-mcp-oauth-0123456789' }
    }));
    const { fake, app } = session;
    let page: Page;
    before(() => { page = session.page; });

    const secretsFile = () => join(app.home, '.qodeassist', 'secrets.json');
    const tokensRef = () => Object.keys(JSON.parse(readFileSync(secretsFile(), 'utf8')) as object).find(ref => ref.startsWith('mcp-oauth:guarded:') && ref.endsWith(':tokens'));
    const row = (): Locator => page.locator('section[data-section=mcp] tr[data-mcp-server=guarded]');

    /** The configuration view, refreshed until the server's row has the status. */
    async function rowWithStatus(status: string): Promise<Locator> {
        for (let attempt = 0; attempt < 60; attempt++) {
            if (await row().getAttribute('data-status', { timeout: 1_000 }).catch(() => undefined) === status) {
                return row();
            }
            await page.locator('.qa-config .qa-config-toolbar [data-action=refresh]').click({ timeout: 1_000 }).catch(() => undefined);
            await page.waitForTimeout(500);
        }
        assert.equal(await row().getAttribute('data-status'), status, await row().textContent() ?? 'no row');
        return row();
    }

    /** The model calls the server's tool; the user allows it; what the tool said reaches the model. */
    async function callTool(message: string): Promise<string> {
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: `w${message.length}`, name: 'mcp_guarded_whoami', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('The server said who I am.') }
        );
        const chat = new ChatPage(page);
        await chat.send(message);
        const prompt = page.locator('.qa-chat .qa-permission[data-tool=mcp_guarded_whoami]').last();
        await prompt.waitFor({ timeout: 30_000 });
        await prompt.locator('button[data-answer=allow-once]').click();
        await chat.waitForLastAnswer('done');
        const sent = JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages);
        const said = /client [0-9a-f-]{36}/.exec(sent)?.[0];
        assert.ok(said, `the tool's answer reached the model: ${sent.slice(-400)}`);
        return said;
    }

    it('the server waits for a sign-in; Sign in names the authorization server, the page opens in a tab and comes back to the backend; the tool answers', async () => {
        await runCommand(page, 'QodeAssist: Open Configuration');
        const waiting = await rowWithStatus('needs-sign-in');
        assert.match(await waiting.textContent() ?? '', new RegExp(`not signed in \\(${new URL(servers.authorizationServer).origin.replace(/[.]/g, '\\.')}\\)`));
        assert.equal(await waiting.locator('[data-transport]').textContent(), 'http');
        await page.screenshot({ path: screenshotPath('mcp-oauth-needs-sign-in') });

        await waiting.locator('[data-action=mcp-sign-in]').click();
        const dialog = page.locator('.dialogBlock', { hasText: 'Sign in to guarded' });
        await dialog.waitFor({ timeout: 20_000 });
        assert.match(await dialog.textContent() ?? '', new RegExp(`The sign-in page of ${new URL(servers.authorizationServer).origin.replace(/[.]/g, '\\.')} opens in a new browser tab`));
        await page.screenshot({ path: screenshotPath('mcp-oauth-sign-in-dialog') });
        const [tab] = await Promise.all([page.context().waitForEvent('page'), dialog.locator('.dialogControl button.main').click()]);
        // The demo authorization server approves at once and sends the tab to the backend's callback, at the address the browser uses.
        await tab.locator('h1[data-result=signed-in]').waitFor({ timeout: 30_000 });
        assert.ok(tab.url().startsWith(`${app.url.replace(/\/$/, '')}/qodeassist/mcp/oauth/callback?`), tab.url());
        assert.equal(await tab.locator('h1').textContent(), 'Signed in to guarded');
        await tab.screenshot({ path: screenshotPath('mcp-oauth-callback-tab') });
        await tab.close();

        const ready = await rowWithStatus('ready');
        assert.match(await ready.textContent() ?? '', /signed in/);
        assert.match(await ready.locator('[data-offers]').textContent() ?? '', /^1 tools/);
        await page.screenshot({ path: screenshotPath('mcp-oauth-signed-in') });
        // Kept like keys, in the owner-only file of the user's home (no keyring here); nothing in the workspace.
        assert.ok(tokensRef(), 'the tokens are in the secrets file');
        const token = (JSON.parse(JSON.parse(readFileSync(secretsFile(), 'utf8'))[tokensRef()!]) as { access_token: string }).access_token;
        const workspaceFiles = readdirSync(app.workspace, { recursive: true }).map(file => join(app.workspace, String(file))).filter(file => statSync(file).isFile());
        assert.deepEqual(workspaceFiles.filter(file => readFileSync(file, 'utf8').includes(token)), [], 'the token is in no workspace file');

        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        await new ChatPage(page).input.waitFor({ timeout: 20_000 });
        await callTool('who am I at the guarded server?');
    });

    it('after a backend restart the tool answers without signing in again', async () => {
        await app.kill('SIGKILL');
        await app.restart();
        await page.locator('.qa-chat .qa-backend-away').waitFor({ state: 'detached', timeout: 60_000 }).catch(() => undefined);
        await page.waitForTimeout(2_000);
        await callTool('and after the restart?');
        assert.equal(servers.authHits.filter(hit => hit.path.startsWith('/authorize')).length, 1, 'one sign-in in all');
    });

    it('an expired access token is refreshed before it is sent, and the tool answers', async () => {
        const ref = tokensRef()!;
        const all = JSON.parse(readFileSync(secretsFile(), 'utf8')) as Record<string, string>;
        const old = JSON.parse(all[ref]) as { access_token: string; refresh_token: string };
        servers.provider.expireAll([old.access_token]);
        writeFileSync(secretsFile(), JSON.stringify({ ...all, [ref]: JSON.stringify({ ...old, expires_at: Date.now() - 1_000 }) }), { mode: 0o600 });
        const hitsBefore = servers.mcpHits.length;
        await runCommand(page, 'QodeAssist: Open Configuration');
        await row().locator('[data-action=mcp-reconnect]').click();
        await rowWithStatus('ready');
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        await callTool('and once the token expired?');
        assert.deepEqual(servers.provider.refreshes, [old.refresh_token]);
        assert.equal(servers.mcpHits.slice(hitsBefore).filter(hit => hit.headers.authorization === `Bearer ${old.access_token}`).length, 0, 'the expired token was not sent');
        assert.equal(servers.authHits.filter(hit => hit.path.startsWith('/authorize')).length, 1, 'no new sign-in');
    });
});
