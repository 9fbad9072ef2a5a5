import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSecretsStore } from '../config/secrets-store';
import { WorkspaceFiles } from '../tools/workspace-files';
import { KnownSecrets } from '../wire/redaction';
import { McpHub, McpServerState } from './mcp-hub';
import { MCP_OAUTH_CALLBACK_PATH, McpOAuth } from './mcp-oauth';
import { McpOAuthStore, StoredTokens } from './mcp-oauth-store';
import { followAuthorization, OAuthServers, startOAuthServers } from './mcp-oauth.spec-support';

const CALLBACK = `http://127.0.0.1:3000/some/prefix${MCP_OAUTH_CALLBACK_PATH}`;

describe('MCP OAuth 2.1: signing in to an HTTP server (the SDK demo authorization server on 127.0.0.1)', function () {
    this.timeout(30_000);
    let root: string;
    let servers: OAuthServers;
    let secretsFile: string;
    const hubs: McpHub[] = [];

    beforeEach(async () => {
        root = mkdtempSync(join(tmpdir(), 'qa-mcp-oauth-'));
        secretsFile = join(root, 'home', '.qodeassist', 'secrets.json');
        servers = await startOAuthServers();
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { guarded: { url: servers.mcpUrl } } }));
    });
    afterEach(async () => {
        await Promise.all(hubs.splice(0).map(hub => hub.dispose()));
        await servers.close();
        rmSync(root, { recursive: true, force: true });
    });

    /** A backend's worth: its own McpOAuth over the secrets file, and a hub of the user's mcp.json. */
    const backend = (known = new KnownSecrets()) => {
        const oauth = new McpOAuth({ secrets: new FileSecretsStore(secretsFile), known });
        const hub = new McpHub({ user: join(root, 'mcp.json') }, { oauth, backoffMs: 60_000 }).start();
        hubs.push(hub);
        return { oauth, hub };
    };
    const stored = (): Record<string, string> => JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
    const whoami = async (hub: McpHub) => hub.tools().find(tool => tool.name === 'mcp_guarded_whoami')!.run({}, { requestId: 'r', chatId: 'c', files: new WorkspaceFiles([root]) });
    const until = async (hub: McpHub, status: McpServerState['status']) => {
        for (let i = 0; i < 100 && (await hub.settled())[0].status !== status; i++) {
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        return hub.states()[0];
    };
    const signIn = async (hub: McpHub, oauth: McpOAuth) => {
        const started = await hub.signIn('guarded', CALLBACK);
        assert.equal(started.status, 'open', JSON.stringify(started));
        const query = await followAuthorization((started as { authorizationUrl: string }).authorizationUrl);
        return oauth.finish(query);
    };

    it('a 401 leads to needs-sign-in with the authorization server found by discovery; sign in, call a tool, a new backend calls again without signing in', async () => {
        const first = backend();
        const waiting = await until(first.hub, 'needs-sign-in');
        assert.deepEqual(waiting.auth, { preregistered: false, signedIn: false, authorizationServer: new URL(servers.authorizationServer).origin });

        const started = await first.hub.signIn('guarded', CALLBACK);
        assert.equal(started.status, 'open');
        const authorizationUrl = new URL((started as { authorizationUrl: string }).authorizationUrl);
        assert.equal(authorizationUrl.origin, new URL(servers.authorizationServer).origin);
        assert.equal(authorizationUrl.searchParams.get('redirect_uri'), CALLBACK);
        assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
        const query = await followAuthorization(authorizationUrl.href);
        assert.equal(query.state, authorizationUrl.searchParams.get('state'));

        assert.deepEqual(await first.oauth.finish(query), { status: 'signed-in', server: 'guarded' });
        const ready = await until(first.hub, 'ready');
        assert.equal(ready.auth?.signedIn, true);
        const answer = await whoami(first.hub);
        const client = JSON.parse(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'client')]) as { information: { client_id: string } };
        assert.equal(answer.content, `client ${client.information.client_id}`);
        // The verifier served its one exchange; the tokens and client are in the owner-only file.
        assert.equal(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'verifier')], undefined);
        assert.ok(JSON.parse(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'tokens')]).access_token);

        // As after a backend restart: nothing in memory, the stored tokens suffice.
        const second = backend();
        assert.equal((await until(second.hub, 'ready')).status, 'ready');
        assert.equal((await whoami(second.hub)).content, answer.content);
        assert.equal(servers.authHits.filter(hit => hit.path.startsWith('/authorize')).length, 1, 'one authorization in all');
    });

    it('an access token about to expire is refreshed (the SDK\'s refresh grant) before a request carries it', async () => {
        const { oauth, hub } = backend();
        await until(hub, 'needs-sign-in');
        await signIn(hub, oauth);
        await until(hub, 'ready');
        const ref = McpOAuthStore.ref('guarded', servers.mcpUrl, 'tokens');
        const old = JSON.parse(stored()[ref]) as StoredTokens & { refresh_token: string };
        // Expired on both sides: the stored lifetime says so, and the server no longer takes it.
        servers.provider.expireAll([old.access_token]);
        const store = new McpOAuthStore(new FileSecretsStore(secretsFile), new KnownSecrets());
        await store.saveTokens('guarded', servers.mcpUrl, { ...old, expires_at: Date.now() - 1 });
        const hitsBefore = servers.mcpHits.length;

        const restarted = backend();
        await until(restarted.hub, 'ready');
        assert.match(String((await whoami(restarted.hub)).content), /^client /);
        assert.deepEqual(servers.provider.refreshes, [old.refresh_token]);
        const renewed = JSON.parse(stored()[ref]) as { access_token: string; refresh_token: string; expires_at: number };
        assert.notEqual(renewed.access_token, old.access_token);
        assert.equal(renewed.refresh_token, old.refresh_token, 'a refresh answer without a refresh token keeps the old one');
        assert.ok(renewed.expires_at > Date.now() + 3_000_000);
        assert.equal(servers.mcpHits.slice(hitsBefore).filter(hit => hit.headers.authorization === `Bearer ${old.access_token}`).length, 0, 'the expired token was never sent');
    });

    it('two workspaces\' hubs of one backend refresh an expiring token once between them (a rotated refresh token works once)', async () => {
        const { oauth, hub } = backend();
        await until(hub, 'needs-sign-in');
        await signIn(hub, oauth);
        await until(hub, 'ready');
        const store = new McpOAuthStore(new FileSecretsStore(secretsFile), new KnownSecrets());
        const old = (await store.tokens('guarded', servers.mcpUrl))!;
        await store.saveTokens('guarded', servers.mcpUrl, { ...old, expires_at: Date.now() - 1 });
        const shared = new McpOAuth({ secrets: new FileSecretsStore(secretsFile), known: new KnownSecrets() });
        const pair = [0, 1].map(() => new McpHub({ user: join(root, 'mcp.json') }, { oauth: shared, backoffMs: 60_000 }).start());
        hubs.push(...pair);
        assert.deepEqual(await Promise.all(pair.map(async each => (await until(each, 'ready')).status)), ['ready', 'ready']);
        assert.equal(servers.provider.refreshes.length, 1);
    });

    it('a token the server stopped taking (401) is refreshed by the SDK and the connection goes on', async () => {
        const { oauth, hub } = backend();
        await until(hub, 'needs-sign-in');
        await signIn(hub, oauth);
        await until(hub, 'ready');
        const old = JSON.parse(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'tokens')]) as { access_token: string };
        servers.provider.expireAll([old.access_token]);
        const restarted = backend();
        const state = await until(restarted.hub, 'ready');
        assert.equal(state.status, 'ready', JSON.stringify(state));
        assert.match(String((await whoami(restarted.hub)).content), /^client /);
        assert.equal(servers.provider.refreshes.length, 1);
    });

    it('tokens and the registered client are redacted by value from then on', async () => {
        const known = new KnownSecrets();
        const { oauth, hub } = backend(known);
        await until(hub, 'needs-sign-in');
        await signIn(hub, oauth);
        const tokens = JSON.parse(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'tokens')]) as { access_token: string; refresh_token: string };
        assert.ok(known.has(tokens.access_token));
        assert.ok(known.has(tokens.refresh_token));
    });

    it('Sign out removes the tokens and the client; the server then asks for a sign-in again', async () => {
        const { oauth, hub } = backend();
        await until(hub, 'needs-sign-in');
        await signIn(hub, oauth);
        await until(hub, 'ready');
        await hub.signOut('guarded');
        assert.deepEqual(Object.keys(stored()).filter(ref => ref.startsWith('mcp-oauth:')), []);
        const state = await until(hub, 'needs-sign-in');
        assert.equal(state.auth?.signedIn, false);
    });

    it('a callback with a state this backend did not start exchanges nothing and stores nothing', async () => {
        const { oauth, hub } = backend();
        await until(hub, 'needs-sign-in');
        const started = await hub.signIn('guarded', CALLBACK);
        const query = await followAuthorization((started as { authorizationUrl: string }).authorizationUrl);
        const result = await oauth.finish({ ...query, state: 'forged' });
        assert.equal(result.status, 'failed');
        assert.equal((result as { step: string }).step, 'authorization');
        assert.equal(servers.authHits.filter(hit => hit.path === '/token').length, 0);
        assert.equal(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'tokens')], undefined);
        // The real one still works once; a replay of it does not.
        assert.equal((await oauth.finish(query)).status, 'signed-in');
        assert.equal((await oauth.finish(query)).status, 'failed');
    });

    it('an authorization server that answers with an error says the step: authorization, with its reason', async () => {
        const { oauth, hub } = backend();
        await until(hub, 'needs-sign-in');
        const started = await hub.signIn('guarded', CALLBACK);
        const state = new URL((started as { authorizationUrl: string }).authorizationUrl).searchParams.get('state')!;
        const result = await oauth.finish({ state, error: 'access_denied', error_description: 'The user said no' });
        assert.deepEqual(result, { status: 'failed', server: 'guarded', step: 'authorization', message: 'the authorization server answered access_denied (The user said no)' });
        assert.deepEqual(hub.states()[0].auth?.failure, { step: 'authorization', message: 'the authorization server answered access_denied (The user said no)' });
    });

    it('a client id and secret from mcp.json are used instead of dynamic registration, and not stored', async () => {
        await servers.provider.clientsStore.registerClient({ client_id: 'preset', client_secret: 'preset-secret-0123456789', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_post' });
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { guarded: { url: servers.mcpUrl, oauth: { client_id: 'preset', client_secret: 'preset-secret-0123456789', authorization_server: servers.authorizationServer } } } }));
        const { oauth, hub } = backend();
        assert.equal((await until(hub, 'needs-sign-in')).auth?.preregistered, true);
        assert.equal((await signIn(hub, oauth)).status, 'signed-in');
        await until(hub, 'ready');
        assert.equal((await whoami(hub)).content, 'client preset');
        assert.equal(servers.authHits.filter(hit => hit.path === '/register').length, 0);
        assert.equal(stored()[McpOAuthStore.ref('guarded', servers.mcpUrl, 'client')], undefined);
    });

    it('a public server (never a 401) shows no sign-in and sends no OAuth request', async () => {
        await servers.close();
        servers = await startOAuthServers({ open: true });
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { guarded: { url: servers.mcpUrl } } }));
        const { hub } = backend();
        const state = await until(hub, 'ready');
        assert.deepEqual(state.auth, { preregistered: false });
        assert.equal((await whoami(hub)).content, 'client unknown');
        assert.deepEqual(servers.authHits, []);
        assert.deepEqual(servers.mcpHits.filter(hit => hit.path.startsWith('/.well-known')), []);
    });

    it('a callback URL that is not the callback route is refused before anything is sent', async () => {
        const { hub } = backend();
        await until(hub, 'needs-sign-in');
        const before = servers.authHits.length;
        const result = await hub.signIn('guarded', 'https://elsewhere.example/steal');
        assert.equal(result.status, 'failed');
        assert.equal(servers.authHits.length, before);
    });
});
