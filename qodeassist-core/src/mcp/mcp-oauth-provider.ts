import { auth, discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpServerConfig } from './mcp-config';
import { authorizationServerRefusal, guardedFetch, McpSignInError, McpSignInNeededError, McpSignInStep, metadataRefusal } from './mcp-oauth-rules';
import { McpOAuthStore, StoredTokens } from './mcp-oauth-store';

export type HttpServerConfig = Extract<McpServerConfig, { transport: 'http' | 'sse' }>;

/** Refresh this long before the access token expires, so a call never starts with a token about to lapse. */
export const REFRESH_MARGIN_MS = 60_000;

/** What is known of one server's authorization, shared by its connection and its sign-ins (in memory). */
export class ServerAuthorization {
    /** The resource metadata URL the server's last 401 named. */
    resourceMetadataUrl: URL | undefined;
    discovery: OAuthDiscoveryState | undefined;
    /** The authorization server, once its rule passed: OAuth requests may go to its origin from then on. */
    authorizationServer: URL | undefined;
    signedIn: boolean | undefined;
    /** The server answered 401 at least once: it wants a sign-in (a public server never shows one). */
    challenged = false;
    /** A refresh under way, shared by every hub's connection to this server (a rotated refresh token works once). */
    refresh: Promise<OAuthTokens | undefined> | undefined;
    failure: { step: McpSignInStep; message: string } | undefined;
    /** The fetch of this server's transport and auth(): MCP traffic, and OAuth requests to allowed origins only. */
    readonly fetch: FetchLike;
    readonly url: URL;

    constructor(readonly config: HttpServerConfig, readonly policyOrigins: () => readonly string[] | undefined, baseFetch?: FetchLike) {
        this.url = new URL(config.url);
        this.fetch = guardedFetch({
            server: this.url,
            configHeaders: Object.keys(config.headers),
            allowedOrigins: () => new Set([this.url.origin, ...(this.authorizationServer ? [this.authorizationServer.origin] : [])]),
            onUnauthorized: response => this.noteChallenge(response),
            fetch: baseFetch
        });
    }

    /** The resource metadata URL a 401 names is used only on the server's own origin (else discovery could be sent anywhere). */
    private noteChallenge(response: Response): void {
        this.challenged = true;
        const match = /resource_metadata="([^"]+)"/.exec(response.headers.get('www-authenticate') ?? '');
        if (!match) {
            return;
        }
        try {
            const url = new URL(match[1]);
            this.resourceMetadataUrl = url.origin === this.url.origin ? url : undefined;
        } catch {
            this.resourceMetadataUrl = undefined;
        }
    }
}

/** The interactive part of a sign-in: where the browser comes back to, and the state it must bring. */
export interface SignInContext {
    redirectUrl: string;
    state: string;
}

/**
 * The SDK's OAuthClientProvider for one MCP server. Connecting (no `signIn`) it uses what is
 * stored, lets auth() refresh an expiring token, and stops with McpSignInNeededError where the
 * user would have to act (register, authorize). Signing in, it registers when needed, keeps the
 * PKCE verifier in the key store and captures the authorization URL for the user's browser.
 * Discovery is the SDK's, with this project's rule checked between its two steps.
 */
export class McpOAuthClientProvider implements OAuthClientProvider {
    step: McpSignInStep = 'discovery';
    authorizationUrl: URL | undefined;
    private refreshing = false;

    constructor(readonly server: ServerAuthorization, private readonly store: McpOAuthStore, readonly signIn?: SignInContext) { }

    private get name(): string {
        return this.server.config.name;
    }

    private get url(): string {
        return this.server.config.url;
    }

    get redirectUrl(): string {
        // While connecting nothing is redirected (redirectToAuthorization stops first); auth() only needs to know the flow is interactive.
        return this.signIn?.redirectUrl ?? 'http://127.0.0.1/qodeassist/mcp/oauth/callback';
    }

    get clientMetadata(): OAuthClientMetadata {
        return {
            client_name: 'QodeAssist', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
            token_endpoint_auth_method: 'none', ...(this.server.config.oauth?.scope ? { scope: this.server.config.oauth.scope } : {})
        };
    }

    state(): string {
        return this.signIn?.state ?? '';
    }

    async discoveryState(): Promise<OAuthDiscoveryState> {
        this.server.discovery ??= await this.discover();
        return this.server.discovery;
    }

    /**
     * The SDK saves what it discovered itself (it discovers again when a cached state lacks the
     * metadata): that state passes the same rule as ours, on the authorization server already checked,
     * or it is not kept and the sign-in stops.
     */
    saveDiscoveryState(state: OAuthDiscoveryState): void {
        const checked = this.server.authorizationServer;
        let named: URL | undefined;
        try {
            named = new URL(state.authorizationServerUrl);
        } catch {
            named = undefined;
        }
        if (!checked || !named || named.origin !== checked.origin) {
            throw new McpSignInError('discovery', `the sign-in moved to the authorization server ${named?.origin ?? state.authorizationServerUrl}, not the one checked (${checked?.origin ?? 'none'}); nothing was sent to it`);
        }
        const endpoints = metadataRefusal(state.authorizationServerMetadata, checked);
        if (endpoints) {
            throw new McpSignInError('discovery', `the authorization server ${checked.origin} was refused: ${endpoints}`);
        }
        this.server.discovery = { ...state, authorizationServerMetadata: state.authorizationServerMetadata ?? fallbackMetadata(checked) };
    }

    /** RFC 9728 then RFC 8414, both by the SDK; the authorization server is checked against the rule before anything is sent to it. */
    private async discover(): Promise<OAuthDiscoveryState> {
        this.step = 'discovery';
        const { url, config } = this.server;
        let resourceMetadata: Awaited<ReturnType<typeof discoverOAuthProtectedResourceMetadata>> | undefined;
        try {
            resourceMetadata = await discoverOAuthProtectedResourceMetadata(url, { resourceMetadataUrl: this.server.resourceMetadataUrl }, this.server.fetch);
        } catch {
            // No resource metadata: the MCP spec's older rule, the server's origin is the authorization server.
        }
        const named = resourceMetadata?.authorization_servers?.[0] ?? new URL('/', url).href;
        let authorizationServer: URL;
        try {
            authorizationServer = new URL(named);
        } catch {
            throw new McpSignInError('discovery', `the server's metadata names "${named}" as its authorization server, which is not a URL`);
        }
        const refusal = authorizationServerRefusal(authorizationServer, {
            server: url, policyOrigins: this.server.policyOrigins(), ...(config.oauth ? { preregistered: { authorizationServer: config.oauth.authorization_server } } : {})
        });
        if (refusal) {
            throw new McpSignInError('discovery', `${refusal}; nothing was sent to it`);
        }
        this.server.authorizationServer = authorizationServer;
        const metadata = await discoverAuthorizationServerMetadata(authorizationServer, { fetchFn: this.server.fetch });
        const endpoints = metadataRefusal(metadata, authorizationServer);
        if (endpoints) {
            this.server.authorizationServer = undefined;
            throw new McpSignInError('discovery', `the authorization server ${authorizationServer.origin} was refused: ${endpoints}`);
        }
        // No metadata: the endpoints the spec's fallback names, on this origin, written down here so that the
        // SDK never discovers again on its own (a second answer would not pass this check).
        return {
            authorizationServerUrl: named, resourceMetadata, authorizationServerMetadata: metadata ?? fallbackMetadata(authorizationServer),
            resourceMetadataUrl: this.server.resourceMetadataUrl?.href
        };
    }

    async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
        const preregistered = this.server.config.oauth;
        const issuer = this.server.discovery?.authorizationServerUrl;
        if (preregistered) {
            return { client_id: preregistered.client_id, ...(preregistered.client_secret ? { client_secret: preregistered.client_secret } : {}), ...(issuer ? { issuer } : {}) };
        }
        const stored = await this.store.client(this.name, this.url);
        // A client registered for another browser origin's callback registers again when signing in from this one.
        if (stored && (!this.signIn || stored.redirectUri === this.redirectUrl)) {
            return stored.information;
        }
        if (!this.signIn) {
            throw new McpSignInNeededError(this.name);
        }
        this.step = 'registration';
        return undefined;
    }

    /** A registration is stored only when it is for exactly this sign-in's redirect URI. */
    async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
        const registered = 'redirect_uris' in information ? (information.redirect_uris as unknown[]).map(String) : [this.redirectUrl];
        if (registered.length !== 1 || registered[0] !== this.redirectUrl) {
            throw new McpSignInError('registration', `the authorization server registered the redirect URI(s) ${registered.join(', ')} instead of ${this.redirectUrl}; nothing was stored`);
        }
        await this.store.saveClient(this.name, this.url, { information, redirectUri: this.redirectUrl });
        this.step = 'authorization';
    }

    async tokens(): Promise<OAuthTokens | undefined> {
        const stored = await this.store.tokens(this.name, this.url);
        this.server.signedIn = stored !== undefined;
        if (stored?.refresh_token && stored.expires_at !== undefined && stored.expires_at - Date.now() < REFRESH_MARGIN_MS && !this.refreshing && !this.signIn) {
            this.server.refresh ??= this.refreshed(stored).finally(() => { this.server.refresh = undefined; });
            return this.server.refresh;
        }
        return stored;
    }

    /** auth() refreshes (the SDK's refresh grant); should that fail the stored token is used and the server's 401 leads to sign-in. */
    private async refreshed(stored: StoredTokens): Promise<OAuthTokens | undefined> {
        this.refreshing = true;
        try {
            this.step = 'token refresh';
            await auth(this, { serverUrl: this.server.url, resourceMetadataUrl: this.server.resourceMetadataUrl, fetchFn: this.server.fetch });
            return await this.store.tokens(this.name, this.url);
        } catch {
            return stored;
        } finally {
            this.refreshing = false;
        }
    }

    async saveTokens(tokens: OAuthTokens): Promise<void> {
        if (tokens.token_type.toLowerCase() !== 'bearer' || !/^[\x21-\x7e]{1,8192}$/.test(tokens.access_token)) {
            throw new McpSignInError(this.step, 'the token response is not a bearer token of printable characters; nothing was stored');
        }
        const expiresAt = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? Date.now() + tokens.expires_in * 1000 : undefined;
        // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
        const previous = tokens.refresh_token ? undefined : await this.store.tokens(this.name, this.url);
        await this.store.saveTokens(this.name, this.url, {
            ...tokens, ...(previous?.refresh_token ? { refresh_token: previous.refresh_token } : {}), ...(expiresAt !== undefined ? { expires_at: expiresAt } : {})
        });
        this.server.signedIn = true;
        this.server.failure = undefined;
    }

    redirectToAuthorization(authorizationUrl: URL): void {
        if (!this.signIn) {
            throw new McpSignInNeededError(this.name);
        }
        this.authorizationUrl = authorizationUrl;
    }

    async saveCodeVerifier(codeVerifier: string): Promise<void> {
        if (this.signIn) {
            await this.store.saveVerifier(this.name, this.url, codeVerifier);
        }
    }

    async codeVerifier(): Promise<string> {
        const verifier = await this.store.verifier(this.name, this.url);
        if (!verifier) {
            throw new McpSignInError('token exchange', 'no sign-in was started from here (the PKCE verifier is gone); sign in again');
        }
        return verifier;
    }

    async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
        if (scope === 'discovery' || scope === 'all') {
            this.server.discovery = undefined;
        }
        const parts = scope === 'all' ? ['client', 'tokens', 'verifier'] as const : scope === 'discovery' ? [] : [scope];
        await this.store.remove(this.name, this.url, parts);
        if (scope === 'all' || scope === 'tokens') {
            this.server.signedIn = false;
        }
    }
}

/** The endpoints an authorization server without metadata has (the MCP spec's fallback): /authorize, /token, /register on its origin. */
function fallbackMetadata(authorizationServer: URL): AuthorizationServerMetadata {
    return {
        issuer: authorizationServer.origin,
        authorization_endpoint: new URL('/authorize', authorizationServer).href,
        token_endpoint: new URL('/token', authorizationServer).href,
        registration_endpoint: new URL('/register', authorizationServer).href,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256']
    };
}
