import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a workspace brings as configuration: read, rendered or started only once the user
 * trusts the workspace (ARCHITECTURE §7). Tools still work on the workspace's files.
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
