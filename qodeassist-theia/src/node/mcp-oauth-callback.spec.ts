import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { FileSecretsStore, MCP_OAUTH_CALLBACK_PATH, McpHub } from '@qodeassist/core';
import { followAuthorization, OAuthServers, startOAuthServers } from '@qodeassist/core/lib/mcp/mcp-oauth.spec-support';
import * as express from '@theia/core/shared/express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QODEASSIST_MCP_OAUTH_CALLBACK } from '../common/mcp-protocol';
import { callbackPage, McpOAuthCallback } from './mcp-oauth-callback';
import { McpHubs, McpServerHost, QodeAssistMcpServiceImpl } from './mcp-service-impl';

describe('MCP OAuth callback route of the backend', function () {
    this.timeout(30_000);
    let root: string;
    let servers: OAuthServers;
    let hubs: McpHubs;
    let backend: Server;
    let backendUrl: string;

    beforeEach(async () => {
        root = mkdtempSync(join(tmpdir(), 'qa-mcp-oauth-route-'));
        servers = await startOAuthServers();
        mkdirSync(join(root, '.qodeassist'), { recursive: true, mode: 0o700 });
        writeFileSync(join(root, '.qodeassist', 'mcp.json'), JSON.stringify({ mcpServers: { guarded: { url: servers.mcpUrl } } }));
        hubs = new McpHubs(root, undefined, new FileSecretsStore(join(root, '.qodeassist', 'secrets.json')));
        const app = express();
        new McpOAuthCallback(hubs).configure(app);
        await new Promise<void>(resolve => { backend = app.listen(0, '127.0.0.1', () => resolve()); });
        backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
        await hubs.dispose();
        backend.closeAllConnections();
        await new Promise(resolve => backend.close(resolve));
        await servers.close();
        rmSync(root, { recursive: true, force: true });
    });

    const until = async (hub: McpHub, status: string) => {
        for (let i = 0; i < 100 && (await hub.settled())[0]?.status !== status; i++) {
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        return hub.states()[0];
    };

    it('the browser path the frontend builds is the route core registers', () => {
        assert.equal(QODEASSIST_MCP_OAUTH_CALLBACK, MCP_OAUTH_CALLBACK_PATH);
    });

    it('sign in through the service, come back through the route behind a path prefix: the tab says so, the server is ready; a replay is refused', async () => {
        const service = new QodeAssistMcpServiceImpl(new McpServerHost(new FileSecretsStore(join(root, 'server-secrets.json'))), hubs);
        const hub = hubs.hubFor(undefined);
        assert.equal((await until(hub, 'needs-sign-in')).status, 'needs-sign-in');
        // As behind an ingress that serves the IDE under /session-1: the redirect names that address.
        const callbackUrl = `${backendUrl}/session-1${MCP_OAUTH_CALLBACK_PATH}`;
        const started = await service.signIn(undefined, 'guarded', callbackUrl);
        assert.equal(started.status, 'open');
        const authorizationUrl = new URL((started as { authorizationUrl: string }).authorizationUrl);
        assert.equal(authorizationUrl.searchParams.get('redirect_uri'), callbackUrl);
        const query = new URLSearchParams(await followAuthorization(authorizationUrl.href));

        // The ingress strips the prefix: the backend sees the route itself.
        const page = await fetch(`${backendUrl}${MCP_OAUTH_CALLBACK_PATH}?${query}`);
        assert.equal(page.status, 200);
        assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
        assert.equal(page.headers.get('cache-control'), 'no-store');
        assert.match(await page.text(), /<h1 data-result="signed-in">Signed in to guarded<\/h1>/);
        assert.equal((await until(hub, 'ready')).auth?.signedIn, true);

        const replay = await fetch(`${backendUrl}${MCP_OAUTH_CALLBACK_PATH}?${query}`);
        assert.equal(replay.status, 400);
        assert.match(await replay.text(), /failed at authorization/);
        assert.equal(servers.authHits.filter(hit => hit.path === '/token').length, 1);

        await service.signOut(undefined, 'guarded');
        assert.equal((await until(hub, 'needs-sign-in')).auth?.signedIn, false);
    });

    it('what an authorization server put in the redirect is shown as text, never as markup', () => {
        const page = callbackPage({ status: 'failed', server: 'x', step: 'authorization', message: '<script>alert(1)</script>' });
        assert.ok(!page.includes('<script>'));
        assert.match(page, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
    });
});
