/**
 * Where API keys live. Agents and provider instances name a key (`api_key_ref`);
 * only a SecretsStore turns that name into the value, and only in the backend.
 */
export interface SecretsStore {
    get(ref: string): Promise<string | undefined>;
}

/** The environment variable that holds a key ref: `openai` → `OPENAI_API_KEY`, `my-proxy` → `MY_PROXY_API_KEY`. */
export function environmentVariableFor(ref: string): string {
    return `${ref.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_API_KEY`;
}

/** Reads keys from environment variables (`<REF>_API_KEY`). */
export class EnvironmentSecretsStore implements SecretsStore {
    constructor(private readonly env: Readonly<Record<string, string | undefined>> = process.env) { }

    async get(ref: string): Promise<string | undefined> {
        const value = this.env[environmentVariableFor(ref)];
        return value && value.trim() ? value.trim() : undefined;
    }
}
