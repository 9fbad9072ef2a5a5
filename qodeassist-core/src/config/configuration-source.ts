import { z } from 'zod';
import { CLIENT_API_INFO } from '../wire/client-apis';
import { AcpAgentEntry, loadAcpAgents } from './acp-agent-config';
import { ConsentRegistry } from './consent-registry';
import { ProjectOverride } from './project-trust';
import { GatewaySettings } from './gateway';
import { loadManagedPolicy, ManagedPolicy } from './managed-policy';
import { ConfigFile, loadJsonFile, loadTomlFile } from './config-file';
import { ConfigIssue, didYouMean, findKeyLine } from './config-issue';
import { ConfigLayer, configLayers, ConfigRoots, LayerName, readConfigFile, readConfigFiles } from './config-layers';
import { isReservedKeyRef, KeyOriginPolicy, keyOriginIssue, originOf, reservedKeyIssue } from './key-origins';
import { deepMerge, leafPaths, Table } from './deep-merge';
import { ModelPricingSchema } from './pricing';
import {
    AgentFile, AgentFileSchema, AgentModelsSchema, knownKeys, LimitsSchema, Pipeline, PIPELINES, ProviderInstance, ProviderInstanceSchema, Role, RoleSchema,
    RostersFileSchema
} from './schemas';

export interface LoadedProvider {
    instance: ProviderInstance;
    /** The layer that defines it: a project provider's key is bound to the origins the user or the bundle use. */
    layer: LayerName;
    /** The instance's URL, or its client_api's default. */
    url: string;
    file: ConfigFile;
}

/** An agent profile with `extends` resolved: the merged table, and which file each field came from. */
export interface MergedAgent {
    name: string;
    file: ConfigFile;
    abstract: boolean;
    table: Table;
    /** Which file each field path came from, for line numbers. */
    origin: Map<string, ConfigFile>;
    /** The files of the extends chain, the furthest base first and this profile's own last. */
    chain: ConfigFile[];
}

/** Everything L1 reads: parsed, validated against the schemas, merged, but no template compiled yet. */
export interface ConfigurationSource {
    layers: ConfigLayer[];
    providers: Map<string, LoadedProvider>;
    agents: Map<string, MergedAgent>;
    roles: Map<string, Role & { file: ConfigFile }>;
    /** The roster lists as written (later layers replace a pipeline's list), with where each came from. */
    rosters: Record<Pipeline, { agents: string[]; file?: ConfigFile }>;
    modelOverrides: Record<string, string>;
    /** Gateway mode, when the environment names a gateway. */
    gateway?: GatewaySettings;
    /** The administrator's policy (QODEASSIST_MANAGED_DIR's policy.toml), when there is a managed folder. */
    policy?: ManagedPolicy;
    /**
     * `acp/*.toml` of every layer that may start now, later layers shadowing earlier ones by name
     * (absent: none read); a project's (`<name>@project`) only once the user consented to it.
     */
    acpAgents?: Map<string, AcpAgentEntry>;
    /** The project's external agents the user has not consented to (or whose entry changed since): listed, never started. */
    acpAwaitingConsent?: Map<string, AcpAgentEntry>;
    /** What the trusted project's files replace of the user's or the bundled configuration. */
    projectOverrides?: ProjectOverride[];
    issues: ConfigIssue[];
}

interface AgentSource {
    file: ConfigFile;
    raw: AgentFile;
}

const keysOf = (schema: z.ZodObject) => () => knownKeys(schema);

/** Reads and merges the bundled, user and project layers; one broken file never hides the others. */
export function readConfigurationSource(roots: ConfigRoots): ConfigurationSource {
    const layers = configLayers(roots);
    const issues: ConfigIssue[] = roots.userRefused ? [{ severity: 'error', file: roots.userRefused.path, message: roots.userRefused.message, fix: roots.userRefused.fix }] : [];
    const roles = loadRoles(layers, issues);
    const overrides: ProjectOverride[] = [];
    const providers = loadProviders(layers, issues, overrides);
    const sources = loadAgentSources(layers, issues);
    const agents = new Map<string, MergedAgent>();
    for (const name of sources.keys()) {
        const merged = resolveExtends(name, sources, issues);
        if (merged) {
            agents.set(name, merged);
        }
    }
    const rosters = readRosters(layers, issues, overrides);
    const { ready, awaiting } = withConsents(loadAcpAgents(layers, issues), roots);
    return {
        layers, providers, agents, roles, rosters, modelOverrides: loadModelOverrides(layers, issues),
        acpAgents: ready, acpAwaitingConsent: awaiting, projectOverrides: overrides,
        ...(roots.managed ? { policy: loadManagedPolicy(roots.managed, issues) } : {}),
        ...(roots.gateway ? { gateway: roots.gateway } : {}), issues
    };
}

/**
 * Splits the external agents into those that may start and the project's that wait for the
 * user's consent, read from the user's own folder (none without one: the safe side).
 */
function withConsents(agents: Map<string, AcpAgentEntry>, roots: ConfigRoots): { ready: Map<string, AcpAgentEntry>; awaiting: Map<string, AcpAgentEntry> } {
    const registry = roots.user ? ConsentRegistry.forUserFolder(roots.user) : undefined;
    const ready = new Map<string, AcpAgentEntry>();
    const awaiting = new Map<string, AcpAgentEntry>();
    for (const [name, entry] of agents) {
        const workspace = entry.consent?.cwd;
        const granted = entry.layer !== 'project'
            || (registry !== undefined && workspace !== undefined && entry.consent !== undefined && registry.isGranted(workspace, 'acp', entry.consent.fingerprint));
        if (granted) {
            ready.set(name, entry.layer === 'project' ? { ...entry, consented: true } : entry);
        } else {
            awaiting.set(name, entry);
        }
    }
    return { ready, awaiting };
}

export function hint(word: string, candidates: Iterable<string>): string {
    const suggestion = didYouMean(word, candidates);
    return suggestion ? ` (did you mean "${suggestion}"?)` : '';
}

function loadRoles(layers: ConfigLayer[], issues: ConfigIssue[]): Map<string, Role & { file: ConfigFile }> {
    const roles = new Map<string, Role & { file: ConfigFile }>();
    for (const layer of layers) {
        for (const file of readConfigFiles(layer, layer.rolesDir, '.json')) {
            const role = loadJsonFile(file, RoleSchema, keysOf(RoleSchema));
            issues.push(...role.issues);
            if (role.value) {
                roles.set(role.value.id, { ...role.value, file });
            }
        }
    }
    return roles;
}

function loadProviders(layers: ConfigLayer[], issues: ConfigIssue[], overrides: ProjectOverride[]): Map<string, LoadedProvider> {
    const providers = new Map<string, LoadedProvider>();
    const keyOrigins = new KeyOriginPolicy();
    const shadowed = new Map<string, LoadedProvider>();
    for (const layer of layers) {
        if (layer.keyOriginsFile) {
            const file = tryReadConfigFile(layer, layer.keyOriginsFile);
            if (file) {
                issues.push(...keyOrigins.readUserFile(file));
            }
        }
        const seen = new Map<string, ConfigFile>();
        for (const file of readConfigFiles(layer, layer.providersDir, '.toml')) {
            const parsed = loadTomlFile(file, 'provider', ProviderInstanceSchema, providerKeysAt);
            issues.push(...parsed.issues);
            const instance = parsed.value;
            if (!instance) {
                continue;
            }
            const duplicate = seen.get(instance.name);
            if (duplicate) {
                issues.push({ severity: 'error', file: file.label, line: findKeyLine(file.text, ['name']), field: 'name', message: `provider "${instance.name}" is also defined in ${duplicate.label}`, fix: 'give each provider instance its own name' });
                continue;
            }
            seen.set(instance.name, file);
            const url = instance.url ?? CLIENT_API_INFO[instance.client_api].defaultUrl;
            if (!url) {
                issues.push({ severity: 'error', file: file.label, field: 'url', message: `client_api "${instance.client_api}" has no default URL`, fix: 'add url = "http://…" with the server\'s base URL' });
                continue;
            }
            const ref = instance.api_key_ref;
            if (ref !== undefined && isReservedKeyRef(ref)) {
                issues.push(reservedKeyIssue(file, instance.name, ref));
                continue;
            }
            if (ref !== undefined && layer.name !== 'project') {
                keyOrigins.allow(ref, url);
            } else if (ref !== undefined && !keyOrigins.allows(ref, url)) {
                issues.push(keyOriginIssue(file, instance.name, ref, url, layers.find(candidate => candidate.keyOriginsFile)?.keyOriginsFile));
                continue;
            }
            const earlier = providers.get(instance.name);
            if (layer.name === 'project' && earlier && earlier.layer !== 'project' && originOf(earlier.url) !== originOf(url)) {
                shadowed.set(instance.name, earlier);
            }
            providers.set(instance.name, { instance, layer: layer.name, url, file });
        }
    }
    for (const [name, earlier] of shadowed) {
        const provider = providers.get(name);
        // The administrator's layer may have replaced the project's in turn: then nothing of the project's is used.
        if (provider?.layer === 'project') {
            const override = providerOverride(name, provider, earlier);
            overrides.push(override);
            issues.push({
                severity: 'notice', file: provider.file.label, line: findKeyLine(provider.file.text, ['url']) ?? findKeyLine(provider.file.text, ['name']), field: 'url',
                message: override.message,
                fix: `if you did not expect it, remove ${provider.file.label} or stop trusting the workspace; a project provider under a name of its own leaves yours as it is`
            });
        }
    }
    return providers;
}

function providerOverride(name: string, provider: LoadedProvider, earlier: LoadedProvider): ProjectOverride {
    const sendsTo = originOf(provider.url) ?? provider.url;
    const insteadOf = originOf(earlier.url) ?? earlier.url;
    const whose = earlier.layer === 'user' ? `your provider "${name}" (${earlier.file.label})` : `QodeAssist's provider "${name}"`;
    return {
        kind: 'provider', name, file: provider.file.label, replaces: earlier.layer === 'user' ? 'user' : 'bundled', sendsTo, insteadOf,
        message: `the project's provider "${name}" sends to ${sendsTo} in place of ${whose} at ${insteadOf}`
    };
}

function tryReadConfigFile(layer: ConfigLayer, path: string): ConfigFile | undefined {
    try {
        return readConfigFile(layer, path);
    } catch {
        return undefined;
    }
}

function loadAgentSources(layers: ConfigLayer[], issues: ConfigIssue[]): Map<string, AgentSource> {
    const sources = new Map<string, AgentSource>();
    for (const layer of layers) {
        const seen = new Map<string, ConfigFile>();
        for (const file of readConfigFiles(layer, layer.agentsDir, '.toml', ['rosters.toml'])) {
            const parsed = loadTomlFile(file, 'agent', AgentFileSchema, keysAt);
            issues.push(...parsed.issues);
            if (!parsed.value) {
                continue;
            }
            const duplicate = seen.get(parsed.value.name);
            if (duplicate) {
                issues.push({ severity: 'error', file: file.label, line: findKeyLine(file.text, ['name']), field: 'name', message: `agent "${parsed.value.name}" is also defined in ${duplicate.label}`, fix: 'give each agent its own name' });
                continue;
            }
            seen.set(parsed.value.name, file);
            sources.set(parsed.value.name, { file, raw: parsed.value });
        }
    }
    return sources;
}

function keysAt(path: PropertyKey[]): string[] {
    if (path.length === 0) {
        return knownKeys(AgentFileSchema);
    }
    if (path[0] === 'match') {
        return ['file', 'path', 'project'];
    }
    if (path[0] === 'limits') {
        return knownKeys(LimitsSchema);
    }
    if (path[0] === 'pricing' && path.length === 2) {
        return knownKeys(ModelPricingSchema);
    }
    return [];
}

/** A provider file's keys at a path: `[pricing."<model>"]` has its own. */
function providerKeysAt(path: PropertyKey[]): string[] {
    if (path[0] === 'pricing' && path.length === 2) {
        return knownKeys(ModelPricingSchema);
    }
    return path.length === 0 ? knownKeys(ProviderInstanceSchema) : [];
}

/** Follows `extends` to the root and merges, child last; a cycle or a missing parent is an error on the child. */
function resolveExtends(name: string, sources: Map<string, AgentSource>, issues: ConfigIssue[]): MergedAgent | undefined {
    const chain: AgentSource[] = [];
    const visiting: string[] = [];
    let current: string | undefined = name;
    while (current !== undefined) {
        if (visiting.includes(current)) {
            const source = sources.get(name)!;
            issues.push({
                severity: 'error', file: source.file.label, line: findKeyLine(source.file.text, ['extends']), field: 'extends',
                message: `extends cycle: ${[...visiting, current].join(' → ')}`, fix: 'make one profile in the cycle extend nothing or another base'
            });
            return undefined;
        }
        visiting.push(current);
        const source = sources.get(current);
        if (!source) {
            const child = chain[chain.length - 1];
            issues.push({
                severity: 'error', file: child.file.label, line: findKeyLine(child.file.text, ['extends']), field: 'extends',
                message: `extends unknown agent "${current}"${hint(current, sources.keys())}`, fix: 'fix the name or add that profile'
            });
            return undefined;
        }
        chain.push(source);
        current = source.raw.extends;
    }
    let table: Table = {};
    const origin = new Map<string, ConfigFile>();
    chain.reverse();
    for (const [index, source] of chain.entries()) {
        const own: Table = { ...source.raw };
        delete own.abstract;
        delete own.extends;
        if (index < chain.length - 1) {
            // A description says what its own file is ("Abstract base of every…"); it is not inherited.
            delete own.description;
        }
        table = deepMerge(table, own);
        for (const path of leafPaths(own)) {
            origin.set(path.join('.'), source.file);
        }
    }
    const own = sources.get(name)!;
    return { name, file: own.file, abstract: own.raw.abstract === true, table, origin, chain: chain.map(source => source.file) };
}

export function lineOf(merged: MergedAgent, fallback: ConfigFile, path: readonly (string | number)[]): { file: ConfigFile; line?: number } {
    for (let depth = path.length; depth > 0; depth--) {
        const file = merged.origin.get(path.slice(0, depth).join('.'));
        if (file) {
            return { file, line: findKeyLine(file.text, path.slice(0, depth)) };
        }
    }
    return { file: fallback, line: undefined };
}

/** The roster files of every layer; a later layer replaces the lists it names (a project's replacing another's is named in `overrides`). */
function readRosters(layers: ConfigLayer[], issues: ConfigIssue[], overrides: ProjectOverride[]): Record<Pipeline, { agents: string[]; file?: ConfigFile }> {
    const rosters: Record<Pipeline, { agents: string[]; file?: ConfigFile }> = {
        completion: { agents: [] }, chat: { agents: [] }, compression: { agents: [] }, refactor: { agents: [] }, next_edit: { agents: [] }
    };
    const replaced = new Map<Pipeline, { agents: string[]; layer: LayerName; file: ConfigFile }>();
    const layerOf = new Map<ConfigFile, LayerName>();
    for (const layer of layers) {
        let file: ConfigFile;
        try {
            file = readConfigFile(layer, `${layer.agentsDir}/rosters.toml`);
        } catch {
            continue;
        }
        const parsed = loadTomlFile(file, 'rosters', RostersFileSchema, keysOf(RostersFileSchema));
        issues.push(...parsed.issues);
        layerOf.set(file, layer.name);
        for (const pipeline of PIPELINES) {
            const entry = parsed.value?.[pipeline];
            if (!entry) {
                continue;
            }
            const earlier = rosters[pipeline];
            const earlierLayer = earlier.file ? layerOf.get(earlier.file) : undefined;
            if (layer.name === 'project' && earlier.file && (earlierLayer === 'user' || earlierLayer === 'bundled') && earlier.agents.join('\n') !== entry.agents.join('\n')) {
                replaced.set(pipeline, { agents: earlier.agents, layer: earlierLayer, file: earlier.file });
            }
            rosters[pipeline] = { agents: entry.agents, file };
        }
    }
    for (const [pipeline, earlier] of replaced) {
        const { agents, file } = rosters[pipeline];
        if (!file || layerOf.get(file) !== 'project') {
            continue;
        }
        const whose = earlier.layer === 'user' ? `your ${pipeline} roster (${earlier.file.label})` : `QodeAssist's ${pipeline} roster`;
        const message = `the project's ${pipeline} roster [${agents.join(', ')}] replaces ${whose} [${earlier.agents.join(', ')}]`;
        overrides.push({ kind: 'roster', name: pipeline, file: file.label, replaces: earlier.layer === 'user' ? 'user' : 'bundled', message });
        issues.push({
            severity: 'notice', file: file.label, line: findKeyLine(file.text, [pipeline, 'agents']), field: `${pipeline}.agents`, message,
            fix: `if you did not expect it, remove the [${pipeline}] list from ${file.label} or stop trusting the workspace`
        });
    }
    return rosters;
}

function loadModelOverrides(layers: ConfigLayer[], issues: ConfigIssue[]): Record<string, string> {
    const overrides: Record<string, string> = {};
    for (const layer of layers) {
        if (!layer.modelOverridesFile) {
            continue;
        }
        let file: ConfigFile;
        try {
            file = readConfigFile(layer, layer.modelOverridesFile);
        } catch {
            continue;
        }
        const models = loadJsonFile(file, AgentModelsSchema, () => []);
        issues.push(...models.issues);
        Object.assign(overrides, models.value);
    }
    return overrides;
}
