import {
    AcpAgentTest, acpAgentStatus, testAcpAgent, qodeassistHome, allowKeyOrigin, LimitOverrides, CLIENT_API_INFO, CLIENT_APIS, ClientApi, createBuiltinTools, effectiveProfileText, ResolvedAgent, environmentVariableFor, SkillsEngine, pickAgent, RoleSchema, writeFileAtomic, listModels, gatewayHeadersFor, needsKey, Pipeline, PIPELINES, providerFileText, QodeAssistError, SecretsStore,
    syntheticContext, toErrorInfo, withRoster, WritableSecretsStore, projectLayerEntries, untrustedProjectNotice, skillRootsFor,
    detectSandbox, howToEnableSandbox, sandboxLabel, projectOverrideNotice, AcpRegistryCatalogue, bundledRegistrySnapshot, registryCacheFile, writeRegistryAgent
} from '@qodeassist/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChatSkillSettings } from '../common/chat-protocol';
import {
    ConfigOverview, ProjectTrustState, ProviderTest, QodeAssistConfigClient, QodeAssistConfigService, RegistryAgentsState, SandboxSummary, SetupChoice, SetupPreset, SetupState
} from '../common/config-protocol';
import { QodeAssistConfiguration, QodeAssistSecretsStore, QodeAssistWritableSecrets } from './backend-symbols';
import { ConfigurationProvider, isProjectLayerLoaded } from './workspace-configurations';
import { SETUP_PRESETS } from './quick-setup';
import { McpHubs } from './mcp-service-impl';
import { TheiaHostModels } from './theia-host-models';
import { WorkspaceTrustRegistry } from './workspace-trust';
import { ConnectionLimitOverrides } from './limit-overrides';

/** The configuration view's backend: what is loaded, live provider checks, keys, and the file edits it offers. */
@injectable()
export class QodeAssistConfigServiceImpl implements QodeAssistConfigService {
    private client: QodeAssistConfigClient | undefined;
    private readonly watching = new Map<string, () => void>();

    constructor(
        @inject(QodeAssistSecretsStore) private readonly secrets: SecretsStore,
        @inject(QodeAssistWritableSecrets) private readonly writableSecrets: WritableSecretsStore,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider,
        @inject(McpHubs) @optional() private readonly mcp?: McpHubs,
        @inject(TheiaHostModels) @optional() private readonly hostModels?: TheiaHostModels,
        @inject(WorkspaceTrustRegistry) @optional() private readonly trust?: WorkspaceTrustRegistry,
        @inject(ConnectionLimitOverrides) @optional() private readonly limits?: ConnectionLimitOverrides,
        @inject(AcpRegistryCatalogue) @optional() private acpRegistry?: AcpRegistryCatalogue
    ) { }

    async setLimitOverrides(overrides: LimitOverrides): Promise<void> {
        this.limits?.set(overrides);
    }

    async setWorkspaceTrust(workspacePath: string, trusted: boolean): Promise<ProjectTrustState> {
        this.trust?.setTrusted(workspacePath, trusted);
        return this.projectTrust(workspacePath);
    }

    async projectTrust(workspacePath: string | undefined): Promise<ProjectTrustState> {
        const trusted = isProjectLayerLoaded(this.configurations, workspacePath);
        const skipped = trusted ? [] : projectLayerEntries(workspacePath);
        if (trusted) {
            // Trusted, the project's files may replace the user's providers and rosters: never silently.
            const overrides = this.configurations.forWorkspace(workspacePath).current.projectOverrides;
            const notice = projectOverrideNotice(overrides);
            return { trusted, skipped, ...(notice ? { notice, overrides: overrides.map(override => override.message) } : {}) };
        }
        return { trusted, skipped, ...(skipped.length ? { notice: untrustedProjectNotice(skipped) } : {}) };
    }

    setClient(client: QodeAssistConfigClient | undefined): void {
        this.client = client;
    }

    async overview(workspacePath: string | undefined, skills?: ChatSkillSettings): Promise<ConfigOverview> {
        const service = this.configurations.forWorkspace(workspacePath);
        const key = workspacePath ?? '';
        if (!this.watching.has(key)) {
            this.watching.set(key, service.onDidChange(() => this.client?.onConfigurationChanged()));
        }
        const configuration = service.current;
        const providers = await Promise.all([...configuration.providers.values()].map(async provider => {
            const keyRef = provider.instance.api_key_ref ?? provider.instance.name;
            const hasKey = provider.instance.api_key_ref ? await this.secrets.get(keyRef).then(value => value !== undefined, () => false) : false;
            return {
                name: provider.instance.name, clientApi: provider.instance.client_api, url: provider.url, keyRef, keyVariable: environmentVariableFor(keyRef),
                keyState: hasKey ? 'set' as const : needsKey(provider.instance.client_api) || provider.instance.api_key_ref ? 'missing' as const : 'not-needed' as const,
                file: provider.file.label
            };
        }));
        const agents = [...configuration.agents.values()].map(agent => ({
            name: agent.name, description: agent.description, provider: agent.provider.instance.name, model: agent.model, file: agent.file.label,
            rosters: PIPELINES.filter(pipeline => configuration.rosters[pipeline].includes(agent.name))
        }));
        return {
            providers: providers.sort((a, b) => a.name.localeCompare(b.name)),
            agents: agents.sort((a, b) => a.name.localeCompare(b.name)),
            rosters: Object.fromEntries(PIPELINES.map(pipeline => [pipeline, [...configuration.rosters[pipeline]]])),
            issues: [...configuration.issues],
            clientApis: [...CLIENT_APIS],
            roles: [...configuration.roles.values()].map(role => ({
                id: role.id, name: role.name, description: role.description, systemPrompt: role.systemPrompt, file: role.file.label, bundled: role.file.label.startsWith('bundled:')
            })).sort((a, b) => a.name.localeCompare(b.name)),
            tools: this.toolsOf(workspacePath),
            ...this.skillsOf(workspacePath, skills),
            modelOverrides: { ...configuration.modelOverrides },
            projectFolder: workspacePath ? join(workspacePath, '.qodeassist') : undefined,
            // The user's own files (~/.qodeassist, ~/.claude) are shown under ~.
            pathRoots: [...(workspacePath ? [{ path: workspacePath, label: '' }] : []), { path: qodeassistHome(), label: '~' }],
            projectTrust: await this.projectTrust(workspacePath),
            sandbox: await this.sandboxOf(),
            externalAgents: await Promise.all([...configuration.acpAgents.values(), ...configuration.acpAwaitingConsent.values()].map(async entry => ({
                name: entry.name, layer: entry.layer, file: entry.file.label, enabled: entry.enabled,
                ...(entry.description ? { description: entry.description } : {}), ...(entry.homepage ? { homepage: entry.homepage } : {}),
                ...(configuration.acpAwaitingConsent.has(entry.name) && entry.consent ? { consent: entry.consent } : {}),
                ...await acpAgentStatus(entry, workspacePath ? [workspacePath] : [])
            })))
        };
    }

    /** Whether commands run sandboxed here (probed once per process). */
    protected async sandboxOf(): Promise<SandboxSummary> {
        const availability = await detectSandbox();
        return availability.kind === 'bubblewrap'
            ? { sandboxed: true, label: sandboxLabel(availability) }
            : { sandboxed: false, label: sandboxLabel(availability), howToEnable: howToEnableSandbox() };
    }

    async testExternalAgent(workspacePath: string | undefined, name: string): Promise<AcpAgentTest> {
        const configuration = this.configurations.forWorkspace(workspacePath).current;
        // A project's agent waiting for consent is refused by testAcpAgent without being started.
        const entry = configuration.acpAgents.get(name) ?? configuration.acpAwaitingConsent.get(name);
        return entry ? testAcpAgent(entry, workspacePath ? [workspacePath] : []) : { status: 'error', message: `There is no external agent "${name}".` };
    }

    async registryAgents(workspacePath: string | undefined, registryUrl: string | undefined, refresh = false): Promise<RegistryAgentsState> {
        const service = this.configurations.forWorkspace(workspacePath);
        const user = service.roots.user;
        const state = await this.registryOf(service.roots.bundledAgents).read(registryUrl, user ? registryCacheFile(user) : undefined, refresh);
        // A name any layer already defines is configured: the registry's entry would only shadow it.
        const configured = service.current.acpAgents;
        return {
            source: state.source, date: state.date, ...(state.notice ? { notice: state.notice } : {}),
            agents: state.offers.filter(offer => !configured.has(offer.id)).map(({ fileText: _file, ...offer }) => offer),
            problems: state.problems.map(problem => ({ ...(problem.id ? { id: problem.id } : {}), message: `${problem.message}; ${problem.fix}` })),
            ...(user ? {} : { cannotAdd: service.roots.userRefused ? `${service.roots.userRefused.message}; ${service.roots.userRefused.fix}` : 'There is no user configuration folder to add an agent to.' })
        };
    }

    async addRegistryAgent(workspacePath: string | undefined, registryUrl: string | undefined, id: string): Promise<string> {
        const service = this.configurations.forWorkspace(workspacePath);
        const user = service.roots.user;
        if (!user) {
            throw new QodeAssistError({ category: 'Config', message: 'There is no user configuration folder to add an agent to (see Problems).' });
        }
        const existing = service.current.acpAgents.get(id);
        if (existing) {
            throw new QodeAssistError({ category: 'Validation', message: `"${id}" is configured already (${existing.file.label}); edit that file, or add it there by hand.` });
        }
        // The entry as this backend read it: the view sends only the id, never a command.
        const offer = await this.registryOf(service.roots.bundledAgents).offer(registryUrl, registryCacheFile(user), id);
        if (!offer) {
            throw new QodeAssistError({ category: 'Validation', message: `The ACP registry lists no agent "${id}" (anymore); refresh the list.` });
        }
        const file = await writeRegistryAgent(user, offer);
        service.reload();
        return file;
    }

    private registryOf(bundledAgents: string): AcpRegistryCatalogue {
        this.acpRegistry ??= new AcpRegistryCatalogue({ snapshotFile: bundledRegistrySnapshot(bundledAgents) });
        return this.acpRegistry;
    }

    async grantExternalAgentConsent(workspacePath: string | undefined, name: string, fingerprint: string): Promise<boolean> {
        if (!workspacePath || !isProjectLayerLoaded(this.configurations, workspacePath)) {
            return false;
        }
        return this.configurations.forWorkspace(workspacePath).grantAcpConsent(name, fingerprint);
    }

    async testProvider(workspacePath: string | undefined, name: string, timeoutMs = 10_000): Promise<ProviderTest> {
        const provider = this.configurations.forWorkspace(workspacePath).current.providers.get(name);
        if (!provider) {
            return { status: 'error', message: `There is no provider "${name}".`, models: [] };
        }
        const ref = provider.instance.api_key_ref;
        const apiKey = ref ? await this.secrets.get(ref) : undefined;
        if (!apiKey && needsKey(provider.instance.client_api)) {
            return { status: 'needs-key', message: `No key: set one here, or the environment variable ${environmentVariableFor(ref ?? name)} where QodeAssist runs.`, models: [] };
        }
        return this.listFor(provider.instance.client_api as ClientApi, provider.url, apiKey, timeoutMs);
    }

    /** Lists a provider's models: reachable with the list, or why not. */
    private async listFor(api: ClientApi, url: string, apiKey: string | undefined, timeoutMs: number): Promise<ProviderTest> {
        try {
            const models = await listModels(api, { baseUrl: url, apiKey, timeoutMs, hostModels: this.hostModels, headers: gatewayHeadersFor(url) });
            return { status: 'reachable', message: `${models.length} model(s)`, models: models.map(model => model.id) };
        } catch (error) {
            const info = toErrorInfo(error);
            const status = info.category === 'Auth' ? 'needs-key' : info.category === 'Network' ? 'unreachable' : 'error';
            return { status, message: info.message, models: [] };
        }
    }

    async setKey(ref: string, value: string): Promise<string | undefined> {
        if (!ref.trim() || !value.trim()) {
            throw new QodeAssistError({ category: 'Validation', message: 'Both the key name and the key are needed.' });
        }
        await this.writableSecrets.set(ref, value.trim());
        const variable = environmentVariableFor(ref);
        return process.env[variable]?.trim() ? `The environment variable ${variable} is set where QodeAssist runs; it wins over the stored key.` : undefined;
    }

    async clearKey(ref: string): Promise<void> {
        await this.writableSecrets.delete(ref);
    }

    async addProvider(workspacePath: string, provider: { name: string; clientApi: string; url?: string; keyRef?: string }): Promise<string> {
        const text = providerFileText({ name: provider.name, client_api: provider.clientApi, url: provider.url, api_key_ref: provider.keyRef });
        const folder = join(workspacePath, '.qodeassist', 'providers');
        const file = join(folder, `${provider.name.trim()}.toml`);
        if (existsSync(file)) {
            throw new QodeAssistError({ category: 'Validation', message: `${file} exists already; edit it, or pick another name.` });
        }
        await mkdir(folder, { recursive: true });
        await writeFile(file, text, { flag: 'wx' });
        const keyRef = provider.keyRef?.trim();
        const loaded = this.configurations.forWorkspace(workspacePath).roots.user;
        if (keyRef && loaded) {
            // The user typed this URL for this key here: a project provider's key may go to it (ARCHITECTURE §7).
            await allowKeyOrigin(loaded, keyRef, provider.url?.trim() || CLIENT_API_INFO[provider.clientApi as ClientApi]?.defaultUrl || '').catch(() => undefined);
        }
        return file;
    }

    async saveRoster(workspacePath: string, pipeline: string, agents: string[]): Promise<void> {
        const file = join(workspacePath, '.qodeassist', 'agents', 'rosters.toml');
        const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
        await mkdir(join(workspacePath, '.qodeassist', 'agents'), { recursive: true });
        await writeFile(file, withRoster(current, pipeline as Pipeline, agents));
    }

    async saveRole(workspacePath: string, role: { id: string; name: string; description: string; systemPrompt: string }): Promise<string> {
        const parsed = RoleSchema.safeParse({ id: role.id.trim(), name: role.name.trim(), description: role.description.trim(), systemPrompt: role.systemPrompt.trim() });
        if (!parsed.success) {
            const issue = parsed.error.issues[0];
            throw new QodeAssistError({ category: 'Validation', message: `The role cannot be saved: ${issue.path.join('.') || 'it'} — ${issue.message}.` });
        }
        const folder = join(workspacePath, '.qodeassist', 'roles');
        await mkdir(folder, { recursive: true });
        const file = join(folder, `${parsed.data.id}.json`);
        await writeFileAtomic(file, `${JSON.stringify(parsed.data, undefined, 2)}\n`, 0o644);
        return file;
    }

    async deleteRole(workspacePath: string | undefined, id: string): Promise<void> {
        const role = this.configurations.forWorkspace(workspacePath).current.roles.get(id);
        if (!role) {
            throw new QodeAssistError({ category: 'Validation', message: `There is no role "${id}".` });
        }
        if (role.file.label.startsWith('bundled:')) {
            throw new QodeAssistError({ category: 'Validation', message: `"${role.name}" is bundled with QodeAssist and cannot be deleted; a project role with the id "${id}" replaces it.` });
        }
        await rm(role.file.path);
    }

    async setModelOverride(workspacePath: string | undefined, agent: string, model: string): Promise<void> {
        const service = this.configurations.forWorkspace(workspacePath);
        if (!service.current.agents.has(agent)) {
            throw new QodeAssistError({ category: 'Validation', message: `There is no agent "${agent}".` });
        }
        const user = service.roots.user;
        if (!user) {
            throw new QodeAssistError({ category: 'Validation', message: 'There is no user configuration folder to keep the override in.' });
        }
        const file = join(user, 'agent_models.json');
        let overrides: Record<string, string> = {};
        if (existsSync(file)) {
            try {
                overrides = JSON.parse(readFileSync(file, 'utf8'));
            } catch (error) {
                throw new QodeAssistError({ category: 'Config', message: `${file} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it first, nothing was changed.` });
            }
        }
        if (model.trim()) {
            overrides[agent] = model.trim();
        } else {
            delete overrides[agent];
        }
        await writeFileAtomic(file, `${JSON.stringify(overrides, undefined, 2)}\n`, 0o644);
        service.reload();
    }

    /** The skills the chat offers here with these settings, and the SKILL.md files it could not use. */
    private skillsOf(workspacePath: string | undefined, settings: ChatSkillSettings | undefined): Pick<ConfigOverview, 'skills' | 'skillIssues' | 'skillsOff'> {
        const roots = skillRootsFor(workspacePath, settings, isProjectLayerLoaded(this.configurations, workspacePath));
        if (!roots) {
            return { skills: [], skillIssues: [], skillsOff: true };
        }
        const engine = new SkillsEngine(roots, { workspace: workspacePath });
        try {
            return {
                skills: engine.all.map(skill => ({ name: skill.name, description: skill.description, path: skill.path, scope: skill.scope, alwaysOn: skill.alwaysOn })),
                skillIssues: [...engine.issues]
            };
        } finally {
            engine.dispose();
        }
    }

    /** Every tool a chat can be offered here, with its permission class: the built-in ToolKit and the MCP hub's. */
    private toolsOf(workspacePath: string | undefined): Array<{ name: string; description: string; permission: 'read' | 'write' | 'execute'; source: string }> {
        const builtin = createBuiltinTools({ workspace: workspacePath ?? process.cwd(), diagnostics: { get: async () => [] }, buildCommand: 'build' })
            .map(tool => ({ name: tool.name, description: tool.description.split('\n')[0], permission: tool.permission, source: 'built-in' }));
        const remote = (this.mcp?.hubFor(workspacePath).tools() ?? [])
            .map(tool => ({ name: tool.name, description: tool.description.split('\n')[0], permission: tool.permission, source: 'MCP' }));
        return [...builtin, ...remote];
    }

    async setupState(workspacePath: string | undefined): Promise<SetupState> {
        const configuration = this.configurations.forWorkspace(workspacePath).current;
        const presets = await Promise.all(SETUP_PRESETS.map(async preset => {
            const provider = configuration.providers.get(preset.provider);
            const ref = provider?.instance.api_key_ref;
            return {
                ...preset, url: provider?.url ?? '',
                ...(ref ? { keyVariable: environmentVariableFor(ref), keyFound: await this.secrets.get(ref).then(key => key !== undefined, () => false) } : { keyFound: false })
            };
        }));
        const agent = pickAgent(configuration, 'chat', {});
        if (!agent) {
            return { needed: true, reason: 'No chat agent is configured.', presets: await this.probePresets(workspacePath, presets) };
        }
        const test = await this.testProvider(workspacePath, agent.provider.instance.name, 3_000);
        return test.status === 'reachable'
            ? { needed: false, presets }
            : { needed: true, reason: `${agent.name}: ${test.message}`, presets: await this.probePresets(workspacePath, presets, agent.provider.instance.name) };
    }

    /**
     * Asks every preset that could answer now (a local server, or a cloud API whose key is found)
     * for its models, all at once and briefly: the card then offers the first one that answered,
     * not the one that just failed.
     */
    private async probePresets(workspacePath: string | undefined, presets: SetupPreset[], failedProvider?: string): Promise<SetupPreset[]> {
        return Promise.all(presets.map(async (preset): Promise<SetupPreset> => {
            if (preset.provider === failedProvider) {
                return { ...preset, failed: true };
            }
            if (!(preset.local || preset.keyFound)) {
                return { ...preset, probe: 'not-tried' };
            }
            const test = await this.testProvider(workspacePath, preset.provider, 2_000);
            return { ...preset, probe: test.status === 'reachable' ? 'answered' : 'no-answer' };
        }));
    }

    async applySetup(workspacePath: string | undefined, choice: SetupChoice): Promise<ProviderTest> {
        const preset = SETUP_PRESETS.find(candidate => candidate.id === choice.preset);
        const configurationService = this.configurations.forWorkspace(workspacePath);
        const provider = preset && configurationService.current.providers.get(preset.provider);
        if (!preset || !provider) {
            return { status: 'error', message: `There is no preset "${choice.preset}".`, models: [] };
        }
        const ref = provider.instance.api_key_ref;
        const url = choice.url?.trim() || provider.url;
        const key = choice.key?.trim() || (ref ? await this.secrets.get(ref) : undefined);
        if (!key && needsKey(provider.instance.client_api)) {
            return { status: 'needs-key', message: `Enter the ${preset.label} key (or set ${environmentVariableFor(ref ?? provider.instance.name)} where QodeAssist runs).`, models: [] };
        }
        const test = await this.listFor(provider.instance.client_api as ClientApi, url, key, 10_000);
        if (test.status !== 'reachable') {
            return test;
        }
        // It answers: keep the key and the URL, and put the preset's agents first for this user.
        if (choice.key?.trim() && ref) {
            await this.writableSecrets.set(ref, choice.key.trim());
        }
        const user = configurationService.roots.user;
        if (!user) {
            return { status: 'error', message: 'There is no user configuration folder to save the choice in.', models: [] };
        }
        if (preset.local && url !== provider.url) {
            await mkdir(join(user, 'providers'), { recursive: true });
            await writeFile(join(user, 'providers', `${preset.provider}.toml`), providerFileText({ name: preset.provider, client_api: provider.instance.client_api, url, api_key_ref: ref }));
        }
        const rostersFile = join(user, 'agents', 'rosters.toml');
        let rosters = existsSync(rostersFile) ? readFileSync(rostersFile, 'utf8') : '';
        const current = configurationService.current.rosters;
        for (const [pipeline, agent] of Object.entries(preset.agents) as Array<[Pipeline, string]>) {
            rosters = withRoster(rosters, pipeline, [agent, ...current[pipeline].filter(name => name !== agent)]);
        }
        await mkdir(join(user, 'agents'), { recursive: true });
        await writeFile(rostersFile, rosters);
        configurationService.reload();
        return test;
    }

    async agentPreview(workspacePath: string | undefined, name: string): Promise<string> {
        const agent = this.agentNamed(workspacePath, name);
        const context = syntheticContext();
        return JSON.stringify(agent.renderBody({ ...context, system_prompt: agent.renderSystemPrompt() || context.system_prompt }), undefined, 2);
    }

    async agentProfile(workspacePath: string | undefined, name: string): Promise<string> {
        const agent = this.agentNamed(workspacePath, name);
        return effectiveProfileText(agent.profile, this.configurations.forWorkspace(workspacePath).current.modelOverrides[name]);
    }

    private agentNamed(workspacePath: string | undefined, name: string): ResolvedAgent {
        const agent = this.configurations.forWorkspace(workspacePath).current.agents.get(name);
        if (!agent) {
            throw new QodeAssistError({ category: 'Validation', message: `There is no agent "${name}".` });
        }
        return agent;
    }

    dispose(): void {
        for (const stop of this.watching.values()) {
            stop();
        }
        this.watching.clear();
        this.client = undefined;
    }
}

