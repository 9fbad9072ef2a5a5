import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as nunjucks from 'nunjucks';
import { z } from 'zod';
import { BodyTemplate, BodyTemplateError, renderSync } from '../prompt/body-template';
import { createTemplateEnvironment } from '../prompt/partial-loader';
import { REQUEST_SHAPES } from '../prompt/request-shapes';
import { syntheticContext, TemplateContext, TemplateVariablesFor } from '../prompt/template-context';
import { CLIENT_API_INFO, endpointUrl } from '../wire/client-apis';
import { WireProtocolName } from '../wire/wire-protocols';
import { ConfigFile, loadTomlFile, readJson, schemaIssues } from './config-file';
import { ConfigIssue, didYouMean, findKeyLine } from './config-issue';
import { ConfigLayer, configLayers, ConfigRoots, readConfigFile, readConfigFiles } from './config-layers';
import { deepMerge, leafPaths, Table } from './deep-merge';
import {
    AgentFile, AgentFileSchema, AgentModelsSchema, ConcreteAgentSchema, knownKeys, Pipeline, PIPELINES, ProviderInstance,
    ProviderInstanceSchema, Role, RoleSchema, RostersFileSchema
} from './schemas';

export interface LoadedProvider {
    instance: ProviderInstance;
    /** The instance's URL, or its client_api's default. */
    url: string;
    file: ConfigFile;
}

/** A concrete agent, ready to render: templates compiled, provider and protocol resolved. */
export interface ResolvedAgent {
    name: string;
    description?: string;
    file: ConfigFile;
    provider: LoadedProvider;
    /** After the agent_models.json override. */
    model: string;
    endpoint: string;
    /** Full request URL, `${MODEL}` substituted. */
    url: string;
    protocol: WireProtocolName;
    enableTools: boolean;
    enableThinking: boolean;
    contextWindow: number;
    match: { file: string[]; path: string[]; project: string[] };
    renderSystemPrompt(): string;
    /** The request body for a context; throws BodyTemplateError on a template failure. */
    renderBody(ctx: TemplateContext): Record<string, unknown>;
}

export interface Configuration {
    providers: ReadonlyMap<string, LoadedProvider>;
    agents: ReadonlyMap<string, ResolvedAgent>;
    /** Names of abstract profiles (bases), for listing. */
    abstractAgents: ReadonlySet<string>;
    roles: ReadonlyMap<string, Role & { file: ConfigFile }>;
    rosters: Readonly<Record<Pipeline, readonly string[]>>;
    modelOverrides: Readonly<Record<string, string>>;
    /** Every problem found, per file; one broken file never hides the others. */
    issues: readonly ConfigIssue[];
}

interface AgentSource {
    file: ConfigFile;
    raw: AgentFile;
}

const keysOf = (schema: z.ZodObject) => () => knownKeys(schema);

/**
 * Loads bundled, user and project configuration, resolves `extends`, compiles every
 * template and renders every concrete profile against a synthetic context, so that a
 * configuration error shows up here — with file, line, field and fix — and never as
 * a failed send.
 */
export function loadConfiguration(roots: ConfigRoots): Configuration {
    const layers = configLayers(roots);
    const issues: ConfigIssue[] = [];
    const roles = loadRoles(layers, issues);
    const providers = loadProviders(layers, issues);
    const sources = loadAgentSources(layers, issues);
    const modelOverrides = loadModelOverrides(layers, issues);
    const environment = createTemplateEnvironment(layers.map(layer => layer.partialsDir));
    environment.addGlobal('agent_role', (id: string) => {
        const role = roles.get(id);
        if (!role) {
            throw new Error(`unknown role "${id}"${hint(id, roles.keys())}`);
        }
        return role.systemPrompt;
    });

    issues.push(...checkPartials(layers, environment));
    const agents = new Map<string, ResolvedAgent>();
    const abstractAgents = new Set<string>();
    for (const [name, source] of sources) {
        const merged = resolveExtends(name, sources, issues);
        if (!merged) {
            continue;
        }
        if (source.raw.abstract === true) {
            abstractAgents.add(name);
            continue;
        }
        const agent = resolveAgent(name, source, merged, providers, modelOverrides, environment, issues);
        if (agent) {
            agents.set(name, agent);
        }
    }
    for (const [name] of Object.entries(modelOverrides)) {
        if (!agents.has(name) && !abstractAgents.has(name)) {
            issues.push({ severity: 'notice', file: 'agent_models.json', message: `model override for unknown agent "${name}"${hint(name, agents.keys())}`, fix: 'remove the entry or fix the name' });
        }
    }
    const rosters = loadRosters(layers, agents, abstractAgents, issues);
    return { providers, agents, abstractAgents, roles, rosters, modelOverrides, issues };
}

/** Compiles every partial once, so a syntax error is reported against the partial's own file and line. */
function checkPartials(layers: ConfigLayer[], environment: nunjucks.Environment): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    for (const layer of layers) {
        for (const path of listFiles(layer.partialsDir, '.njk')) {
            const name = relative(layer.partialsDir, path).split(sep).join('/');
            try {
                environment.getTemplate(name, true);
            } catch (error) {
                const message = cleanMessage(error);
                const line = /\[Line (\d+)/.exec(String((error as Error)?.message ?? ''))?.[1];
                issues.push({
                    severity: 'error', file: readConfigFile(layer, path).label, line: line ? Number(line) : undefined,
                    message: `partial "${name}": ${message.replace(/\[Line \d+, Column \d+\]\s*/, '')}`, fix: 'fix the template syntax at that line'
                });
            }
        }
    }
    return issues;
}

function listFiles(dir: string, extension: string): string[] {
    if (!existsSync(dir)) {
        return [];
    }
    return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? listFiles(path, extension) : entry.name.endsWith(extension) ? [path] : [];
    }).sort();
}

function hint(word: string, candidates: Iterable<string>): string {
    const suggestion = didYouMean(word, candidates);
    return suggestion ? ` (did you mean "${suggestion}"?)` : '';
}

function loadRoles(layers: ConfigLayer[], issues: ConfigIssue[]): Map<string, Role & { file: ConfigFile }> {
    const roles = new Map<string, Role & { file: ConfigFile }>();
    for (const layer of layers) {
        for (const file of readConfigFiles(layer, layer.rolesDir, '.json')) {
            const parsed = readJson(file);
            issues.push(...parsed.issues);
            if (parsed.value === undefined) {
                continue;
            }
            const result = RoleSchema.safeParse(parsed.value);
            if (!result.success) {
                issues.push(...schemaIssues(file, result.error, keysOf(RoleSchema)));
                continue;
            }
            roles.set(result.data.id, { ...result.data, file });
        }
    }
    return roles;
}

function loadProviders(layers: ConfigLayer[], issues: ConfigIssue[]): Map<string, LoadedProvider> {
    const providers = new Map<string, LoadedProvider>();
    for (const layer of layers) {
        const seen = new Map<string, ConfigFile>();
        for (const file of readConfigFiles(layer, layer.providersDir, '.toml')) {
            const parsed = loadTomlFile(file, 'provider', ProviderInstanceSchema, keysOf(ProviderInstanceSchema));
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
            providers.set(instance.name, { instance, url, file });
        }
    }
    return providers;
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
    return [];
}

interface MergedAgent {
    table: Table;
    /** Which file each field path came from, for line numbers. */
    origin: Map<string, ConfigFile>;
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
    for (const source of chain.reverse()) {
        const own: Table = { ...source.raw };
        delete own.abstract;
        delete own.extends;
        table = deepMerge(table, own);
        for (const path of leafPaths(own)) {
            origin.set(path.join('.'), source.file);
        }
    }
    return { table, origin };
}

function lineOf(merged: MergedAgent, fallback: ConfigFile, path: readonly (string | number)[]): { file: ConfigFile; line?: number } {
    for (let depth = path.length; depth > 0; depth--) {
        const file = merged.origin.get(path.slice(0, depth).join('.'));
        if (file) {
            return { file, line: findKeyLine(file.text, path.slice(0, depth)) };
        }
    }
    return { file: fallback, line: undefined };
}

function resolveAgent(
    name: string, source: AgentSource, merged: MergedAgent, providers: Map<string, LoadedProvider>,
    modelOverrides: Record<string, string>, environment: nunjucks.Environment, issues: ConfigIssue[]
): ResolvedAgent | undefined {
    const report = (path: readonly (string | number)[], message: string, fix?: string) => {
        const where = lineOf(merged, source.file, path);
        issues.push({
            severity: 'error', file: source.file.label, line: where.file === source.file ? where.line : undefined,
            field: path.join('.') || undefined,
            message: where.file === source.file ? message : `${message} (set in ${where.file.label}${where.line ? `:${where.line}` : ''})`, fix
        });
    };
    const checked = ConcreteAgentSchema.safeParse(merged.table);
    if (!checked.success) {
        for (const issue of checked.error.issues) {
            const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
            const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
            report(path, missing ? `concrete agent is missing "${path.join('.')}"` : issue.message,
                missing ? `set ${path.join('.')} here or in the profile it extends, or mark the profile abstract = true` : undefined);
        }
        return undefined;
    }
    const profile = checked.data;
    const provider = providers.get(profile.provider_instance);
    if (!provider) {
        report(['provider_instance'], `unknown provider instance "${profile.provider_instance}"${hint(profile.provider_instance, providers.keys())}`,
            'fix the name, or add a provider file in providers/');
        return undefined;
    }
    const info = CLIENT_API_INFO[provider.instance.client_api];
    const protocol = profile.endpoint === info.fimEndpoint && info.fimProtocol ? info.fimProtocol : info.chatProtocol;
    const model = modelOverrides[name] ?? profile.model;

    let systemPrompt: nunjucks.Template;
    let body: BodyTemplate;
    try {
        systemPrompt = new nunjucks.Template(profile.system_prompt ?? '', environment, `${name}:system_prompt`, true);
    } catch (error) {
        report(['system_prompt'], `system_prompt template: ${cleanMessage(error)}`, 'fix the template syntax');
        return undefined;
    }
    try {
        body = BodyTemplate.compile(profile.body, environment, name);
    } catch (error) {
        reportTemplateError(error, report);
        return undefined;
    }
    const agentFacts = { name, enable_tools: profile.enable_tools ?? false, enable_thinking: profile.enable_thinking ?? false, context_window: profile.context_window };
    const agent: ResolvedAgent = {
        name, description: profile.description, file: source.file, provider, model, endpoint: profile.endpoint,
        url: endpointUrl(provider.url, profile.endpoint, model), protocol,
        enableTools: agentFacts.enable_tools, enableThinking: agentFacts.enable_thinking, contextWindow: profile.context_window,
        match: { file: profile.match?.file ?? [], path: profile.match?.path ?? [], project: profile.match?.project ?? [] },
        renderSystemPrompt: () => renderSync(systemPrompt, { model, agent: agentFacts }).trim(),
        renderBody: ctx => body.render({ ctx, model, agent: agentFacts, tools: ctx.tools } satisfies TemplateVariablesFor)
    };

    // Load-time proof: the profile renders against a context that exercises every branch, and the result has the protocol's shape.
    let systemText: string;
    try {
        systemText = agent.renderSystemPrompt();
    } catch (error) {
        report(['system_prompt'], `system_prompt template: ${cleanMessage(error)}`, /unknown role/.test(cleanMessage(error)) ? 'create the role in roles/ or fix the id' : 'fix the template');
        return undefined;
    }
    let rendered: Record<string, unknown>;
    try {
        rendered = agent.renderBody({ ...syntheticContext(), system_prompt: systemText || syntheticContext().system_prompt });
    } catch (error) {
        reportTemplateError(error, report);
        return undefined;
    }
    const shape = REQUEST_SHAPES[protocol].safeParse(rendered);
    if (!shape.success) {
        for (const issue of shape.error.issues) {
            const path = ['body', ...issue.path.filter((part): part is string | number => typeof part !== 'symbol')];
            report(path.slice(0, 2), `rendered request is not a valid ${protocol} request at ${path.join('.')}: ${issue.message}`,
                'compare the [body] with the protocol\'s request format; the bundled base profiles show a working shape');
        }
        return undefined;
    }
    return agent;
}

function cleanMessage(error: unknown): string {
    return String((error as Error)?.message ?? error).replace(/^\(.*?\)\s*/, '').replace(/\s*\n\s*/g, ' ')
        .replace(/^Template render error:\s*(\(.*?\)\s*)?/, '').replace(/^Error:\s*/, '').trim();
}

function reportTemplateError(error: unknown, report: (path: readonly (string | number)[], message: string, fix?: string) => void): void {
    if (error instanceof BodyTemplateError) {
        const line = error.templateLine !== undefined ? ` (template line ${error.templateLine})` : '';
        report(['body', ...error.field.split('.').slice(0, 1)], `body.${error.field}: ${cleanMessage(error)}${line}`, error.fix);
    } else {
        report(['body'], `body: ${cleanMessage(error)}`, 'fix the template');
    }
}

function loadRosters(layers: ConfigLayer[], agents: Map<string, ResolvedAgent>, abstractAgents: Set<string>, issues: ConfigIssue[]): Record<Pipeline, string[]> {
    const rosters: Record<Pipeline, string[]> = { completion: [], chat: [], compression: [], refactor: [] };
    for (const layer of layers) {
        const path = `${layer.agentsDir}/rosters.toml`;
        let file: ConfigFile;
        try {
            file = readConfigFile(layer, path);
        } catch {
            continue;
        }
        const parsed = loadTomlFile(file, 'rosters', RostersFileSchema, keysOf(RostersFileSchema));
        issues.push(...parsed.issues);
        if (!parsed.value) {
            continue;
        }
        for (const pipeline of PIPELINES) {
            const entry = parsed.value[pipeline];
            if (!entry) {
                continue;
            }
            rosters[pipeline] = entry.agents.filter(name => {
                if (agents.has(name)) {
                    return true;
                }
                const why = abstractAgents.has(name) ? `"${name}" is abstract and cannot run` : `unknown agent "${name}"${hint(name, agents.keys())}`;
                issues.push({ severity: 'error', file: file.label, line: findKeyLine(file.text, [pipeline, 'agents']), field: `${pipeline}.agents`, message: `${pipeline} roster: ${why}`, fix: 'remove it from the list or fix the name' });
                return false;
            });
        }
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
        const parsed = readJson(file);
        issues.push(...parsed.issues);
        if (parsed.value === undefined) {
            continue;
        }
        const result = AgentModelsSchema.safeParse(parsed.value);
        if (!result.success) {
            issues.push(...schemaIssues(file, result.error, () => []));
            continue;
        }
        Object.assign(overrides, result.data);
    }
    return overrides;
}
