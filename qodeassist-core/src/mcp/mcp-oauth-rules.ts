import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ManagedPolicy } from '../config/managed-policy';
import { readBoundedBody } from '../wire/bounded-body';

/** Most bytes of one OAuth answer (metadata, registration, tokens): real ones are a few kilobytes. */
export const MAX_OAUTH_RESPONSE_BYTES = 64 * 1024;

/** The steps of a sign-in, as the user is told which one failed. */
export type McpSignInStep = 'discovery' | 'registration' | 'authorization' | 'token exchange' | 'token refresh';

/** A sign-in that failed or was refused, with the step it failed at. */
export class McpSignInError extends Error {
    constructor(readonly step: McpSignInStep, reason: string) {
        super(`Sign-in failed at ${step}: ${reason}`);
        this.name = 'McpSignInError';
    }
}

/** The server answered 401 and nobody is signing in now: the user is asked (the hub shows `needs-sign-in`). */
export class McpSignInNeededError extends Error {
    constructor(readonly server: string) {
        super(`The MCP server "${server}" needs you to sign in: use Sign in in the QodeAssist configuration view.`);
        this.name = 'McpSignInNeededError';
    }
}

/** A request the allowlist refused: it was not sent. */
export class McpOAuthRefusedRequest extends Error {
    constructor(reason: string) {
        super(reason);
        this.name = 'McpOAuthRefusedRequest';
    }
}

function isLoopback(url: URL): boolean {
    return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

/** https, or http to this machine only when the MCP server itself is on it (a local test or development server). */
function secureEnough(url: URL, server: URL): boolean {
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url) && isLoopback(server));
}

/**
 * The authorization-server origins the managed policy allows for this server besides its own:
 * undefined when no policy limits MCP servers (then the user decides, shown the origin when
 * asked); else the `authorization_servers` of the first `{ url, … }` entry matching the URL
 * (a plain URL entry allows the server's own origin only).
 */
export function policyAuthorizationOrigins(policy: ManagedPolicy | undefined, serverUrl: string): string[] | undefined {
    if (!policy?.allowedMcpServers) {
        return undefined;
    }
    for (const entry of policy.allowedMcpServers) {
        const pattern = typeof entry === 'string' ? entry : 'url' in entry ? entry.url : undefined;
        if (pattern !== undefined && (pattern.endsWith('*') ? serverUrl.startsWith(pattern.slice(0, -1)) : serverUrl === pattern)) {
            return typeof entry === 'string' || !('authorization_servers' in entry) ? [] : (entry.authorization_servers ?? []).map(origin => new URL(origin).origin);
        }
    }
    return [];
}

export interface AuthorizationServerRule {
    server: URL;
    /** From policyAuthorizationOrigins. */
    policyOrigins: readonly string[] | undefined;
    /** A pre-registered client's `authorization_server`; a pre-registered client without one may use the server's own origin only. */
    preregistered?: { authorizationServer?: string };
}

/**
 * The rule for the authorization server a resource's metadata names (MCP authorization, RFC 9728):
 * it may be on another origin than the MCP server (GitHub's is), since the user is shown its origin
 * before the sign-in page opens; but it must be https (http only between loopback addresses), the
 * managed policy's list must include it when the policy limits MCP servers, and a pre-registered
 * client's secret goes only to the issuer it was registered with. Undefined when allowed.
 */
export function authorizationServerRefusal(authorizationServer: URL, rule: AuthorizationServerRule): string | undefined {
    const { server } = rule;
    if (!secureEnough(authorizationServer, server)) {
        return `the authorization server ${authorizationServer.origin} is not https`;
    }
    if (rule.policyOrigins && authorizationServer.origin !== server.origin && !rule.policyOrigins.includes(authorizationServer.origin)) {
        return `the administrator's allowed_mcp_servers entry for ${server.href} does not list ${authorizationServer.origin} in authorization_servers`;
    }
    if (rule.preregistered) {
        const expected = rule.preregistered.authorizationServer;
        if (expected ? sameIssuer(expected, authorizationServer.href) === false : authorizationServer.origin !== server.origin) {
            return `the client in mcp.json was registered with ${expected ?? server.origin}, not ${authorizationServer.href}; set oauth.authorization_server if the server moved`;
        }
    }
    return undefined;
}

function sameIssuer(a: string, b: string): boolean {
    return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** The endpoints the client sends to (or sends the browser to) are on the authorization server's own origin. */
export function metadataRefusal(metadata: AuthorizationServerMetadata | undefined, authorizationServer: URL): string | undefined {
    if (!metadata) {
        return undefined; // The SDK falls back to /authorize, /token and /register on the server's origin.
    }
    for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) {
        const value = metadata[field];
        if (value === undefined) {
            continue;
        }
        let url: URL;
        try {
            url = new URL(value);
        } catch {
            return `its metadata's ${field} is not a URL`;
        }
        if (url.origin !== authorizationServer.origin) {
            return `its metadata's ${field} is on ${url.origin}, not on the authorization server's origin ${authorizationServer.origin}`;
        }
    }
    return undefined;
}

export interface GuardedFetchOptions {
    /** The MCP endpoint: its traffic passes as it is. */
    server: URL;
    /** Origins an OAuth request may go to now (the server's, and the authorization server once its rule passed). */
    allowedOrigins(): ReadonlySet<string>;
    /** Header names of the entry's own `headers`: they never leave for another origin. */
    configHeaders: readonly string[];
    /** A 401 of the MCP endpoint: its WWW-Authenticate may name the resource metadata. */
    onUnauthorized?(response: Response): void;
    maxBytes?: number;
    fetch?: FetchLike;
}

/**
 * The fetch the MCP transport and the SDK's auth() use for one server: MCP traffic to the
 * endpoint passes; every OAuth request must go to an allowed origin (else it is not sent), is
 * not redirected, loses the entry's own headers off the server's origin, and its answer is
 * read up to a cap (an oversized answer is an error, never parsed).
 */
export function guardedFetch(options: GuardedFetchOptions): FetchLike {
    const inner = options.fetch ?? fetch;
    const cap = options.maxBytes ?? MAX_OAUTH_RESPONSE_BYTES;
    return async (input, init) => {
        const url = new URL(typeof input === 'string' ? input : input.href);
        if (url.origin === options.server.origin && url.pathname === options.server.pathname && url.search === options.server.search) {
            const response = await inner(input, init);
            if (response.status === 401) {
                options.onUnauthorized?.(response);
            }
            return response;
        }
        if (!options.allowedOrigins().has(url.origin)) {
            throw new McpOAuthRefusedRequest(`a request to ${url.origin} was not sent: only ${[...options.allowedOrigins()].join(', ')} may be asked for this server's sign-in`);
        }
        const headers = new Headers(init?.headers);
        if (url.origin !== options.server.origin) {
            for (const name of options.configHeaders) {
                headers.delete(name);
            }
        }
        const response = await inner(url, { ...init, headers, redirect: 'manual' });
        const body = await readCapped(response, cap, url);
        return new Response(NULL_BODY_STATUSES.includes(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
}

const NULL_BODY_STATUSES = [101, 204, 205, 304];

function readCapped(response: Response, cap: number, url: URL): Promise<Uint8Array> {
    return readBoundedBody(response, cap, declared => new McpOAuthRefusedRequest(declared === undefined
        ? `the answer of ${url.origin}${url.pathname} is over the ${cap} bytes an OAuth answer may have; it was not read`
        : `the answer of ${url.origin}${url.pathname} is ${declared} bytes, over the ${cap} an OAuth answer may have; it was not read`));
}
