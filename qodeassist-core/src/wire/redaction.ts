/** What a removed secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Shorter values are placeholder keys of local servers ("ollama", "none"): scrubbing them everywhere would mangle ordinary text. */
const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * The secret values a process has resolved (from the environment, the keyring, the secrets
 * file, a `.env`), kept so they can be removed by value wherever they turn up — also when
 * they have no key-like shape.
 */
export class KnownSecrets {
    private readonly values = new Set<string>();

    /** Remembers a resolved value; blank and short ones are ignored. */
    add(value: string | undefined): void {
        const trimmed = value?.trim();
        if (trimmed && trimmed.length >= MIN_KNOWN_SECRET_LENGTH) {
            this.values.add(trimmed);
        }
    }

    has(value: string): boolean {
        return this.values.has(value.trim());
    }

    list(): string[] {
        return [...this.values];
    }

    /** The text with these values (and every process-wide one) and all key shapes removed. */
    redact(text: string): string {
        return redactSecrets(text, this.values);
    }
}

/**
 * Every key this process resolved through a recording SecretsStore. `redactSecrets` always
 * consults it, so an error built anywhere (wire, tools, MCP) loses a resolved key even when
 * its caller passed no list.
 */
export const PROCESS_SECRETS = new KnownSecrets();

/** Key shapes masked even when the value is not known; each keeps its label or vendor prefix and drops the secret part. */
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
    // Authorization headers, plain or as JSON: `Authorization: Bearer x`, `"authorization":"Basic x"`.
    [/(authorization"?\s*[:=]\s*"?\s*(?:bearer|basic|token)\s+)[^\s"',}]+/gi, `$1${REDACTED}`],
    // A bearer token on its own ("sent Bearer abc123…"): needs a digit and some length, so prose is left alone.
    [/\b(bearer\s+)(?=[^\s"',}]*\d)[A-Za-z0-9._~+/-]{16,}=*/gi, `$1${REDACTED}`],
    // Keys in URL query strings: `?key=`, `&api_key=`, `&access_token=`, `?token=`.
    [/([?&](?:key|api[_-]?key|apikey|access_token|refresh_token|token|auth|client_secret|password|secret)=)[^&\s"'#<>]+/gi, `$1${REDACTED}`],
    // Key headers and fields: `x-api-key: x`, `"x-goog-api-key": "x"`, `api_key=x`.
    [/((?:x-api-key|x-goog-api-key|api[_-]?key)"?\s*[:=]\s*"?)(?!\[REDACTED\])[^\s"',}&]+/gi, `$1${REDACTED}`],
    // JSON credential fields. A bare "token" is left out: logprobs use it for ordinary text.
    [/("(?:access_token|refresh_token|id_token|auth_token|api_token|client_secret|password)"\s*:\s*")[^"]+/gi, `$1${REDACTED}`],
    // OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`), Anthropic (`sk-ant-api03-`), OpenRouter (`sk-or-v1-`).
    [/\b(sk-(?:proj-|svcacct-|admin-|or-v1-|ant-(?:api\d+-|admin\d+-)?)?)[A-Za-z0-9_-]{12,}/g, `$1${REDACTED}`],
    // Google API keys.
    [/\b(AIza)[0-9A-Za-z_-]{30,}/g, `$1${REDACTED}`],
    // GitHub tokens: personal, OAuth, user-to-server, server-to-server, refresh, fine-grained.
    [/\b((?:ghp|gho|ghu|ghs|ghr)_)[A-Za-z0-9]{20,}/g, `$1${REDACTED}`],
    [/\b(github_pat_)[A-Za-z0-9_]{20,}/g, `$1${REDACTED}`]
];

/** A value as it may appear in a log or error: raw, inside a JSON string, or in a URL. */
function spellingsOf(secret: string): string[] {
    return [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
}

/**
 * Removes secrets from text before it reaches a log, an error message, a saved chat or the UI.
 * Known secret values (the given ones and every one the process resolved) are replaced wherever
 * they appear; bearer tokens and common key shapes are masked even when the value is not known.
 */
export function redactSecrets(text: string, knownSecrets: Iterable<string> = []): string {
    let result = redactKnownValues(text, knownSecrets);
    for (const [pattern, replacement] of SHAPES) {
        result = result.replace(pattern, replacement);
    }
    return result;
}

/** Only the known values (these and every process-wide one), no shapes: for text whose key-like lines are ordinary code. */
export function redactKnownValues(text: string, knownSecrets: Iterable<string> = []): string {
    const values = new Set<string>();
    for (const secret of [...knownSecrets, ...PROCESS_SECRETS.list()]) {
        if (secret.length >= 4) {
            spellingsOf(secret).forEach(spelling => values.add(spelling));
        }
    }
    // Longest first, so a secret that contains another is removed whole.
    let result = text;
    for (const value of [...values].sort((a, b) => b.length - a.length)) {
        result = result.split(value).join(REDACTED);
    }
    return result;
}
