import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { AcpAgentEntry } from '../config/acp-agent-config';
import { gatewayHeaders, throughGateway } from '../config/gateway';
import { originOf } from '../config/key-origins';
import { agentChainRefusal, agentForbidden, MANAGED_LABEL, ManagedPolicy, originRefusal } from '../config/managed-policy';
import { ConfigFile } from '../config/config-file';
import { ConfigIssue, findKeyLine } from '../config/config-issue';
import { ConfigLayer, ConfigRoots, readConfigFile, rolesLinkedOut } from '../config/config-layers';
import { ProjectOverride } from '../config/project-trust';
import { ConfigurationSource, hint, lineOf, LoadedProvider, MergedAgent, readConfigurationSource } from '../config/configuration-source';
import { ConcreteAgentSchema, Pipeline, PIPELINES, Role } from '../config/schemas';
import { ModelPricing } from '../config/pricing';
import { agentPricing } from './agent-pricing';
import { BodyTemplate, BodyTemplateError, renderSync } from '../prompt/body-template';
import { AgentTemplateEnvironment, createTemplateEnvironment } from '../prompt/partial-loader';
import { compileSandboxedTemplate, SandboxedTemplate, TemplateEnvironment, TemplateSandboxError } from '../prompt/template-sandbox';
import { REQUEST_SHAPES } from '../prompt/request-shapes';
import { syntheticContext, TemplateContext, TemplateVariablesFor } from '../prompt/template-context';
import { CLIENT_API_INFO, endpointUrl } from '../wire/client-apis';
import { WireProtocolName } from '../wire/wire-protocols';
import { limitOverridesOfTable, LimitOverrides } from '../wire/request-limits';
import { launchIssues } from './launch-policy';
import { imageCapability } from './image-capability';

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
    /** Whether the chat may send it images: its [body] renders image blocks, unless `images = false` says the model takes none. */
    images: boolean;
    /** Headers every request carries besides the key's (gateway mode: the user's identity). */
    headers?: Readonly<Record<string, string>>;
    /** The price of its model (the agent's `[pricing]` entry, else its provider's); absent: no cost is shown. */
    pricing?: ModelPricing;
    contextWindow: number;
    /** The reply reserve the budget keeps free, read from the rendered body (max_tokens and its cousins). */
    maxOutputTokens: number;
    match: { file: string[]; path: string[]; project: string[] };
    /** The `[limits]` the profile sets (after extends); what it leaves out stays at the built-in default unless a setting overrides it. */
    limits: LimitOverrides;
    /** Pickers that offer this agent besides its rosters' (`pipelines` in the agent file). */
    pipelines: readonly Pipeline[];
    renderSystemPrompt(): string;
    /** The merged profile this agent was made from (fields, their files, the extends chain). */
    profile: MergedAgent;
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
    /** External coding agents (`acp/*.toml`), enabled or not; the chat offers the enabled ones whose program is found. */
    acpAgents: ReadonlyMap<string, AcpAgentEntry>;
    /** The project's external agents waiting for the user's consent (ConsentRegistry): listed, never started. */
    acpAwaitingConsent: ReadonlyMap<string, AcpAgentEntry>;
    /** What the trusted project's files replace of the user's or the bundled configuration, for the trust notice. */
    projectOverrides: readonly ProjectOverride[];
    /** What the administrator allows (QODEASSIST_MANAGED_DIR); absent: no managed folder. */
    policy?: ManagedPolicy;
    /** Agents the policy left out, with the rule in its words: a request for one says who and which rule, not "no such agent". */
    managedRefusals?: ReadonlyMap<string, string>;
    /** Every problem found, per file; one broken file never hides the others. */
    issues: readonly ConfigIssue[];
}

/**
 * Loads bundled, user and project configuration (L1), then compiles every template and
 * renders every concrete profile against a synthetic context, so that a configuration
 * error shows up here — with file, line, field and fix — and never as a failed send.
 */
export function loadConfiguration(roots: ConfigRoots): Configuration {
    return buildConfiguration(readConfigurationSource(roots));
}

/** AgentFactory: turns merged profiles into ready agents, and checks the rosters against them. */
export function buildConfiguration(source: ConfigurationSource): Configuration {
    const issues: ConfigIssue[] = [...source.issues];
    const { roles, modelOverrides } = source;
    const { providers, leftOut } = withoutDisabledProviders(source, issues);
    let profiles = source.agents;
    if (source.gateway) {
        const routing = throughGateway(providers, source.agents, source.gateway, issues);
        routing.leftOut.forEach(name => leftOut.add(name));
        profiles = routing.agents;
    }
    const managedRefusals = applyPolicy(source, providers, leftOut, issues);
    issues.push(...launchIssues(providers.values()));
    const environment = createTemplateEnvironment(source.layers.map(layer => layer.partialsDir));
    environment.addGlobal('agent_role', (id: string) => {
        const role = roles.get(id);
        if (!role) {
            throw new Error(`unknown role "${id}"${hint(id, roles.keys())}`);
        }
        return role.systemPrompt;
    });
    issues.push(...checkPartials(source.layers, environment), ...linkedOutFolders(source.layers, environment));
    const agents = new Map<string, ResolvedAgent>();
    const abstractAgents = new Set<string>();
    for (const [name, merged] of profiles) {
        if (merged.abstract) {
            abstractAgents.add(name);
            continue;
        }
        if (leftOut.has(name)) {
            continue;
        }
        const agent = resolveAgent(merged, providers, modelOverrides, environment, issues, source.layers.find(layer => layer.name === 'managed'));
        if (agent) {
            agents.set(name, source.gateway ? { ...agent, headers: gatewayHeaders(source.gateway) } : agent);
        }
    }
    for (const name of Object.keys(modelOverrides)) {
        if (!agents.has(name) && !abstractAgents.has(name) && !leftOut.has(name)) {
            issues.push({ severity: 'notice', file: 'agent_models.json', message: `model override for unknown agent "${name}"${hint(name, agents.keys())}`, fix: 'remove the entry or fix the name' });
        }
    }
    const rosters = checkRosters(source, agents, abstractAgents, leftOut, issues);
    // A project's `x@project` is forbidden by the policy's `acp:x` too.
    const allowedAcp = (entries: ReadonlyMap<string, AcpAgentEntry> = new Map()) => new Map([...entries]
        .filter(([name, entry]) => !agentForbidden(source.policy, `acp:${name}`) && !agentForbidden(source.policy, `acp:${entry.declaredName ?? name}`)));
    const acpAgents = allowedAcp(source.acpAgents);
    return {
        providers, agents, abstractAgents, roles, rosters, modelOverrides, acpAgents, acpAwaitingConsent: allowedAcp(source.acpAwaitingConsent),
        projectOverrides: source.projectOverrides ?? [], ...(source.policy ? { policy: source.policy, managedRefusals } : {}), issues
    };
}

/**
 * The administrator's policy: a provider whose URL origin is not allowed is left out with its
 * agents, and so is every forbidden agent — each with a notice saying it is managed by the
 * administrator (a user or project file cannot bring them back: the policy is applied last).
 */
function applyPolicy(source: ConfigurationSource, providers: Map<string, LoadedProvider>, leftOut: Set<string>, issues: ConfigIssue[]): Map<string, string> {
    const refusals = new Map<string, string>();
    const policy = source.policy;
    if (!policy) {
        return refusals;
    }
    const policyFile = policy.file?.label ?? policy.dir;
    const outside: string[] = [];
    for (const [name, provider] of providers) {
        const refusal = originRefusal(policy, provider.url);
        if (refusal === undefined) {
            continue;
        }
        providers.delete(name);
        for (const agent of source.agents.values()) {
            if (!agent.abstract && agent.table.provider_instance === name) {
                leftOut.add(agent.name);
                refusals.set(agent.name, `its provider "${name}" is at ${originOf(provider.url) ?? provider.url}: ${refusal}`);
            }
        }
        outside.push(`${name} (${originOf(provider.url) ?? provider.url})`);
    }
    if (outside.length > 0) {
        // One notice for them all: an administrator who allows one gateway leaves out every bundled provider.
        issues.push({
            severity: 'notice', file: policyFile, field: 'allowed_origins',
            message: `${outside.length === 1 ? 'provider' : `${outside.length} providers`} ${MANAGED_LABEL}: their URL origins are not among the allowed ones, so they and their agents are left out: ${outside.join(', ')}`,
            fix: 'ask your administrator to allow an origin, or use a provider at an allowed one'
        });
    }
    // An agent's extends chain by name (its own first): forbidding an agent forbids every agent built on it.
    const names = new Map([...source.agents.values()].map(agent => [agent.file, agent.name]));
    for (const agent of source.agents.values()) {
        if (agent.abstract || leftOut.has(agent.name)) {
            continue;
        }
        const chain = [agent.name, ...agent.chain.slice(0, -1).reverse().map(file => names.get(file) ?? '')].filter(Boolean);
        const refusal = agentChainRefusal(policy, chain);
        if (refusal !== undefined) {
            leftOut.add(agent.name);
            refusals.set(agent.name, refusal);
            issues.push({ severity: 'notice', file: policyFile, field: 'forbidden_agents', message: `agent "${agent.name}" is ${MANAGED_LABEL}: it may not be used (${refusal})` });
        }
    }
    return refusals;
}

/** How many agent names a disabled provider's notice lists before it only counts the rest. */
const LISTED_AGENTS = 8;

/** `enabled = false`: the provider and every concrete agent on it are left out, rosters included, with one notice on its file. */
function withoutDisabledProviders(source: ConfigurationSource, issues: ConfigIssue[]): { providers: Map<string, LoadedProvider>; leftOut: Set<string> } {
    const providers = new Map(source.providers);
    const leftOut = new Set<string>();
    for (const [name, provider] of source.providers) {
        if (provider.instance.enabled !== false) {
            continue;
        }
        providers.delete(name);
        const agents = [...source.agents.values()].filter(agent => !agent.abstract && agent.table.provider_instance === name).map(agent => agent.name);
        agents.forEach(agent => leftOut.add(agent));
        if (provider.layer === 'bundled' && agents.length === 0) {
            // A bundled template to copy (openai-compatible): off by design, nothing to tell.
            continue;
        }
        const listed = agents.length > LISTED_AGENTS ? `${agents.slice(0, LISTED_AGENTS).join(', ')} and ${agents.length - LISTED_AGENTS} more` : agents.join(', ');
        issues.push({
            severity: 'notice', file: provider.file.label, line: findKeyLine(provider.file.text, ['enabled']), field: 'enabled',
            message: `provider "${name}" is disabled (enabled = false): it and its agents are left out of every roster${agents.length ? ` (${listed})` : ''}`,
            fix: 'remove enabled = false, or set it to true, to use them again'
        });
    }
    return { providers, leftOut };
}

/** Compiles every partial once, so a syntax error is reported against the partial's own file and line. */
function checkPartials(layers: ConfigLayer[], environment: AgentTemplateEnvironment): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    const refused = new Set(environment.refusedRoots.map(root => root.root));
    for (const layer of layers) {
        // A refused root (a link out of its layer) is not walked: it may point at /proc or a home folder.
        for (const path of refused.has(layer.partialsDir) ? [] : listFiles(layer.partialsDir, '.njk')) {
            const name = relative(layer.partialsDir, path).split(sep).join('/');
            try {
                environment.getTemplate(name);
            } catch (error) {
                if (error instanceof TemplateSandboxError) {
                    issues.push({ severity: 'error', file: readConfigFile(layer, path).label, line: error.line, message: `partial "${name}": ${error.reason}`, fix: error.fix });
                    continue;
                }
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

/** A notice for each partials or roles folder that a link takes out of its layer's folder: it is not read. */
function linkedOutFolders(layers: ConfigLayer[], environment: AgentTemplateEnvironment): ConfigIssue[] {
    const issues: ConfigIssue[] = environment.refusedRoots.map(refused => ({ severity: 'notice', file: refused.root, message: refused.reason, fix: refused.fix }));
    for (const layer of layers) {
        const real = rolesLinkedOut(layer);
        if (real) {
            issues.push({
                severity: 'notice', file: layer.rolesDir,
                message: `the roles folder ${layer.rolesDir} resolves to ${real}, outside its configuration folder ${dirname(layer.rolesDir)}; it is not used`,
                fix: `make ${layer.rolesDir} a real folder inside ${dirname(layer.rolesDir)}, not a link elsewhere`
            });
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

function resolveAgent(
    merged: MergedAgent, providers: ReadonlyMap<string, LoadedProvider>,
    modelOverrides: Record<string, string>, environment: TemplateEnvironment, issues: ConfigIssue[], managed: ConfigLayer | undefined
): ResolvedAgent | undefined {
    const { name } = merged;
    const source = { file: merged.file };
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
    const raw = profile.endpoint === info.fimEndpoint || (info.rawEndpoints ?? []).includes(profile.endpoint);
    const protocol = raw && info.fimProtocol ? info.fimProtocol : info.chatProtocol;
    const model = modelOverrides[name] ?? profile.model;

    let systemPrompt: SandboxedTemplate;
    let body: BodyTemplate;
    try {
        systemPrompt = compileSandboxedTemplate(profile.system_prompt ?? '', environment, `${name}:system_prompt`);
    } catch (error) {
        report(['system_prompt'], `system_prompt template: ${cleanMessage(error)}${sandboxLine(error)}`, error instanceof TemplateSandboxError ? error.fix : 'fix the template syntax');
        return undefined;
    }
    try {
        body = BodyTemplate.compile(profile.body, environment, name);
    } catch (error) {
        reportTemplateError(error, report);
        return undefined;
    }
    const priced = agentPricing(merged, model, profile.pricing, provider, providers, managed ? dirname(managed.agentsDir) : undefined);
    if (priced.setAside) {
        const where = lineOf(merged, source.file, ['pricing', model]);
        issues.push({ severity: 'notice', file: where.file.label, line: where.line, field: `pricing.${model}`, message: `agent "${name}": ${priced.setAside}` });
    }
    const agentFacts = { name, enable_tools: profile.enable_tools ?? false, enable_thinking: profile.enable_thinking ?? false, context_window: profile.context_window };
    const agent: ResolvedAgent = {
        name, description: profile.description, file: source.file, provider, model, endpoint: profile.endpoint,
        url: endpointUrl(provider.url, profile.endpoint, model), protocol,
        enableTools: agentFacts.enable_tools, enableThinking: agentFacts.enable_thinking, images: false,
        ...withPricing(priced.pricing),
        contextWindow: profile.context_window, maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
        match: { file: profile.match?.file ?? [], path: profile.match?.path ?? [], project: profile.match?.project ?? [] },
        limits: limitOverridesOfTable(profile.limits),
        // "next-edit" reads better in an agent file; the roster's TOML key is next_edit.
        pipelines: (profile.pipelines ?? []).map(pipeline => pipeline === 'next-edit' ? 'next_edit' : pipeline),
        profile: merged,
        renderSystemPrompt: () => renderSync(systemPrompt, { model, agent: agentFacts }).trim(),
        renderBody: ctx => body.render({
            ctx, model, agent: ctx.thinking === undefined ? agentFacts : { ...agentFacts, enable_thinking: ctx.thinking }, tools: ctx.tools
        } satisfies TemplateVariablesFor)
    };

    // Load-time proof: the profile renders against a context that exercises every branch, and the result has the protocol's shape.
    let systemText: string;
    try {
        systemText = agent.renderSystemPrompt();
    } catch (error) {
        report(['system_prompt'], `system_prompt template: ${cleanMessage(error)}${sandboxLine(error)}`, error instanceof TemplateSandboxError ? error.fix
            : /unknown role/.test(cleanMessage(error)) ? 'create the role in roles/ or fix the id' : 'fix the template');
        return undefined;
    }
    let rendered: Record<string, unknown>;
    try {
        const synthetic = syntheticContext();
        rendered = agent.renderBody({ ...synthetic, system_prompt: systemText || synthetic.system_prompt });
    } catch (error) {
        reportTemplateError(error, report);
        return undefined;
    }
    agent.maxOutputTokens = maxOutputTokensOf(rendered) ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, Math.floor(profile.context_window / 4));
    const images = imageCapability(rendered, profile.images);
    agent.images = images.takes;
    if (images.problem) {
        const where = lineOf(merged, source.file, ['images']);
        issues.push({ severity: 'notice', file: where.file.label, line: where.line, field: 'images', message: `agent "${name}": ${images.problem.message}`, fix: images.problem.fix });
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

const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

function withPricing(pricing: ModelPricing | undefined): { pricing?: ModelPricing } {
    return pricing ? { pricing } : {};
}

/** The reply limit a body sets, under whichever name its protocol uses. */
export function maxOutputTokensOf(body: Record<string, unknown>): number | undefined {
    const nested = (key: string) => (body[key] && typeof body[key] === 'object' ? body[key] as Record<string, unknown> : {});
    const candidates = [
        body.max_tokens, body.max_completion_tokens, body.max_output_tokens, body.n_predict,
        nested('generationConfig').maxOutputTokens, nested('options').num_predict
    ];
    const value = candidates.find(candidate => typeof candidate === 'number' && candidate > 0);
    return value as number | undefined;
}

/** Where in a multi-line system_prompt the sandbox refused something (a partial's line is already in the message). */
function sandboxLine(error: unknown): string {
    return error instanceof TemplateSandboxError && error.partial === undefined && error.line !== undefined ? ` (template line ${error.line})` : '';
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

function checkRosters(
    source: ConfigurationSource, agents: Map<string, ResolvedAgent>, abstractAgents: Set<string>, leftOut: ReadonlySet<string>, issues: ConfigIssue[]
): Record<Pipeline, string[]> {
    const rosters: Record<Pipeline, string[]> = { completion: [], chat: [], compression: [], refactor: [], next_edit: [] };
    for (const pipeline of PIPELINES) {
        const { agents: names, file } = source.rosters[pipeline];
        rosters[pipeline] = names.filter(name => {
            if (agents.has(name)) {
                return true;
            }
            if (leftOut.has(name)) {
                // Its provider is disabled: that provider's notice already says so.
                return false;
            }
            const why = abstractAgents.has(name) ? `"${name}" is abstract and cannot run` : `unknown agent "${name}"${hint(name, agents.keys())}`;
            issues.push({
                severity: 'error', file: file?.label ?? 'rosters.toml', line: file ? findKeyLine(file.text, [pipeline, 'agents']) : undefined,
                field: `${pipeline}.agents`, message: `${pipeline} roster: ${why}`, fix: 'remove it from the list or fix the name'
            });
            return false;
        });
    }
    return rosters;
}
