import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedPolicy } from '../config/managed-policy';
import { FileSecretsStore } from '../config/secrets-store';
import { KnownSecrets } from '../wire/redaction';
import { McpHub, McpServerState } from './mcp-hub';
import { MCP_OAUTH_CALLBACK_PATH, McpOAuth } from './mcp-oauth';
import { MAX_OAUTH_RESPONSE_BYTES } from './mcp-oauth-rules';
import { followAuthorization, Hit, OAuthServers, OAuthServerTweaks, startBystander, startOAuthServers } from './mcp-oauth.spec-support';

const CALLBACK = `http://127.0.0.1:3000${MCP_OAUTH_CALLBACK_PATH}`;

describe('MCP OAuth attacks: a hostile server or authorization server gets nothing sent where it should not go, and nothing stored', function () {
    this.timeout(30_000);
    let root: string;
    let servers: OAuthServers | undefined;
    let bystander: Awaited<ReturnType<typeof startBystander>>;
    let secretsFile: string;
    const hubs: McpHub[] = [];

    beforeEach(async () => {
        root = mkdtempSync(join(tmpdir(), 'qa-mcp-oauth-attack-'));
        secretsFile = join(root, 'home', '.qodeassist', 'secrets.json');
        bystander = await startBystander();
    });
    afterEach(async () => {
        await Promise.all(hubs.splice(0).map(hub => hub.dispose()));
        await servers?.close();
        servers = undefined;
        await bystander.close();
        rmSync(root, { recursive: true, force: true });
    });

    const start = async (tweaks: OAuthServerTweaks = {}, entry: Record<string, unknown> = {}, policy?: ManagedPolicy) => {
        servers = await startOAuthServers(tweaks);
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { guarded: { url: servers.mcpUrl, ...entry } } }));
        const oauth = new McpOAuth({ secrets: new FileSecretsStore(secretsFile), known: new KnownSecrets(), policy: () => policy });
        const hub = new McpHub({ user: join(root, 'mcp.json'), policy: () => policy }, { oauth, backoffMs: 60_000 }).start();
        hubs.push(hub);
        return { oauth, hub, servers };
    };
    const settled = async (hub: McpHub): Promise<McpServerState | undefined> => {
        await hub.settled();
        await new Promise(resolve => setTimeout(resolve, 100));
        return (await hub.settled())[0];
    };
    /** The secret refs written (none is the point), whether the file exists or not. */
    const storedRefs = (): string[] => existsSync(secretsFile) ? Object.keys(JSON.parse(readFileSync(secretsFile, 'utf8')) as object).filter(ref => ref.startsWith('mcp-oauth:')) : [];
    const paths = (hits: Hit[]) => hits.map(hit => `${hit.method} ${hit.path}`);
    const policyFor = (entry: ManagedPolicy['allowedMcpServers']): ManagedPolicy => ({ dir: '/etc/qodeassist', forbiddenAgents: [], allowedMcpServers: entry });

    it('a server the managed policy does not allow gets no request at all, not even discovery', async () => {
        const { hub } = await start({}, {}, policyFor(['https://mcp.example.com/*']));
        assert.deepEqual(await hub.settled(), []);
        assert.match(hub.issues.map(issue => issue.message).join('\n'), /allowed_mcp_servers does not include/);
        await new Promise(resolve => setTimeout(resolve, 200));
        assert.deepEqual(paths(servers!.mcpHits), []);
        assert.deepEqual(paths(servers!.authHits), []);
        assert.equal((await hub.signIn('guarded', CALLBACK)).status, 'failed');
        assert.deepEqual(paths(servers!.authHits), []);
    });

    it('resource metadata naming an authorization server on an origin the policy does not list: discovery stops, nothing reaches that origin', async () => {
        const { hub } = await start({ authorizationServers: () => [bystander.url] }, {}, policyFor([{ url: 'http://127.0.0.1:*' }]));
        const state = await settled(hub);
        assert.equal(state?.status, 'failed');
        assert.match(state?.error ?? '', /discovery: .*does not list http:\/\/127\.0\.0\.1:\d+ in authorization_servers; nothing was sent to it/);
        assert.deepEqual(paths(bystander.hits), []);
        assert.deepEqual(storedRefs(), []);
    });

    it('the same metadata with that origin in the entry\'s authorization_servers is allowed (the rule is the list, not the origin)', async () => {
        // The bystander answers metadata whose endpoints are on a third origin: discovery reaches it, and then stops at its endpoints.
        const { hub } = await start({ authorizationServers: () => [bystander.url] }, {}, policyFor([{ url: 'http://127.0.0.1:*', authorization_servers: [bystander.url] }]));
        const state = await settled(hub);
        assert.ok(bystander.hits.some(hit => hit.path.startsWith('/.well-known/oauth-authorization-server')), JSON.stringify(paths(bystander.hits)));
        assert.match(state?.error ?? '', /authorization_endpoint is on https:\/\/third\.example, not on the authorization server's origin/);
        assert.deepEqual(storedRefs(), []);
    });

    it('a 401 naming resource metadata on another origin: that URL is not fetched', async () => {
        const { hub } = await start({ challenge: `Bearer resource_metadata="${bystander.url}/.well-known/oauth-protected-resource"` });
        await settled(hub);
        assert.deepEqual(paths(bystander.hits), []);
    });

    it('authorization server metadata sending the token endpoint to another origin: refused at discovery, nothing sent there', async () => {
        const { hub } = await start({
            authRoutes: app => app.get('/.well-known/oauth-authorization-server', (_request, response) => void response.json({
                issuer: servers?.authorizationServer ?? 'x', authorization_endpoint: `${new URL(_request.protocol + '://' + _request.get('host')).origin}/authorize`,
                token_endpoint: `${bystander.url}/token`, registration_endpoint: `${bystander.url}/register`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256']
            }))
        });
        const state = await settled(hub);
        assert.match(state?.error ?? '', /token_endpoint is on http:\/\/127\.0\.0\.1:\d+, not on the authorization server's origin/);
        assert.equal((await hub.signIn('guarded', CALLBACK)).status, 'failed');
        assert.deepEqual(paths(bystander.hits), []);
        assert.deepEqual(storedRefs(), []);
    });

    it('metadata that is missing at discovery and hostile when asked again: no second discovery, the sign-in stays on the authorization server checked', async () => {
        let asked = 0;
        const { hub, oauth } = await start({
            authRoutes: app => app.get('/.well-known/oauth-authorization-server', (request, response) => {
                if (asked++ === 0) {
                    return void response.status(404).end();
                }
                const own = `${request.protocol}://${request.get('host')}`;
                void response.json({
                    issuer: own, authorization_endpoint: `${bystander.url}/authorize`, token_endpoint: `${bystander.url}/token`,
                    registration_endpoint: `${own}/register`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256']
                });
            })
        });
        await settled(hub);
        const started = await hub.signIn('guarded', CALLBACK);
        if (started.status === 'open') {
            const authorizationUrl = new URL((started as { authorizationUrl: string }).authorizationUrl);
            assert.equal(authorizationUrl.origin, new URL(servers!.authorizationServer).origin, 'the page is on the authorization server checked');
            await oauth.finish(await followAuthorization(authorizationUrl.href)).catch(() => undefined);
        }
        assert.deepEqual(paths(bystander.hits), [], 'nothing reached the other origin');
    });

    it('a registration answer that sets another redirect URI: sign-in fails at registration, nothing is stored, no authorization page is offered', async () => {
        const { hub } = await start({
            authRoutes: app => app.post('/register', (_request, response) => void response.status(201).json({ client_id: 'evil', redirect_uris: [`${bystander.url}/steal`] }))
        });
        await settled(hub);
        const result = await hub.signIn('guarded', CALLBACK);
        assert.equal(result.status, 'failed');
        assert.equal((result as { step: string }).step, 'registration');
        assert.match((result as { message: string }).message, /registered the redirect URI\(s\) http:\/\/127\.0\.0\.1:\d+\/steal instead of/);
        assert.deepEqual(storedRefs(), []);
        assert.deepEqual(paths(servers!.authHits).filter(path => path.includes('/authorize') || path.includes('/token')), []);
        assert.deepEqual(paths(bystander.hits), []);
    });

    const tokenAnswer = async (answer: (response: import('express').Response) => void) => {
        const { hub, oauth } = await start({ authRoutes: app => app.post('/token', (_request, response) => answer(response)) });
        await settled(hub);
        const started = await hub.signIn('guarded', CALLBACK);
        assert.equal(started.status, 'open');
        const result = await oauth.finish(await followAuthorization((started as { authorizationUrl: string }).authorizationUrl));
        assert.equal(result.status, 'failed');
        assert.equal((result as { step: string }).step, 'token exchange');
        // The client registered; no token, and the verifier is gone with the failed exchange.
        assert.deepEqual(storedRefs().filter(ref => !ref.endsWith(':client')), []);
        return result as { message: string };
    };

    it(`an oversized token answer (over ${MAX_OAUTH_RESPONSE_BYTES} bytes) is not read, and nothing is stored`, async () => {
        const result = await tokenAnswer(response => void response.json({ access_token: 'a'.repeat(MAX_OAUTH_RESPONSE_BYTES), token_type: 'bearer' }));
        assert.match(result.message, /is \d+ bytes, over the 65536 an OAuth answer may have; it was not read/);
    });

    it('an oversized token answer without a length (streamed) is cut at the cap, and nothing is stored', async () => {
        const result = await tokenAnswer(response => {
            response.status(200).type('application/json');
            response.write(`{"access_token":"${'b'.repeat(MAX_OAUTH_RESPONSE_BYTES)}`);
            response.end('","token_type":"bearer"}');
        });
        assert.match(result.message, /over the 65536 bytes/);
    });

    it('a malformed token answer (not JSON, wrong types, not a bearer token of printable characters) stores nothing', async () => {
        await tokenAnswer(response => void response.type('text/html').send('<html>not a token</html>'));
        await servers!.close();
        servers = undefined;
        await tokenAnswer(response => void response.json({ access_token: 42, token_type: 'bearer' }));
        await servers!.close();
        servers = undefined;
        const result = await tokenAnswer(response => void response.json({ access_token: 'line\nbreak', token_type: 'bearer' }));
        assert.match(result.message, /not a bearer token of printable characters; nothing was stored/);
    });

    it('the entry\'s own headers (an API key) never go to the authorization server\'s origin', async () => {
        const { hub } = await start({}, { headers: { 'X-Api-Key': 'resource-server-key-1234567890' } });
        await settled(hub);
        await hub.signIn('guarded', CALLBACK);
        assert.ok(servers!.authHits.length > 0);
        assert.deepEqual(servers!.authHits.filter(hit => JSON.stringify(hit.headers).includes('resource-server-key')), []);
        assert.ok(servers!.mcpHits.some(hit => hit.headers['x-api-key'] === 'resource-server-key-1234567890'), 'the MCP server itself gets it');
    });
});
