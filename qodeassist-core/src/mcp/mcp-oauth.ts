import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { randomBytes } from 'node:crypto';
import { ManagedPolicy } from '../config/managed-policy';
import { WritableSecretsStore } from '../config/secrets-store';
import { KnownSecrets, PROCESS_SECRETS } from '../wire/redaction';
import { HttpServerConfig, McpOAuthClientProvider, ServerAuthorization } from './mcp-oauth-provider';
import { McpOAuthRefusedRequest, McpSignInError, McpSignInNeededError, McpSignInStep, policyAuthorizationOrigins } from './mcp-oauth-rules';
import { McpOAuthStore } from './mcp-oauth-store';

/** The backend route the authorization server sends the browser back to (below the URL the browser uses for the IDE). */
export const MCP_OAUTH_CALLBACK_PATH = '/qodeassist/mcp/oauth/callback';

/** What the UI shows of a server's sign-in. */
export interface McpServerAuth {
    /** Tokens are stored for it (undefined: not known yet, the server was not asked). */
    signedIn?: boolean;
    /** Origin of its authorization server, once discovery found and allowed it. */
    authorizationServer?: string;
    /** A client id from mcp.json is used (no registration). */
    preregistered: boolean;
    /** The last sign-in that failed, and at which step. */
    failure?: { step: McpSignInStep; message: string };
}

/** The outcome of Sign in: a page to open in the browser, done at once (a refresh sufficed), or the step that failed. */
export type McpSignInResult =
    | { status: 'open'; authorizationUrl: string; authorizationServer: string }
    | { status: 'signed-in' }
    | { status: 'failed'; step: McpSignInStep; message: string };

/** What the callback route answers the browser, and which server it was for. */
export type McpCallbackResult = { status: 'signed-in'; server: string } | { status: 'failed'; server?: string; step: McpSignInStep; message: string };

export interface McpOAuthOptions {
    secrets: WritableSecretsStore;
    /** The administrator's policy, read at each discovery (see policyAuthorizationOrigins). */
    policy?: () => ManagedPolicy | undefined;
    known?: KnownSecrets;
    /** How long a started sign-in waits for the browser to come back; 10 minutes by default. */
    signInTimeoutMs?: number;
    /** For tests that count requests; the global fetch otherwise. */
    fetch?: FetchLike;
}

interface PendingSignIn {
    provider: McpOAuthClientProvider;
    timer: NodeJS.Timeout;
}

/**
 * OAuth 2.1 for the HTTP MCP servers of every hub of the backend (MCP authorization spec, on
 * the SDK's client auth): each server's connection gets a provider using what is stored; Sign
 * in starts the browser flow with a redirect to the backend's callback route; the callback
 * checks `state`, exchanges the code and the hubs reconnect the server; Sign out removes its
 * tokens and client.
 */
export class McpOAuth {
    private readonly store: McpOAuthStore;
    private readonly servers = new Map<string, ServerAuthorization>();
    private readonly pending = new Map<string, PendingSignIn>();
    private readonly listeners = new Set<(event: { server: string; url: string; kind: 'changed' | 'signed-in' | 'signed-out' }) => void>();

    constructor(private readonly options: McpOAuthOptions) {
        this.store = new McpOAuthStore(options.secrets, options.known ?? PROCESS_SECRETS);
    }

    /** The server's shared state, made anew when its entry changed (another URL, client or headers). */
    private authorization(config: HttpServerConfig): ServerAuthorization {
        const key = `${config.name}\n${config.url}`;
        const current = this.servers.get(key);
        if (current && JSON.stringify(current.config.oauth) === JSON.stringify(config.oauth) && JSON.stringify(current.config.headers) === JSON.stringify(config.headers)) {
            return current;
        }
        const created = new ServerAuthorization(config, () => policyAuthorizationOrigins(this.options.policy?.(), config.url), this.options.fetch);
        this.servers.set(key, created);
        return created;
    }

    /** For the transport of one connection: the provider (using what is stored, never starting a browser flow) and the guarded fetch. */
    connection(config: HttpServerConfig): { authProvider: McpOAuthClientProvider; fetch: FetchLike } {
        const server = this.authorization(config);
        return { authProvider: new McpOAuthClientProvider(server, this.store), fetch: server.fetch };
    }

    state(config: HttpServerConfig): McpServerAuth {
        const server = this.authorization(config);
        return {
            preregistered: config.oauth !== undefined,
            ...(server.signedIn || server.challenged ? { signedIn: server.signedIn === true } : {}),
            ...(server.authorizationServer ? { authorizationServer: server.authorizationServer.origin } : {}),
            ...(server.failure ? { failure: server.failure } : {})
        };
    }

    /**
     * Starts signing in to a server the hub runs (so the managed policy allowed it): discovery
     * (cached from the connection's 401), registration when no client is stored for this
     * callback, then the authorization URL the user's browser opens. `callbackUrl` is where the
     * browser reaches this backend (its origin and path prefix, then MCP_OAUTH_CALLBACK_PATH).
     */
    async signIn(config: HttpServerConfig, callbackUrl: string): Promise<McpSignInResult> {
        const refusal = callbackRefusal(callbackUrl);
        if (refusal) {
            return { status: 'failed', step: 'authorization', message: refusal };
        }
        const server = this.authorization(config);
        const state = randomBytes(32).toString('base64url');
        const provider = new McpOAuthClientProvider(server, this.store, { redirectUrl: callbackUrl, state });
        try {
            const result = await auth(provider, { serverUrl: server.url, resourceMetadataUrl: server.resourceMetadataUrl, fetchFn: server.fetch });
            if (result === 'AUTHORIZED' || !provider.authorizationUrl) {
                this.emit(config, 'signed-in');
                return { status: 'signed-in' };
            }
            const timer = setTimeout(() => this.pending.delete(state), this.options.signInTimeoutMs ?? 600_000);
            timer.unref?.();
            this.pending.set(state, { provider, timer });
            return { status: 'open', authorizationUrl: provider.authorizationUrl.href, authorizationServer: provider.authorizationUrl.origin };
        } catch (error) {
            return this.failed(server, provider, error);
        }
    }

    /** The browser came back to the callback route: a known `state` exchanges its code (once); anything else changes nothing. */
    async finish(query: Readonly<Record<string, unknown>>): Promise<McpCallbackResult> {
        const state = typeof query.state === 'string' ? query.state : '';
        const pending = this.pending.get(state);
        if (!pending) {
            return { status: 'failed', step: 'authorization', message: 'this sign-in is unknown or expired (its state does not match one started here); start it again from QodeAssist' };
        }
        this.pending.delete(state);
        clearTimeout(pending.timer);
        const { provider } = pending;
        const server = provider.server;
        if (typeof query.error === 'string' || typeof query.code !== 'string') {
            const reason = typeof query.error === 'string'
                ? `the authorization server answered ${printable(query.error)}${typeof query.error_description === 'string' ? ` (${printable(query.error_description)})` : ''}`
                : 'the authorization server sent no code';
            return { ...this.failed(server, provider, new McpSignInError('authorization', reason)), server: server.config.name };
        }
        provider.step = 'token exchange';
        try {
            await auth(provider, { serverUrl: server.url, resourceMetadataUrl: server.resourceMetadataUrl, authorizationCode: query.code, fetchFn: server.fetch });
            await this.store.remove(server.config.name, server.config.url, ['verifier']);
            this.emit(server.config, 'signed-in');
            return { status: 'signed-in', server: server.config.name };
        } catch (error) {
            await this.store.remove(server.config.name, server.config.url, ['verifier']);
            return { ...this.failed(server, provider, error), server: server.config.name };
        }
    }

    /** Removes the server's tokens and registered client; its connection then needs a new sign-in. */
    async signOut(config: HttpServerConfig): Promise<void> {
        await this.store.remove(config.name, config.url);
        const server = this.authorization(config);
        server.signedIn = false;
        server.failure = undefined;
        this.emit(config, 'signed-out');
    }

    /** `signed-in` / `signed-out`: the hubs reconnect that server; `changed`: views refresh. */
    onDidChange(listener: (event: { server: string; url: string; kind: 'changed' | 'signed-in' | 'signed-out' }) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    dispose(): void {
        for (const pending of this.pending.values()) {
            clearTimeout(pending.timer);
        }
        this.pending.clear();
        this.listeners.clear();
    }

    private failed(server: ServerAuthorization, provider: McpOAuthClientProvider, error: unknown): { status: 'failed'; step: McpSignInStep; message: string } {
        const step = error instanceof McpSignInError ? error.step : provider.step;
        const reason = error instanceof McpSignInError || error instanceof McpOAuthRefusedRequest ? error.message.replace(/^Sign-in failed at [a-z ]+: /, '')
            : error instanceof McpSignInNeededError ? 'the server still asks for a sign-in'
                : error instanceof Error ? error.message : String(error);
        server.failure = { step, message: reason };
        this.emit(server.config, 'changed');
        return { status: 'failed', step, message: reason };
    }

    private emit(config: HttpServerConfig, kind: 'changed' | 'signed-in' | 'signed-out'): void {
        for (const listener of [...this.listeners]) {
            listener({ server: config.name, url: config.url, kind });
        }
    }
}

/** Why a callback URL is refused: it must be http(s) and end with the callback route, with no query, fragment or credentials. */
export function callbackRefusal(callbackUrl: string): string | undefined {
    let url: URL;
    try {
        url = new URL(callbackUrl);
    } catch {
        return `the callback URL "${callbackUrl}" is not a URL`;
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.pathname.endsWith(MCP_OAUTH_CALLBACK_PATH) || url.search || url.hash || url.username || url.password) {
        return `the callback URL must be http(s)://<the IDE's address>${MCP_OAUTH_CALLBACK_PATH}, not ${callbackUrl}`;
    }
    return undefined;
}

/** Text an authorization server put in the redirect, safe to show: printable, bounded. */
function printable(text: string): string {
    return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}
