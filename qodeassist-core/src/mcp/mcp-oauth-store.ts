import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { WritableSecretsStore } from '../config/secrets-store';
import { KnownSecrets, PROCESS_SECRETS } from '../wire/redaction';

/** Tokens as kept: what the authorization server sent, stamped with when the access token expires. */
export interface StoredTokens extends OAuthTokens {
    /** Milliseconds since the epoch; absent when the server named no lifetime. */
    expires_at?: number;
}

/** A dynamically registered client, with the redirect URI it was registered for (another browser origin registers again). */
export interface StoredClient {
    information: OAuthClientInformationMixed;
    redirectUri: string;
}

type Part = 'client' | 'tokens' | 'verifier';

/**
 * An MCP server's OAuth secrets in the key store (keyring, or the owner-only file), never in a
 * workspace file or a log: the registered client, the tokens and the PKCE verifier, each under
 * `mcp-oauth:<server name>:<URL origin>:<part>`, so a server moved to another origin never gets
 * the old one's tokens. Every value read or written joins the known secrets (redacted by value).
 */
export class McpOAuthStore {
    constructor(private readonly secrets: WritableSecretsStore, private readonly known: KnownSecrets = PROCESS_SECRETS) { }

    static ref(server: string, url: string, part: Part): string {
        return `mcp-oauth:${server}:${new URL(url).origin}:${part}`;
    }

    async client(server: string, url: string): Promise<StoredClient | undefined> {
        const value = await this.read<StoredClient>(server, url, 'client');
        this.known.add(value?.information.client_secret);
        return value?.information && typeof value.redirectUri === 'string' ? value : undefined;
    }

    async saveClient(server: string, url: string, client: StoredClient): Promise<void> {
        this.known.add(client.information.client_secret);
        await this.write(server, url, 'client', client);
    }

    async tokens(server: string, url: string): Promise<StoredTokens | undefined> {
        const value = await this.read<StoredTokens>(server, url, 'tokens');
        this.remember(value);
        return typeof value?.access_token === 'string' ? value : undefined;
    }

    async saveTokens(server: string, url: string, tokens: StoredTokens): Promise<void> {
        this.remember(tokens);
        await this.write(server, url, 'tokens', tokens);
    }

    async verifier(server: string, url: string): Promise<string | undefined> {
        return this.secrets.get(McpOAuthStore.ref(server, url, 'verifier'));
    }

    async saveVerifier(server: string, url: string, verifier: string): Promise<void> {
        await this.secrets.set(McpOAuthStore.ref(server, url, 'verifier'), verifier);
    }

    async remove(server: string, url: string, parts: readonly Part[] = ['client', 'tokens', 'verifier']): Promise<void> {
        for (const part of parts) {
            await this.secrets.delete(McpOAuthStore.ref(server, url, part));
        }
    }

    private remember(tokens: OAuthTokens | undefined): void {
        this.known.add(tokens?.access_token);
        this.known.add(tokens?.refresh_token);
        this.known.add(tokens?.id_token);
    }

    private async read<T>(server: string, url: string, part: Part): Promise<T | undefined> {
        const text = await this.secrets.get(McpOAuthStore.ref(server, url, part));
        if (!text) {
            return undefined;
        }
        try {
            return JSON.parse(text) as T;
        } catch {
            return undefined; // Not ours (written by hand?): as if nothing were stored; signing in writes it anew.
        }
    }

    private async write(server: string, url: string, part: Part, value: unknown): Promise<void> {
        await this.secrets.set(McpOAuthStore.ref(server, url, part), JSON.stringify(value));
    }
}
