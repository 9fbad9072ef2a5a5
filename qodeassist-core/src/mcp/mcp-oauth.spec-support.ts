import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type * as Express from 'express';
import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import { dirname, join } from 'node:path';

// The SDK's routers are written for the Express it depends on (not the workspace's own).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require(require.resolve('express', { paths: [join(dirname(require.resolve('@modelcontextprotocol/sdk/server/index.js')), '..', '..', '..')] })) as typeof Express;

/** The SDK's demo authorization server, taught refresh tokens (the demo throws "not implemented") and to expire a token on demand. */
export class RefreshingAuthProvider extends DemoInMemoryAuthProvider {
    readonly refreshes: string[] = [];
    private readonly refreshTokens = new Map<string, string>();
    private readonly issued = new Map<string, AuthInfo>();
    private readonly expired = new Set<string>();

    override async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, verifier?: string): Promise<OAuthTokens> {
        const tokens = await super.exchangeAuthorizationCode(client, code, verifier);
        const refresh = randomUUID();
        this.refreshTokens.set(refresh, client.client_id);
        return { ...tokens, refresh_token: refresh };
    }

    override async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
        if (this.refreshTokens.get(refreshToken) !== client.client_id) {
            throw new Error('unknown refresh token');
        }
        this.refreshes.push(refreshToken);
        const token = randomUUID();
        this.issued.set(token, { token, clientId: client.client_id, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 });
        return { access_token: token, token_type: 'bearer', expires_in: 3600 };
    }

    /** Every token issued so far stops working, as at its expiry. */
    expireAll(tokens: string[]): void {
        tokens.forEach(token => this.expired.add(token));
    }

    override async verifyAccessToken(token: string): Promise<AuthInfo> {
        if (this.expired.has(token)) {
            throw new InvalidTokenError('expired'); // A 401 from the bearer middleware (a plain Error is a 500).
        }
        return this.issued.get(token) ?? super.verifyAccessToken(token);
    }
}

export interface Hit {
    method: string;
    path: string;
    headers: Record<string, unknown>;
}

export interface OAuthServers {
    /** The MCP endpoint, needing a bearer token from the authorization server. */
    mcpUrl: string;
    authorizationServer: string;
    provider: RefreshingAuthProvider;
    mcpHits: Hit[];
    authHits: Hit[];
    close(): Promise<void>;
}

export interface OAuthServerTweaks {
    /** What the resource metadata names as its authorization server (a hostile server points elsewhere). */
    authorizationServers?(authorizationServer: string): string[];
    /** Routes of the authorization server answered by the test instead of the demo. */
    authRoutes?(app: Express.Express): void;
    /** A header the resource server's 401 carries instead of the SDK's. */
    challenge?: string;
    /** A public server: no token needed. */
    open?: boolean;
}

function listen(app: Express.Express): Promise<{ server: Server; url: string }> {
    return new Promise(resolve => {
        const server = app.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
    });
}

function recorder(hits: Hit[]): Express.RequestHandler {
    return (request, _response, next) => {
        hits.push({ method: request.method, path: request.originalUrl, headers: { ...request.headers } });
        next();
    };
}

/** An authorization server and an MCP server with one tool, `whoami`, on two 127.0.0.1 ports (two origins). */
export async function startOAuthServers(tweaks: OAuthServerTweaks = {}): Promise<OAuthServers> {
    const provider = new RefreshingAuthProvider();
    const authHits: Hit[] = [];
    const mcpHits: Hit[] = [];
    const authApp = express();
    authApp.use(recorder(authHits));
    tweaks.authRoutes?.(authApp);
    const auth = await listen(authApp);
    const issuerUrl = new URL(auth.url);
    authApp.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: ['mcp:tools'] }));

    const mcpApp = express();
    mcpApp.use(recorder(mcpHits));
    mcpApp.use(express.json());
    const mcp = await listen(mcpApp);
    const mcpUrl = new URL('/mcp', mcp.url);
    const metadata = createOAuthMetadata({ provider, issuerUrl, scopesSupported: ['mcp:tools'] });
    mcpApp.get('/.well-known/oauth-protected-resource/mcp', (_request, response) => {
        response.json({ resource: mcpUrl.href, authorization_servers: tweaks.authorizationServers?.(metadata.issuer) ?? [metadata.issuer], scopes_supported: ['mcp:tools'] });
    });
    const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
    const guard: Express.RequestHandler = tweaks.open ? (_request, _response, next) => next() : tweaks.challenge
        ? (_request, response) => void response.status(401).set('WWW-Authenticate', tweaks.challenge!).json({ error: 'invalid_token' })
        : bearer;
    mcpApp.post('/mcp', guard, async (request, response) => {
        const server = new McpServer({ name: 'guarded', version: '1.0.0' });
        server.registerTool('whoami', { description: 'Says which client the token belongs to' }, async (extra: { authInfo?: AuthInfo }) =>
            ({ content: [{ type: 'text', text: `client ${extra.authInfo?.clientId ?? 'unknown'}` }] }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        response.on('close', () => void transport.close());
        await server.connect(transport);
        await transport.handleRequest(request, response, request.body);
    });
    mcpApp.get('/mcp', guard, (_request, response) => void response.status(405).end());
    return {
        mcpUrl: mcpUrl.href, authorizationServer: metadata.issuer, provider, mcpHits, authHits,
        close: async () => {
            await new Promise(resolve => auth.server.close(resolve));
            await new Promise(resolve => mcp.server.close(resolve));
            auth.server.closeAllConnections?.();
            mcp.server.closeAllConnections?.();
        }
    };
}

/** Any other server: it only records what reaches it (nothing should). */
export async function startBystander(): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
    const hits: Hit[] = [];
    const app = express();
    let url = '';
    app.use(recorder(hits));
    app.use((_request, response) => void response.json({
        issuer: url, authorization_endpoint: 'https://third.example/authorize', token_endpoint: 'https://third.example/token', response_types_supported: ['code']
    }));
    const listening = await listen(app);
    url = listening.url;
    const server = listening.server;
    return { url, hits, close: () => new Promise(resolve => { server.closeAllConnections?.(); server.close(() => resolve()); }) };
}

/** What the user's browser does with the authorization URL: the demo server redirects at once to the callback with `code` and `state`. */
export async function followAuthorization(authorizationUrl: string): Promise<Record<string, string>> {
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    const redirect = response.headers.get('location');
    if (!redirect) {
        throw new Error(`the authorization page did not redirect (${response.status}: ${await response.text()})`);
    }
    return Object.fromEntries(new URL(redirect).searchParams);
}
