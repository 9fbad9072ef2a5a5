import { parse as parseDotEnv } from 'dotenv';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { bothKeyWaysError, KEY_FILE_SUFFIX, readKeyFile, sharedFolderProblem, watchKeyFiles } from './key-files';
import { QodeAssistError } from '../wire/error-info';
import { KnownSecrets, PROCESS_SECRETS } from '../wire/redaction';

/**
 * Where API keys live. Agents and provider instances name a key (`api_key_ref`);
 * only a SecretsStore turns that name into the value, and only in the backend.
 */
export interface SecretsStore {
    get(ref: string): Promise<string | undefined>;
}

/** A store the user can write to from the configuration UI. */
export interface WritableSecretsStore extends SecretsStore {
    set(ref: string, value: string): Promise<void>;
    delete(ref: string): Promise<void>;
    /** Fires after a key was stored or removed, when the store can tell. */
    onDidChange?(listener: (ref: string) => void): () => void;
}

/** The environment variable that holds a key ref: `openai` → `OPENAI_API_KEY`, `my-proxy` → `MY_PROXY_API_KEY`. */
export function environmentVariableFor(ref: string): string {
    return `${ref.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_API_KEY`;
}

function nonBlank(value: string | undefined): string | undefined {
    return value && value.trim() ? value.trim() : undefined;
}

/** Variable names that hold a key: the stores' own `<REF>_API_KEY`, and the usual token and secret names. */
const KEY_VARIABLE = /(?:_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD)$/i;

/**
 * Every key a store holds is remembered for redaction as soon as the store is read — not only the
 * ones a request used — so a key that turns up in a file a tool reads, or in a command's output, is
 * removed before it reaches a model, a client, a log or a saved chat.
 */
function rememberHeldKeys(entries: Iterable<[string, string | undefined]>, known: KnownSecrets = PROCESS_SECRETS): void {
    for (const [name, value] of entries) {
        if (KEY_VARIABLE.test(name) || name === '') {
            known.add(value);
        }
    }
}

/** Reads keys from environment variables (`<REF>_API_KEY`). */
export class EnvironmentSecretsStore implements SecretsStore {
    constructor(private readonly env: Readonly<Record<string, string | undefined>> = process.env) {
        rememberHeldKeys(Object.entries(env));
        // The keys of mounted key files too (read again at every use, so a rotated one is remembered then).
        for (const [name, path] of Object.entries(env)) {
            if (name.endsWith(`_API_KEY${KEY_FILE_SUFFIX}`) && nonBlank(path)) {
                try {
                    PROCESS_SECRETS.add(readKeyFile(name, path!.trim()));
                } catch {
                    // A missing or unreadable key file is reported when the key is asked for.
                }
            }
        }
    }

    /** `<REF>_API_KEY`, or the key in the file `<REF>_API_KEY_FILE` names (read again each time); both set is an error. */
    async get(ref: string): Promise<string | undefined> {
        const variable = environmentVariableFor(ref);
        const direct = nonBlank(this.env[variable]);
        const file = nonBlank(this.env[`${variable}${KEY_FILE_SUFFIX}`]);
        if (direct && file) {
            throw bothKeyWaysError(variable);
        }
        return file ? readKeyFile(`${variable}${KEY_FILE_SUFFIX}`, file) : direct;
    }

    /** Tells `listener` when a key file this environment names changes (a rotated Secret). */
    onDidChange(listener: () => void): () => void {
        return watchKeyFiles(this.env, listener);
    }
}

/** Reads keys from a `.env` file (the bench CLI's store), with the same `<REF>_API_KEY` names; parsed by dotenv. */
export class DotEnvSecretsStore implements SecretsStore {
    private readonly values: Record<string, string>;

    constructor(readonly path: string) {
        this.values = existsSync(path) ? parseDotEnv(readFileSync(path)) : {};
        rememberHeldKeys(Object.entries(this.values));
    }

    async get(ref: string): Promise<string | undefined> {
        return nonBlank(this.values[environmentVariableFor(ref)]);
    }
}

/**
 * Keys in a JSON file readable only by its owner (mode 0600), for machines without a
 * keyring (containers, CI). A file others can read is refused rather than used.
 */
export class FileSecretsStore implements WritableSecretsStore {
    constructor(readonly path: string) {
        try {
            // Read once now so every key it holds is redacted before any tool runs, not only after a request used one.
            this.read();
        } catch {
            // A file others can read, or one that is not JSON, is reported when a key is asked for.
        }
    }

    async get(ref: string): Promise<string | undefined> {
        return nonBlank(this.read()[ref]);
    }

    /**
     * Stores a key — unless the folders it would be kept in are shared with others (a volume of
     * many users, a world-readable home): then it is refused with how to provide the key instead.
     */
    async set(ref: string, value: string): Promise<void> {
        const folder = dirname(this.path);
        // `~/.qodeassist/secrets.json`: the home around it counts too (a shared volume mounted as the home).
        const problem = sharedFolderProblem(folder) ?? (basename(folder) === '.qodeassist' ? sharedFolderProblem(dirname(folder), { readable: true }) : undefined);
        if (problem) {
            const variable = environmentVariableFor(ref);
            throw new QodeAssistError({
                category: 'Config',
                message: `The key was not stored: no keyring answers here and ${problem}, so a key file there could be read by others. `
                    + `Provide it instead as a file named by ${variable}${KEY_FILE_SUFFIX} (e.g. a mounted Kubernetes Secret), or as ${variable} in the environment of the IDE backend.`
            });
        }
        this.write({ ...this.read(), [ref]: value });
    }

    async delete(ref: string): Promise<void> {
        const values = this.read();
        delete values[ref];
        this.write(values);
    }

    private read(): Record<string, string> {
        if (!existsSync(this.path)) {
            return {};
        }
        const mode = statSync(this.path).mode & 0o777;
        if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
            throw new QodeAssistError({
                category: 'Config',
                message: `The secrets file ${this.path} can be read by other users (mode ${mode.toString(8)}), so it is not used. Run: chmod 600 "${this.path}"`
            });
        }
        try {
            const value: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
            if (!value || typeof value !== 'object' || Array.isArray(value)) {
                throw new Error('not an object');
            }
            const keys = Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
            // Every entry of this file is a key, whatever its name.
            rememberHeldKeys(Object.values(keys).map(key => ['', key]));
            return keys;
        } catch (error) {
            throw new QodeAssistError({
                category: 'Config',
                message: `The secrets file ${this.path} is not a JSON object of key names to keys (${error instanceof Error ? error.message : String(error)}). Fix or delete it; nothing was changed.`
            });
        }
    }

    /** Temp file with 0600 from the start, then rename: never a moment where the keys are readable or half written. */
    private write(values: Record<string, string>): void {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        const temp = `${this.path}.${process.pid}.tmp`;
        writeFileSync(temp, `${JSON.stringify(values, undefined, 2)}\n`, { mode: 0o600 });
        chmodSync(temp, 0o600);
        renameSync(temp, this.path);
    }
}

/** Asks each store in order; the first that knows the key answers. */
export class ChainedSecretsStore implements SecretsStore {
    constructor(private readonly stores: readonly SecretsStore[]) { }

    async get(ref: string): Promise<string | undefined> {
        for (const store of this.stores) {
            const value = await store.get(ref);
            if (value !== undefined) {
                return value;
            }
        }
        return undefined;
    }
}

/**
 * Wraps any store so that every key it hands out is remembered in `known` (by default the
 * process-wide set every redaction consults): logs, errors and saved chats lose that value
 * from then on, whatever its shape. Compose it outermost, where the stores are put together.
 */
export class RecordingSecretsStore implements SecretsStore {
    constructor(private readonly inner: SecretsStore, readonly known: KnownSecrets = PROCESS_SECRETS) { }

    async get(ref: string): Promise<string | undefined> {
        const value = await this.inner.get(ref);
        this.known.add(value);
        return value;
    }
}

/** The writable variant: a key the user (or the MCP server) stores is remembered as soon as it is set. */
export class RecordingWritableSecretsStore extends RecordingSecretsStore implements WritableSecretsStore {
    constructor(private readonly writable: WritableSecretsStore, known: KnownSecrets = PROCESS_SECRETS) {
        super(writable, known);
    }

    private readonly listeners = new Set<(ref: string) => void>();

    async set(ref: string, value: string): Promise<void> {
        this.known.add(value);
        await this.writable.set(ref, value);
        this.changed(ref);
    }

    /** A deleted key stays known: it may still sit in an earlier log line or error. */
    async delete(ref: string): Promise<void> {
        await this.writable.delete(ref);
        this.changed(ref);
    }

    /** Fires after a key was stored or removed here: whoever resolved agents with the old key resolves them again. */
    onDidChange(listener: (ref: string) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    private changed(ref: string): void {
        for (const listener of this.listeners) {
            listener(ref);
        }
    }
}
