import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './durable-file';

/** What a project file asks to start: an MCP server (`.qodeassist/mcp.json`) or an external agent (`.qodeassist/acp/*.toml`). */
export type ConsentKind = 'mcp' | 'acp';

/**
 * What the user is shown before a project entry may start, as plain text: what runs, where, and
 * the NAMES of the variables (and headers) it gets — their values may be secrets and are never shown.
 */
export interface ConsentDetails {
    kind: ConsentKind;
    /** The name the entry is listed and picked by (an external agent's own id, e.g. `claude-code@project`). */
    name: string;
    /** The project file the entry comes from. */
    source: string;
    command?: string;
    args?: string[];
    /** Where it runs. */
    cwd?: string;
    envNames?: string[];
    url?: string;
    headerNames?: string[];
    /** A hash of everything shown (and of what runs but is not shown): an edited entry asks again. */
    fingerprint: string;
}

/** Whether the user agreed to start one kind of project entry in one workspace, by the fingerprint of what they were shown. */
export interface ConsentPolicy {
    isGranted(fingerprint: string): boolean;
    grant(fingerprint: string, name: string): Promise<void>;
}

/** The user's consents, beside their configuration: `~/.qodeassist/consents.json`. */
export const CONSENTS_FILE = 'consents.json';
/** Where consents to MCP servers were kept before there was one registry; read (and carried over) while consents.json does not exist. */
export const LEGACY_MCP_CONSENTS_FILE = 'mcp-consent.json';

/** The hash a consent is kept under: the kind, what is shown, and what runs but is hidden (env values a project file sets). */
export function consentFingerprint(kind: ConsentKind, shown: object, hidden: unknown = undefined): string {
    return createHash('sha256').update(JSON.stringify(kind === 'mcp' ? { shown, hidden } : { kind, shown, hidden })).digest('hex');
}

const record = z.object({ workspace: z.string(), kind: z.enum(['mcp', 'acp']), name: z.string(), fingerprint: z.string(), grantedAt: z.string() });
const currentFile = z.object({ version: z.literal(2), granted: z.array(record) });
/** The MCP-only format of version 1: every record a project MCP server's. */
const versionOneFile = z.object({
    version: z.literal(1),
    granted: z.array(z.object({ workspace: z.string(), fingerprint: z.string(), server: z.string(), grantedAt: z.string() }))
});

export type ConsentRecord = z.infer<typeof record>;

/** A file's records in either format; a missing, broken or unknown file is no consent at all. */
function readRecords(file: string): ConsentRecord[] {
    let value: unknown;
    try {
        value = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
        return [];
    }
    const current = currentFile.safeParse(value);
    if (current.success) {
        return current.data.granted;
    }
    const older = versionOneFile.safeParse(value);
    return older.success
        ? older.data.granted.map(({ workspace, fingerprint, server, grantedAt }) => ({ workspace, kind: 'mcp' as const, name: server, fingerprint, grantedAt }))
        : [];
}

function stampOf(file: string): string {
    try {
        const stats = statSync(file);
        return `${stats.mtimeMs}:${stats.size}`;
    } catch {
        return 'missing';
    }
}

const registries = new Map<string, ConsentRegistry>();

/**
 * The one registry of the user's consents to what a project asks to run (MCP servers, external
 * agents, …), kept in their home, never in the workspace where the repository could write its
 * own. A consent holds for one workspace folder, one kind and one fingerprint; consenting to an
 * edited entry replaces the consent to its earlier form.
 */
export class ConsentRegistry {
    private records: ConsentRecord[] = [];
    private stamp: string | undefined;
    private writing: Promise<void> = Promise.resolve();

    /** Every user of one file shares one registry, so that two grants never overwrite each other. */
    static at(file: string): ConsentRegistry {
        let registry = registries.get(file);
        if (!registry) {
            registry = new ConsentRegistry(file);
            registries.set(file, registry);
        }
        return registry;
    }

    /** The registry of a user folder (`~/.qodeassist`). */
    static forUserFolder(userFolder: string): ConsentRegistry {
        return ConsentRegistry.at(join(userFolder, CONSENTS_FILE));
    }

    private constructor(readonly file: string) { }

    forWorkspace(workspace: string, kind: ConsentKind): ConsentPolicy {
        return {
            isGranted: fingerprint => this.isGranted(workspace, kind, fingerprint),
            grant: (fingerprint, name) => this.grant(workspace, kind, name, fingerprint)
        };
    }

    isGranted(workspace: string, kind: ConsentKind, fingerprint: string): boolean {
        return this.load().some(entry => entry.workspace === workspace && entry.kind === kind && entry.fingerprint === fingerprint);
    }

    async grant(workspace: string, kind: ConsentKind, name: string, fingerprint: string): Promise<void> {
        const write = async () => {
            // Read again: the file may have changed since it was cached (another window's backend).
            const current = this.readFresh();
            if (current.some(entry => entry.workspace === workspace && entry.kind === kind && entry.fingerprint === fingerprint && entry.name === name)) {
                return;
            }
            // Only what the user saw last stays allowed for this entry.
            const next = [...current.filter(entry => !(entry.workspace === workspace && entry.kind === kind && entry.name === name)),
                { workspace, kind, name, fingerprint, grantedAt: new Date().toISOString() }];
            await writeFileAtomic(this.file, `${JSON.stringify({ version: 2, granted: next }, undefined, 2)}\n`);
            this.records = next;
            this.stamp = `${this.file}:${stampOf(this.file)}`;
        };
        this.writing = this.writing.then(write, write);
        await this.writing;
    }

    /** The records, read again only when the file changed; while it does not exist, those of the MCP-only file it replaces. */
    private load(): ConsentRecord[] {
        const source = this.source();
        const stamp = `${source}:${stampOf(source)}`;
        if (stamp !== this.stamp) {
            this.records = readRecords(source);
            this.stamp = stamp;
        }
        return this.records;
    }

    private readFresh(): ConsentRecord[] {
        this.stamp = undefined;
        return this.load();
    }

    private source(): string {
        const legacy = join(dirname(this.file), LEGACY_MCP_CONSENTS_FILE);
        return !existsSync(this.file) && legacy !== this.file && existsSync(legacy) ? legacy : this.file;
    }
}
