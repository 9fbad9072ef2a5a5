import type { ChatSkillSettings } from './chat-protocol';
import type { AcpAgentTest, ConfigIssue, ConsentDetails, LimitOverrides } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';

export type { AcpAgentTest, ConfigIssue, ConsentDetails, LimitOverrides };

/** An external coding agent (`acp/*.toml`) as the configuration view lists it. */
export interface ExternalAgentSummary {
    name: string;
    description?: string;
    /** The layer and file it comes from (`managed`: the administrator's). */
    layer: 'bundled' | 'user' | 'project' | 'managed';
    file: string;
    /** The command line it runs (long arguments cut, key shapes masked). */
    commandLine: string;
    enabled: boolean;
    /** Where its program was found (outside the workspace), when it was. */
    installedAt?: string;
    /** Why it cannot start now, with how to install it. */
    problem?: string;
    /** Gateway mode, and it cannot be pointed at the gateway (`problem` says why): shown as unavailable, not as missing. */
    unavailableInGateway?: boolean;
    homepage?: string;
    /** A project's agent (`<name>@project`) waiting for the user's consent: what to show before allowing it. */
    consent?: ConsentDetails;
}

/** An agent of the ACP registry as the configuration view offers it (see AcpRegistryOffer in core). */
export interface RegistryAgentSummary {
    id: string;
    name: string;
    version?: string;
    description?: string;
    repository?: string;
    distribution: 'npx' | 'uvx' | 'binary';
    /** What the user can copy: the command line (npx, uvx) or the archive's URL (binary). */
    installCommand: string;
    installNote: string;
    /** Set when it is listed but cannot be added here, with why. */
    notOffered?: string;
}

/** The ACP registry's agents not yet configured, and where the list comes from. */
export interface RegistryAgentsState {
    source: 'registry' | 'cache' | 'snapshot';
    /** The snapshot's date, or when the index was fetched. */
    date: string;
    /** "offline: showing the bundled snapshot from …" when the registry's own index is not shown. */
    notice?: string;
    agents: RegistryAgentSummary[];
    /** Entries the index holds that could not be read (each skipped), with why. */
    problems: Array<{ id?: string; message: string }>;
    /** No user folder to add an agent to (the state dir is refused): why. */
    cannotAdd?: string;
}

export const QODEASSIST_CONFIG_PATH = '/services/qodeassist/config';

export interface ProviderSummary {
    name: string;
    clientApi: string;
    url: string;
    /** The secret ref, and the environment variable that can hold it. */
    keyRef: string;
    keyVariable: string;
    /** `set` somewhere QodeAssist reads keys from; `missing` when the API needs one or the file names one; `not-needed` for local servers without a ref. */
    keyState: 'set' | 'missing' | 'not-needed';
    /** Where the file is (an absolute path, or `bundled:…`). */
    file: string;
}

export interface AgentSummary {
    name: string;
    description?: string;
    provider: string;
    model: string;
    file: string;
    rosters: string[];
}

export interface RoleSummary {
    id: string;
    name: string;
    description: string;
    systemPrompt: string;
    file: string;
    /** Bundled roles are read-only: copy one into .qodeassist/roles to change it. */
    bundled: boolean;
}

export interface ToolSummary {
    name: string;
    description: string;
    permission: 'read' | 'write' | 'execute';
    /** `built-in`, or the MCP server it comes from. */
    source: string;
}

export interface SkillSummary {
    name: string;
    description: string;
    path: string;
    scope: 'project' | 'user';
    alwaysOn: boolean;
}

export interface ConfigOverview {
    providers: ProviderSummary[];
    agents: AgentSummary[];
    rosters: Record<string, string[]>;
    issues: ConfigIssue[];
    clientApis: string[];
    roles: RoleSummary[];
    tools: ToolSummary[];
    skills: SkillSummary[];
    /** SKILL.md files that could not be used, with the reason. */
    skillIssues: Array<{ path: string; message: string }>;
    /** `qodeassist.skills.enabled` is off: the chat offers no skills. */
    skillsOff?: boolean;
    /** Agent → model, from the user's agent_models.json (the model override). */
    modelOverrides: Record<string, string>;
    /** Where a new provider file goes. */
    projectFolder?: string;
    /** The folders the view shows paths relative to: the workspace (label '') and the home folder (`~`). */
    pathRoots?: Array<{ path: string; label: string }>;
    /** Whether the project layer is read (the workspace is trusted), and what is skipped while not. */
    projectTrust?: ProjectTrustState;
    /** The external agents of every layer (a project's only in a trusted workspace). */
    externalAgents?: ExternalAgentSummary[];
    /** Where the tools' commands run: sandboxed (bubblewrap) or not, with how to enable it. */
    sandbox?: SandboxSummary;
}

export interface SandboxSummary {
    sandboxed: boolean;
    /** As a command's tool result header names it. */
    label: string;
    /** Not sandboxed: what the user can do about it. */
    howToEnable?: string;
}

export interface ProviderTest {
    status: 'reachable' | 'needs-key' | 'unreachable' | 'error';
    message: string;
    models: string[];
}

/** A ready-made provider the Quick Setup offers: a bundled provider and the bundled agents that use it. */
export interface SetupPreset {
    id: string;
    label: string;
    /** The bundled provider instance. */
    provider: string;
    url: string;
    /** Local servers: the URL may be changed. */
    local: boolean;
    /** The key variable, for presets that need a key. */
    keyVariable?: string;
    /** The key is already set where QodeAssist runs. */
    keyFound: boolean;
    /** What a quick check found just now (only while the setup is needed): it answered, it did not, or it was not tried (no key). */
    probe?: 'answered' | 'no-answer' | 'not-tried';
    /** The chat's agent that just failed is on this preset's provider. */
    failed?: boolean;
    /** Agents put first in each roster when the preset is chosen. */
    agents: Partial<Record<'chat' | 'completion' | 'refactor' | 'compression', string>>;
}

export interface SetupState {
    /** No chat agent can answer: the chat shows the setup card. */
    needed: boolean;
    reason?: string;
    presets: SetupPreset[];
}

export interface SetupChoice {
    preset: string;
    /** A different URL for a local server. */
    url?: string;
    /** A key to store (presets that need one and have none). */
    key?: string;
}

export const QodeAssistConfigService = Symbol('QodeAssistConfigService');

/** Whether the workspace's own configuration is read; what it holds that is left unread until the user trusts it. */
export interface ProjectTrustState {
    trusted: boolean;
    /** Project-layer entries present but not read (e.g. `.qodeassist/agents`, `.claude/skills`). */
    skipped: string[];
    /**
     * "project configuration not loaded: workspace not trusted (…)", when something was skipped;
     * for a trusted workspace, "this project's configuration replaces yours: …" when it does.
     */
    notice?: string;
    /** A trusted project's replacements of the user's (or bundled) providers at other URLs and rosters, one sentence each. */
    overrides?: string[];
}

export interface QodeAssistConfigService extends RpcServer<QodeAssistConfigClient> {
    /**
     * A window reports Theia's workspace trust for a workspace folder: the project layer
     * (agents, providers, skills, MCP servers, …) is read only while it is trusted.
     */
    setWorkspaceTrust(workspacePath: string, trusted: boolean): Promise<ProjectTrustState>;
    projectTrust(workspacePath: string | undefined): Promise<ProjectTrustState>;
    /**
     * The window's limit settings (`qodeassist.limits.*`, the user's scope only), sent at start and
     * on every change; its requests use them over the agents' `[limits]`. Absent or 0: not set.
     */
    setLimitOverrides(overrides: LimitOverrides): Promise<void>;
    /** Skills as the chat finds them with these settings (`qodeassist.skills.*`); the default folders without. */
    overview(workspacePath: string | undefined, skills?: ChatSkillSettings): Promise<ConfigOverview>;
    /** Lists the provider's models live: reachable with the list, or why not. */
    testProvider(workspacePath: string | undefined, provider: string): Promise<ProviderTest>;
    /** Test of an external agent: starts it, runs the initialize handshake (protocol, name, version, capabilities) and stops it. */
    testExternalAgent(workspacePath: string | undefined, name: string): Promise<AcpAgentTest>;
    /**
     * Records the user's consent to a project's external agent, if the workspace is trusted and
     * `fingerprint` is that of its entry as the file says now; false otherwise (nothing recorded).
     */
    grantExternalAgentConsent(workspacePath: string | undefined, name: string, fingerprint: string): Promise<boolean>;
    /**
     * The ACP registry's agents not already configured: from `registryUrl` (the user's
     * qodeassist.acp.registryUrl; empty: not asked) when it answers, else the last index fetched,
     * else the bundled snapshot. `refresh` asks the registry again now.
     */
    registryAgents(workspacePath: string | undefined, registryUrl: string | undefined, refresh?: boolean): Promise<RegistryAgentsState>;
    /** Writes the registry agent `id` as the user's `acp/<id>.toml` (never the workspace's; never over an existing file); returns the file. */
    addRegistryAgent(workspacePath: string | undefined, registryUrl: string | undefined, id: string): Promise<string>;
    /** Stores a key in the user's secrets file (owner-only); returns a note when an environment variable overrides it. */
    setKey(ref: string, value: string): Promise<string | undefined>;
    clearKey(ref: string): Promise<void>;
    /** Writes `.qodeassist/providers/<name>.toml` in the workspace; an existing file is never replaced. */
    addProvider(workspacePath: string, provider: { name: string; clientApi: string; url?: string; keyRef?: string }): Promise<string>;
    /** Rewrites one roster in the workspace's `.qodeassist/agents/rosters.toml`, keeping the rest of the file. */
    saveRoster(workspacePath: string, pipeline: string, agents: string[]): Promise<void>;
    /** Writes `.qodeassist/roles/<id>.json` in the workspace (a new role, or a project copy of a bundled or user one). */
    saveRole(workspacePath: string, role: { id: string; name: string; description: string; systemPrompt: string }): Promise<string>;
    /** Deletes a user or project role file; bundled roles cannot be deleted. */
    deleteRole(workspacePath: string | undefined, id: string): Promise<void>;
    /** Sets (or, with an empty model, removes) an agent's model override in the user's `agent_models.json`. */
    setModelOverride(workspacePath: string | undefined, agent: string, model: string): Promise<void>;
    /** Whether the chat has an agent it can reach; the presets for the setup card otherwise. */
    setupState(workspacePath: string | undefined): Promise<SetupState>;
    /** Tests the chosen preset (with the key or URL given) and, when it answers, makes its agents first in the user's rosters. */
    applySetup(workspacePath: string | undefined, choice: SetupChoice): Promise<ProviderTest>;
    /** The request body the agent sends, rendered against a sample conversation. */
    agentPreview(workspacePath: string | undefined, agent: string): Promise<string>;
    /** The agent's profile after `extends` as TOML, each field with the file it came from. */
    agentProfile(workspacePath: string | undefined, agent: string): Promise<string>;
}

export interface QodeAssistConfigClient {
    /** The loaded configuration changed (a file was edited, here or elsewhere). */
    onConfigurationChanged(): void;
}
