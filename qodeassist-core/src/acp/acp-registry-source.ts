import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../config/durable-file';
import { QodeAssistError } from '../wire/error-info';
import { AcpRegistryIndexError, AcpRegistryOffer, AcpRegistryReading, MAX_REGISTRY_BYTES, parseAcpRegistry, RegistryPlatform, registryPlatformOf } from './acp-registry';
import { readBoundedBody } from '../wire/bounded-body';

/** The registry's documented index (agentclientprotocol.com/get-started/registry). */
export const ACP_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

/** Where the bundled snapshot is: beside the bundled `acp/` folder of @qodeassist/agents. */
export function bundledRegistrySnapshot(bundledAgents: string): string {
    return join(bundledAgents, 'acp-registry.json');
}

/** Where the last good fetched index is kept: the user's own folder (`~/.qodeassist`, or the state dir's). */
export function registryCacheFile(userDir: string): string {
    return join(userDir, 'cache', 'acp-registry.json');
}

/** What the view shows: the reading, where it came from, and since when. */
export interface AcpRegistryState extends AcpRegistryReading {
    source: 'registry' | 'cache' | 'snapshot';
    /** The snapshot's date, or when the index was fetched (ISO). */
    date: string;
    /** Why the registry's own index is not shown ("offline: showing the bundled snapshot from …"). */
    notice?: string;
}

/**
 * The registry URL a user may set: https, or http to this machine only (a local mirror); never
 * with credentials. A typed error naming the fix otherwise.
 */
export function checkRegistryUrl(value: string): URL {
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        throw new QodeAssistError({ category: 'Config', message: `The ACP registry URL "${value}" is no URL; set qodeassist.acp.registryUrl to an https:// address, or leave it empty for the bundled snapshot only.` });
    }
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (!(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.username || url.password) {
        throw new QodeAssistError({ category: 'Config', message: `The ACP registry URL ${url.origin} is not https (plain http is read from this machine only); set qodeassist.acp.registryUrl to an https:// address.` });
    }
    return url;
}

/** Reads a body up to `maxBytes`, stopping the download past it. */
async function boundedText(response: Response, maxBytes: number): Promise<string> {
    const bytes = await readBoundedBody(response, maxBytes, declared =>
        new AcpRegistryIndexError('too-large', `the registry index is over ${maxBytes} bytes${declared === undefined ? '' : ` (${declared})`}`));
    return Buffer.from(bytes).toString('utf8');
}

/**
 * Fetches the index: a short timeout, no redirect (a redirect could lead to plain http), JSON
 * only, at most `maxBytes`. Throws (a typed error) on anything else; the caller falls back.
 */
export async function fetchRegistryIndex(url: string, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<string> {
    const checked = checkRegistryUrl(url);
    const maxBytes = options.maxBytes ?? MAX_REGISTRY_BYTES;
    let response: Response;
    try {
        response = await fetch(checked, { redirect: 'error', signal: AbortSignal.timeout(options.timeoutMs ?? 5_000), headers: { accept: 'application/json' } });
    } catch (error) {
        throw new QodeAssistError({ category: 'Network', message: `The ACP registry at ${checked.origin} did not answer (${error instanceof Error ? error.message : String(error)}).` });
    }
    if (!response.ok) {
        await response.body?.cancel();
        throw new QodeAssistError({ category: 'Network', message: `The ACP registry at ${checked.origin} answered HTTP ${response.status}.`, status: response.status });
    }
    const type = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase() ?? '';
    if (!(type === 'application/json' || type.endsWith('+json'))) {
        await response.body?.cancel();
        throw new AcpRegistryIndexError('not-json', `the ACP registry at ${checked.origin} answered ${type || 'no content type'}, not JSON`);
    }
    return boundedText(response, maxBytes);
}

export interface AcpRegistryCatalogueOptions {
    /** The bundled snapshot file. */
    snapshotFile: string;
    platform?: RegistryPlatform;
    timeoutMs?: number;
    maxBytes?: number;
    /** How long a fetched index is reused before the next view asks again; a failure is retried after `retryMs`. */
    freshMs?: number;
    retryMs?: number;
    now?: () => number;
}

/**
 * The registry's agents for the configuration view: the registry's index when it answers (kept
 * in the user's folder as the last good one), else that cached index, else the bundled snapshot —
 * never an error for being offline. One answer per URL is reused for a while, so opening the view
 * does not fetch every time.
 */
export class AcpRegistryCatalogue {
    private readonly remembered = new Map<string, { at: number; state: AcpRegistryState }>();

    constructor(private readonly options: AcpRegistryCatalogueOptions) { }

    /** `url` empty or absent: the registry is not asked (the snapshot, or the cache). */
    async read(url: string | undefined, cacheFile: string | undefined, force = false): Promise<AcpRegistryState> {
        const now = (this.options.now ?? Date.now)();
        const key = `${url ?? ''}\n${cacheFile ?? ''}`;
        const known = this.remembered.get(key);
        const keepFor = known?.state.source === 'registry' ? this.options.freshMs ?? 60 * 60_000 : this.options.retryMs ?? 5 * 60_000;
        if (known && !force && now - known.at < keepFor) {
            return known.state;
        }
        const state = await this.load(url?.trim() || undefined, cacheFile, now);
        this.remembered.set(key, { at: now, state });
        return state;
    }

    /** The offer with this id in the last reading for this URL (read again when there is none). */
    async offer(url: string | undefined, cacheFile: string | undefined, id: string): Promise<AcpRegistryOffer | undefined> {
        return (await this.read(url, cacheFile)).offers.find(offer => offer.id === id);
    }

    private async load(url: string | undefined, cacheFile: string | undefined, now: number): Promise<AcpRegistryState> {
        const platform = 'platform' in this.options ? this.options.platform : registryPlatformOf();
        let why = 'no registry URL is set';
        if (url) {
            try {
                const body = await fetchRegistryIndex(url, this.options);
                const date = new Date(now).toISOString();
                const reading = parseAcpRegistry(body, { platform, maxBytes: this.options.maxBytes, source: `${new URL(url).origin}, ${date.slice(0, 10)}` });
                if (cacheFile) {
                    await writeFileAtomic(cacheFile, `${JSON.stringify({ fetched: date, url, index: body })}\n`, 0o600).catch(() => undefined);
                }
                return { ...reading, source: 'registry', date };
            } catch (error) {
                why = error instanceof Error ? error.message : String(error);
            }
        }
        const cached = cacheFile ? this.cached(cacheFile, platform) : undefined;
        if (cached) {
            return { ...cached, notice: `offline: showing the registry as fetched on ${cached.date.slice(0, 10)} (${why})` };
        }
        const snapshot = this.snapshot(platform);
        return { ...snapshot, notice: `offline: showing the bundled snapshot from ${snapshot.date} (${why})` };
    }

    /** The last good index, read through the same checks (it came from the network). */
    private cached(cacheFile: string, platform: RegistryPlatform | undefined): AcpRegistryState | undefined {
        try {
            const kept = JSON.parse(readFileSync(cacheFile, 'utf8')) as { fetched?: unknown; index?: unknown };
            if (typeof kept.fetched !== 'string' || typeof kept.index !== 'string') {
                return undefined;
            }
            return { ...parseAcpRegistry(kept.index, { platform, maxBytes: this.options.maxBytes, source: `the registry, ${kept.fetched.slice(0, 10)}` }), source: 'cache', date: kept.fetched };
        } catch {
            return undefined;
        }
    }

    private snapshot(platform: RegistryPlatform | undefined): AcpRegistryState {
        const body = readFileSync(this.options.snapshotFile, 'utf8');
        const date = (JSON.parse(body) as { snapshot?: unknown }).snapshot;
        const day = typeof date === 'string' ? date : 'an unknown date';
        return { ...parseAcpRegistry(body, { platform, source: `the bundled snapshot of ${day}` }), source: 'snapshot', date: day };
    }
}

/**
 * Writes a registry agent as the user's `acp/<id>.toml`: whole (a temporary file, flushed, then
 * linked into place, so a reader never sees half of it) and never over an existing file of that
 * name — that is refused with a typed error. Returns the file written.
 */
export async function writeRegistryAgent(userDir: string, offer: AcpRegistryOffer): Promise<string> {
    if (!offer.fileText) {
        throw new QodeAssistError({ category: 'Validation', message: `"${offer.id}" from the ACP registry is not offered here: ${offer.notOffered ?? 'it has no definition'}.` });
    }
    const file = join(userDir, 'acp', `${offer.id}.toml`);
    await mkdir(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}-${randomUUID()}.tmp`;
    try {
        const handle = await open(temporary, 'wx', 0o644);
        try {
            await handle.writeFile(offer.fileText, 'utf8');
            await handle.sync();
        } finally {
            await handle.close();
        }
        // link() fails when the name exists: no window in which another file could be replaced.
        await link(temporary, file);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
            throw new QodeAssistError({ category: 'Validation', message: `${file} exists already; QodeAssist does not replace it. Edit it, or delete it and add "${offer.id}" again.` });
        }
        throw error;
    } finally {
        await rm(temporary, { force: true });
    }
    return file;
}
