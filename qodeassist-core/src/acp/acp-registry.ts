import { stringify } from 'smol-toml';
import { z } from 'zod';
import { AcpAgentFileSchema } from '../config/acp-agent-config';
import { QodeAssistError } from '../wire/error-info';

/**
 * The ACP registry's index (https://agentclientprotocol.com/get-started/registry; format version
 * 1): `{ version, agents: [{ id, name, version, description, repository, authors, license, icon,
 * distribution: { npx | uvx | binary } }] }`. A fetched index is hostile input: it is read through
 * allowlists (fields, characters of a command's words, https URLs) and every entry becomes the
 * same `acp/*.toml` definition a user would write, checked by the same schema, or is refused
 * with its reason; nothing in it is ever run by a shell.
 */

/** Largest index read (the real one, ~40 agents with binary targets, is far below). */
export const MAX_REGISTRY_BYTES = 1024 * 1024;
/** Most entries one index may list; the rest are reported, not read. */
export const MAX_REGISTRY_AGENTS = 500;

/** Why a whole index is refused. */
export type AcpRegistryIndexCode = 'too-large' | 'not-json' | 'not-an-index' | 'unsupported-version';

/** An index that cannot be read at all: the caller keeps what it had (the snapshot or the cache). */
export class AcpRegistryIndexError extends QodeAssistError {
    constructor(readonly code: AcpRegistryIndexCode, message: string) {
        super({ category: 'Config', message });
        this.name = 'AcpRegistryIndexError';
    }
}

/** Why one entry is skipped (the others are kept). */
export type AcpRegistryEntryCode = 'invalid-entry' | 'unsafe-command' | 'insecure-url' | 'duplicate-id';

/** One entry of the index that could not be read, naming it (its position, and its id when it has one), the cause and the fix. */
export interface AcpRegistryEntryProblem {
    code: AcpRegistryEntryCode;
    index: number;
    id?: string;
    message: string;
    fix: string;
}

/** How an offer is installed: through npx or uvx (nothing to do but have Node.js or uv), or a binary archive to download. */
export type AcpRegistryDistribution = 'npx' | 'uvx' | 'binary';

/** A registry agent as the configuration view offers it. */
export interface AcpRegistryOffer {
    id: string;
    name: string;
    version?: string;
    description?: string;
    repository?: string;
    distribution: AcpRegistryDistribution;
    /** What the user can copy and run: the agent's command line (npx, uvx), or the archive's URL (binary). */
    installCommand: string;
    /** What that needs, in a sentence. */
    installNote: string;
    /** The `acp/<id>.toml` it becomes; set only when the entry passed the definition checks. */
    fileText?: string;
    /** Set when the entry is listed but not offered: why (no build for this platform, the checks a file must pass, …). */
    notOffered?: string;
}

export interface AcpRegistryReading {
    /** The index's format version. */
    version: string;
    offers: AcpRegistryOffer[];
    problems: AcpRegistryEntryProblem[];
}

/** The registry's platform names (`<os>-<arch>`). */
export const REGISTRY_PLATFORMS = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'] as const;
export type RegistryPlatform = typeof REGISTRY_PLATFORMS[number];

/** This machine's registry platform, when the registry has a name for it. */
export function registryPlatformOf(platform: string = process.platform, arch: string = process.arch): RegistryPlatform | undefined {
    const os = ({ darwin: 'darwin', linux: 'linux', win32: 'windows' } as Record<string, string>)[platform];
    const cpu = ({ x64: 'x86_64', arm64: 'aarch64' } as Record<string, string>)[arch];
    const name = os && cpu ? `${os}-${cpu}` : undefined;
    return REGISTRY_PLATFORMS.find(candidate => candidate === name);
}

// Allowlists for the words of a command: what npm, PyPI and release archives name things with, nothing a shell reads specially.
const NPM_PACKAGE = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*(@[A-Za-z0-9][A-Za-z0-9._+-]*)?$/;
const PYPI_PACKAGE = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*\])?(==[A-Za-z0-9][A-Za-z0-9.+!-]*)?$/;
const ARGUMENT = /^[A-Za-z0-9_@%+=:,./-]{1,200}$/;
const BINARY_COMMAND = /^(\.\/)?([A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const ID = /^[a-z][a-z0-9-]{0,63}$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.+-]{0,63}$/;

// One line of plain text: a name or description never carries a line break into a file's comment.
const text = (max: number) => z.string().trim().min(1).max(max).regex(/^\P{Cc}*$/u, 'one line, no control characters');

const RegistryEntrySchema = z.object({
    id: z.string().regex(ID, 'lowercase letters, digits and "-", starting with a letter'),
    name: text(100),
    version: z.string().regex(VERSION).optional(),
    description: text(1000).optional(),
    repository: z.string().max(500).nullish(),
    authors: z.array(text(200)).max(20).optional(),
    license: text(100).nullish(),
    distribution: z.object({
        npx: z.object({ package: z.string().max(214), args: z.array(z.string()).max(20).optional(), env: z.unknown().optional() }).optional(),
        uvx: z.object({ package: z.string().max(214), args: z.array(z.string()).max(20).optional(), env: z.unknown().optional() }).optional(),
        binary: z.unknown().optional()
    })
});
type RegistryEntry = z.infer<typeof RegistryEntrySchema>;

const BinaryTargetSchema = z.object({
    archive: z.string().max(1000),
    cmd: z.string().max(200),
    args: z.array(z.string()).max(20).optional(),
    env: z.unknown().optional()
});

/** A refusal of one entry, thrown inside and collected as a problem. */
class EntryRefusal extends Error {
    constructor(readonly code: AcpRegistryEntryCode, message: string, readonly fix: string) {
        super(message);
    }
}

function httpsUrl(value: string, field: string): string {
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        throw new EntryRefusal('insecure-url', `${field} is no URL`, 'give an absolute https:// URL');
    }
    if (url.protocol !== 'https:' || url.username || url.password) {
        throw new EntryRefusal('insecure-url', `${field} (${url.protocol}) is not https`, 'only https:// URLs without credentials are read from the registry');
    }
    return url.href;
}

function safeArguments(args: readonly string[] | undefined, field: string): string[] {
    for (const arg of args ?? []) {
        if (!ARGUMENT.test(arg)) {
            throw new EntryRefusal('unsafe-command', `${field} has the argument ${JSON.stringify(arg.slice(0, 60))}, with characters no registry command needs`,
                'arguments may hold letters, digits and _ @ % + = : , . / - only');
        }
    }
    return [...args ?? []];
}

/** The environment values an entry sets: an `acp/*.toml` holds only names of the backend's variables, never values. */
function environmentNames(env: unknown): string[] {
    if (env === undefined || env === null) {
        return [];
    }
    if (typeof env !== 'object' || Array.isArray(env)) {
        throw new EntryRefusal('invalid-entry', 'env is not an object of NAME: value', 'give env as { "NAME": "value" }');
    }
    return Object.keys(env);
}

/** One shell-free command line, for showing (each word quoted when it is not plain). */
function commandLine(words: readonly string[]): string {
    return words.map(word => /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word)).join(' ');
}

interface Launch {
    distribution: AcpRegistryDistribution;
    command: string;
    args: string[];
    env: string[];
    installCommand: string;
    installNote: string;
    install: string;
    notOffered?: string;
}

/** How to start an entry here: npx first (pinned as the registry gives it), then uvx, then a binary of this platform. */
function launchOf(entry: RegistryEntry, platform: RegistryPlatform | undefined): Launch {
    const { npx, uvx, binary } = entry.distribution;
    if (npx) {
        // npm reads a name ending in .tgz/.tar/.tar.gz as a tarball in the folder it runs in (the workspace), not as a package.
        if (!NPM_PACKAGE.test(npx.package) || /\.(tgz|tar|tar\.gz)(@|$)/i.test(npx.package)) {
            throw new EntryRefusal('unsafe-command', `distribution.npx.package ${JSON.stringify(npx.package.slice(0, 60))} is no npm package name`, 'name an npm package, optionally @version');
        }
        const args = ['-y', npx.package, ...safeArguments(npx.args, 'distribution.npx.args')];
        return {
            distribution: 'npx', command: 'npx', args, env: environmentNames(npx.env), installCommand: commandLine(['npx', ...args]),
            installNote: 'needs Node.js (npx comes with it); the first start downloads the package', install: 'install Node.js (https://nodejs.org), which brings npx'
        };
    }
    if (uvx) {
        if (!PYPI_PACKAGE.test(uvx.package)) {
            throw new EntryRefusal('unsafe-command', `distribution.uvx.package ${JSON.stringify(uvx.package.slice(0, 60))} is no PyPI package name`, 'name a PyPI package, optionally [extras] and ==version');
        }
        const args = [uvx.package, ...safeArguments(uvx.args, 'distribution.uvx.args')];
        return {
            distribution: 'uvx', command: 'uvx', args, env: environmentNames(uvx.env), installCommand: commandLine(['uvx', ...args]),
            installNote: 'needs uv (uvx comes with it); the first start downloads the package', install: 'install uv (https://docs.astral.sh/uv/getting-started/installation/), which brings uvx'
        };
    }
    if (binary === undefined) {
        throw new EntryRefusal('invalid-entry', 'distribution names no npx, uvx or binary', 'give at least one distribution');
    }
    if (typeof binary !== 'object' || binary === null || Array.isArray(binary)) {
        throw new EntryRefusal('invalid-entry', 'distribution.binary is not an object of platform targets', 'give { "linux-x86_64": { "archive", "cmd" }, … }');
    }
    // Only the registry's own platform names are read, each checked; any other key is never looked at.
    const targets = new Map<RegistryPlatform, z.infer<typeof BinaryTargetSchema>>();
    for (const name of REGISTRY_PLATFORMS) {
        if (!Object.prototype.hasOwnProperty.call(binary, name)) {
            continue;
        }
        const target = BinaryTargetSchema.safeParse((binary as Record<string, unknown>)[name]);
        if (!target.success) {
            throw new EntryRefusal('invalid-entry', `distribution.binary.${name} is not { archive, cmd, args }`, 'give each platform an archive URL and a cmd');
        }
        httpsUrl(target.data.archive, `distribution.binary.${name}.archive`);
        if (!BINARY_COMMAND.test(target.data.cmd)) {
            throw new EntryRefusal('unsafe-command', `distribution.binary.${name}.cmd ${JSON.stringify(target.data.cmd.slice(0, 60))} is no plain path inside the archive`, 'name the program as ./name or folder/name');
        }
        safeArguments(target.data.args, `distribution.binary.${name}.args`);
        targets.set(name, target.data);
    }
    const target = platform && targets.get(platform);
    if (!target) {
        const builds = [...targets.keys()].join(', ') || 'none';
        return {
            distribution: 'binary', command: 'unavailable', args: [], env: [], installCommand: '', installNote: `binary builds for ${builds}`, install: '',
            notOffered: `the registry has no build of it for ${platform ?? 'this platform'} (it has: ${builds})`
        };
    }
    const program = target.cmd.split('/').pop()!;
    return {
        distribution: 'binary', command: program, args: [...target.args ?? []], env: environmentNames(target.env), installCommand: target.archive,
        installNote: `download and extract the archive, then put ${program} on PATH (or set command to its absolute path)`,
        install: `download ${target.archive}, extract it, and put ${program} on PATH`
    };
}

/** The `acp/<id>.toml` an entry becomes, checked by the same schema every `acp/*.toml` file is; a failure is the reason it is not offered. */
function definitionOf(entry: RegistryEntry, launch: Launch, source: string): { fileText?: string; notOffered?: string } {
    if (launch.env.length > 0) {
        // An acp/*.toml passes variables of the backend's environment by name; it cannot set values.
        return { notOffered: `it sets environment values (${launch.env.join(', ')}), which an acp/*.toml cannot hold; set them where QodeAssist runs and write the file by hand` };
    }
    const description = entry.description ? `${entry.name}: ${entry.description}` : entry.name;
    const file = {
        description, command: launch.command, args: launch.args, install: launch.install,
        ...(entry.repository ? { homepage: entry.repository } : {})
    };
    const checked = AcpAgentFileSchema.safeParse(file);
    if (!checked.success) {
        const issue = checked.error.issues[0];
        return { notOffered: `it fails the checks of an acp/*.toml: ${issue.path.join('.') || 'the entry'} — ${issue.message}` };
    }
    const header = `# ${entry.name}${entry.version ? ` ${entry.version}` : ''}, added from the ACP registry (${source}).\n`
        + '# Yours now: edit it freely; env = ["NAME"] passes a variable of the environment QodeAssist runs in.\n';
    return { fileText: `${header}${stringify(file)}\n` };
}

/**
 * Reads an index: the whole of it refused (an AcpRegistryIndexError) when it is too large, not
 * JSON or no index; otherwise every entry either offered (with its `acp/<id>.toml` text),
 * listed as not offered with the reason, or skipped with a typed problem.
 */
export function parseAcpRegistry(body: string, options: { platform?: RegistryPlatform; source?: string; maxBytes?: number } = {}): AcpRegistryReading {
    const maxBytes = options.maxBytes ?? MAX_REGISTRY_BYTES;
    if (Buffer.byteLength(body, 'utf8') > maxBytes) {
        throw new AcpRegistryIndexError('too-large', `the registry index is over ${maxBytes} bytes`);
    }
    let value: unknown;
    try {
        value = JSON.parse(body);
    } catch (error) {
        throw new AcpRegistryIndexError('not-json', `the registry index is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const index = z.object({ version: z.string().max(32), agents: z.array(z.unknown()) }).safeParse(value);
    if (!index.success) {
        throw new AcpRegistryIndexError('not-an-index', 'the registry index is no { "version", "agents": [...] } object');
    }
    if (!/^1(\.|$)/.test(index.data.version)) {
        throw new AcpRegistryIndexError('unsupported-version', `the registry index has format version ${JSON.stringify(index.data.version)}; QodeAssist reads version 1`);
    }
    const platform = 'platform' in options ? options.platform : registryPlatformOf();
    const source = options.source ?? 'the registry';
    const offers: AcpRegistryOffer[] = [];
    const problems: AcpRegistryEntryProblem[] = [];
    const seen = new Set<string>();
    if (index.data.agents.length > MAX_REGISTRY_AGENTS) {
        // One problem for all of them: a hostile index must not make the view list a problem per entry.
        problems.push({ code: 'invalid-entry', index: MAX_REGISTRY_AGENTS, message: `${index.data.agents.length - MAX_REGISTRY_AGENTS} entries past the first ${MAX_REGISTRY_AGENTS} were not read`, fix: 'the registry lists more agents than QodeAssist reads' });
    }
    index.data.agents.slice(0, MAX_REGISTRY_AGENTS).forEach((raw, position) => {
        const id = typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string' ? String((raw as { id: string }).id).slice(0, 64) : undefined;
        try {
            const parsed = RegistryEntrySchema.safeParse(raw);
            if (!parsed.success) {
                const issue = parsed.error.issues[0];
                throw new EntryRefusal('invalid-entry', `${issue.path.join('.') || 'the entry'}: ${issue.message}`, 'see the registry format (agentclientprotocol.com/get-started/registry)');
            }
            const entry = parsed.data;
            if (seen.has(entry.id)) {
                throw new EntryRefusal('duplicate-id', `the id "${entry.id}" is listed twice`, 'the first one is kept');
            }
            seen.add(entry.id);
            const repository = entry.repository ? httpsUrl(entry.repository, 'repository') : undefined;
            const launch = launchOf(entry, platform);
            const definition = launch.notOffered ? { notOffered: launch.notOffered } : definitionOf({ ...entry, repository }, launch, source);
            offers.push({
                id: entry.id, name: entry.name, distribution: launch.distribution, installCommand: launch.installCommand, installNote: launch.installNote,
                ...(entry.version ? { version: entry.version } : {}), ...(entry.description ? { description: entry.description } : {}),
                ...(repository ? { repository } : {}), ...definition
            });
        } catch (error) {
            if (!(error instanceof EntryRefusal)) {
                throw error;
            }
            problems.push({ code: error.code, index: position, ...(id ? { id } : {}), message: error.message, fix: error.fix });
        }
    });
    return { version: index.data.version, offers, problems };
}
