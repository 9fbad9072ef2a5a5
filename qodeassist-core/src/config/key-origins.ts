import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './durable-file';
import { ConfigFile, loadJsonFile } from './config-file';
import { ConfigIssue, findKeyLine } from './config-issue';
import { environmentVariableFor } from './secrets-store';

/**
 * Key refs that name QodeAssist's own secrets (the MCP server token): never an API key a
 * provider may ask for, in any layer.
 */
export const RESERVED_KEY_PREFIX = 'qodeassist-';

export function isReservedKeyRef(ref: string): boolean {
    return ref.toLowerCase().startsWith(RESERVED_KEY_PREFIX);
}

/** `https://host:port` of a URL, or undefined for something that is not one. */
export function originOf(url: string): string | undefined {
    try {
        const origin = new URL(url).origin;
        return origin === 'null' ? undefined : origin;
    } catch {
        return undefined;
    }
}

/** The user layer's file of origins a key may go to, beside its agents and providers. */
export const KEY_ORIGINS_FILE = 'key_origins.json';

/** `~/.qodeassist/key_origins.json`: `{ "<api_key_ref>": ["https://origin", …] }`, origins the user lets that key go to. */
export const KeyOriginsSchema = z.record(z.string(), z.array(z.string()));

/**
 * Where each key may be sent. A key goes only to the origins of the providers that the
 * bundled or the user's layer define for it, and to those the user listed in their
 * key_origins.json: a repository's provider file cannot redirect a key the user already has.
 */
export class KeyOriginPolicy {
    private readonly allowed = new Map<string, Set<string>>();

    /** A trusted layer (bundled, user) defines a provider with this key at this URL. */
    allow(ref: string, url: string): void {
        const origin = originOf(url);
        if (origin) {
            let origins = this.allowed.get(ref);
            if (!origins) {
                origins = new Set();
                this.allowed.set(ref, origins);
            }
            origins.add(origin);
        }
    }

    allows(ref: string, url: string): boolean {
        const origin = originOf(url);
        return origin !== undefined && (this.allowed.get(ref)?.has(origin) ?? false);
    }

    /** Reads the user's key_origins.json into the policy; a broken file is an issue and allows nothing. */
    readUserFile(file: ConfigFile): ConfigIssue[] {
        const parsed = loadJsonFile(file, KeyOriginsSchema, () => []);
        if (!parsed.value) {
            return parsed.issues;
        }
        const issues: ConfigIssue[] = [];
        for (const [ref, origins] of Object.entries(parsed.value)) {
            for (const origin of origins) {
                if (originOf(origin) === undefined) {
                    issues.push({
                        severity: 'error', file: file.label, line: findKeyLine(file.text, [ref]), field: ref,
                        message: `"${origin}" is not a URL origin`, fix: 'write origins as scheme://host[:port], e.g. "http://localhost:4000"'
                    });
                    continue;
                }
                this.allow(ref, origin);
            }
        }
        return issues;
    }
}

/** The Config issue for a project provider that would send a key somewhere the user never said it may go. */
export function keyOriginIssue(file: ConfigFile, provider: string, ref: string, url: string, keyOriginsFile: string | undefined): ConfigIssue {
    const origin = originOf(url) ?? url;
    const where = keyOriginsFile ?? `~/.qodeassist/${KEY_ORIGINS_FILE}`;
    return {
        severity: 'error', file: file.label, line: findKeyLine(file.text, ['url']) ?? findKeyLine(file.text, ['api_key_ref']), field: 'url',
        message: `project provider ${provider} would send the key ${environmentVariableFor(ref)} to ${origin}, which no provider of yours or of QodeAssist uses for it; the provider is not loaded`,
        fix: `allow it in your user settings: add {"${ref}": ["${origin}"]} to ${where}, or define the provider in your own ~/.qodeassist/providers`
    };
}

/** The Config issue for a provider that names one of QodeAssist's own secrets as its key. */
export function reservedKeyIssue(file: ConfigFile, provider: string, ref: string): ConfigIssue {
    return {
        severity: 'error', file: file.label, line: findKeyLine(file.text, ['api_key_ref']), field: 'api_key_ref',
        message: `provider ${provider} names "${ref}", a secret QodeAssist keeps for itself (refs starting with "${RESERVED_KEY_PREFIX}"); the provider is not loaded`,
        fix: 'name the provider\'s own key, e.g. api_key_ref = "my-proxy" (read from MY_PROXY_API_KEY)'
    };
}

/**
 * Lets the key `ref` go to the origin of `url`, in the user's key_origins.json (the one click
 * that restores a project provider; also what adding a provider from the configuration view
 * records, since the user typed that URL). A broken file is not overwritten.
 */
export async function allowKeyOrigin(userFolder: string, ref: string, url: string): Promise<void> {
    const origin = originOf(url);
    if (!origin) {
        throw new Error(`"${url}" is not a URL`);
    }
    const file = join(userFolder, KEY_ORIGINS_FILE);
    const current = existsSync(file) ? KeyOriginsSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : {};
    const origins = new Set(current[ref] ?? []);
    if (origins.has(origin)) {
        return;
    }
    await writeFileAtomic(file, `${JSON.stringify({ ...current, [ref]: [...origins, origin] }, undefined, 2)}\n`, 0o644);
}
