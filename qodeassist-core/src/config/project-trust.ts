import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a workspace brings as configuration: read, rendered or started only once the user
 * trusts the workspace (docs/ARCHITECTURE.md §7). Tools still work on the workspace's files.
 */
export const PROJECT_LAYER_ENTRIES: readonly string[] = [
    '.qodeassist/agents', '.qodeassist/providers', '.qodeassist/partials', '.qodeassist/roles', '.qodeassist/agent_models.json',
    '.qodeassist/instructions', '.qodeassist/skills', '.qodeassist/mcp.json', '.qodeassist/acp', '.claude/skills',
    // The repository's rules files for agents (the root ones; nested AGENTS.md are not read either).
    'AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.github/copilot-instructions.md', '.github/instructions', '.cursor/rules', '.clinerules'
];

/** The project-layer entries this workspace has, `/`-separated relative paths: what an untrusted workspace leaves unread. */
export function projectLayerEntries(workspace: string | undefined): string[] {
    return workspace ? PROJECT_LAYER_ENTRIES.filter(entry => existsSync(join(workspace, ...entry.split('/')))) : [];
}

export const UNTRUSTED_PROJECT_MESSAGE = 'project configuration not loaded: workspace not trusted';

/** The one sentence every surface shows (chat, configuration view, status bar, bench) for an untrusted workspace. */
export function untrustedProjectNotice(skipped: readonly string[]): string {
    return skipped.length ? `${UNTRUSTED_PROJECT_MESSAGE} (skipped ${skipped.join(', ')})` : UNTRUSTED_PROJECT_MESSAGE;
}

/** The workspace whose own configuration may be read: itself when trusted, none otherwise. */
export function trustedProject(workspace: string | undefined, trusted: boolean): string | undefined {
    return trusted ? workspace : undefined;
}

/**
 * Something a trusted project's files change about what the user set up (or QodeAssist bundles):
 * a provider of the same name at another URL origin, a roster list replaced. Allowed — the user
 * trusts the workspace — but never silently: the trust notice and the agent's tooltip name it.
 */
export interface ProjectOverride {
    kind: 'provider' | 'roster';
    /** The provider's name, or the pipeline whose roster is replaced. */
    name: string;
    /** The project file that does it. */
    file: string;
    /** Whose entry it replaces. */
    replaces: 'user' | 'bundled';
    /** A provider's: the URL origin requests now go to, and the one they went to. */
    sendsTo?: string;
    insteadOf?: string;
    /** The sentence the notice shows. */
    message: string;
}

/** The trust notice of a trusted workspace whose files replace what the user set up, or undefined when they replace nothing. */
export function projectOverrideNotice(overrides: readonly ProjectOverride[]): string | undefined {
    return overrides.length ? `this project's configuration replaces yours: ${overrides.map(override => override.message).join('; ')}` : undefined;
}

/**
 * For an agent the user picks: the project file that decides where it sends (a project provider)
 * or what it runs (a project's external agent). The chat's agent tooltip says "from this project".
 */
export interface ProjectOrigin {
    file: string;
    /** A model agent's: the URL origin its requests go to. */
    sendsTo?: string;
    /** And the user's or bundled origin that provider's name had, when the project's replaces it. */
    insteadOf?: string;
    /** An external agent's: the command line it starts. */
    runs?: string;
}
