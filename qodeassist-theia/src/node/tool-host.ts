import {
    AnyTool, CHAT_PROTOCOLS, Configuration, createBuiltinTools, defaultSkillRoots, HistoryMessage, SkillRoot, SkillsEngine, ToolContributorRegistry, ToolKitExecutor, WorkspaceFiles
} from '@qodeassist/core';
import { AgentChoice, ChatSkillSettings, ChatToolSettings } from '../common/chat-protocol';
import { ToolHostClient } from '../common/tool-host-protocol';

export interface ToolExecutorOptions {
    /** Who asks the user and reaches the editors; without one, write and execute tools are denied. */
    host: ToolHostClient | undefined;
    /** The chat or refactor the tools run for: permission prompts and "allow for this chat" belong to it. */
    ownerId: string;
    workspace: string;
    /**
     * Whether the user trusts the workspace. Untrusted, the tools that run programs (the terminal, the
     * build) are not offered: `git status` runs a repository's fsmonitor and hooks, `npm test` its scripts.
     */
    projectTrusted: boolean;
    settings: ChatToolSettings | undefined;
    /** Offers load_skill when given (the chat); the refactor has no skills. */
    skills?: SkillsEngine;
    /** The history a summary chat was made from, for read_original_history. */
    originalHistory?: () => readonly HistoryMessage[];
    /** More tools, asked for at every request (the MCP hub's, which come and go with their servers). */
    extraTools?: () => readonly AnyTool[];
    /**
     * Someone else already asked the user for each call (Theia AI's chat confirms its tool calls),
     * so write and execute tools run without asking a second time — but a write to a protected
     * place (configuration, ignore rules) still asks through the host.
     */
    confirmedByCaller?: boolean;
}

/** Built-in tools that start programs in the workspace: offered only in a trusted one. */
const RUNS_PROGRAMS: ReadonlySet<string> = new Set(['execute_terminal_command', 'build_project']);

/** The built-in tools confined to a workspace folder; write and execute ask the user through the host first. */
export function createToolExecutor(options: ToolExecutorOptions): ToolKitExecutor {
    const { host, ownerId, workspace, settings } = options;
    const registry = new ToolContributorRegistry();
    const tools = createBuiltinTools({
        workspace, allowedCommands: settings?.allowedCommands, commandTimeoutMs: (settings?.commandTimeoutSeconds ?? 60) * 1000,
        commandOutputLimit: settings?.commandOutputLimit, buildCommand: settings?.buildCommand, skills: options.skills,
        diagnostics: { get: async path => host ? host.getDiagnostics(path) : [] },
        originalHistory: options.originalHistory
    });
    const offered = options.projectTrusted ? tools : tools.filter(tool => !RUNS_PROGRAMS.has(tool.name));
    registry.register(() => offered);
    if (options.extraTools) {
        registry.register(options.extraTools);
    }
    return new ToolKitExecutor(registry, ownerId, {
        files: new WorkspaceFiles([workspace], { allowOutside: settings?.allowOutsideWorkspace, useGitignore: settings?.useGitignore ?? true }),
        documents: { readOpen: async path => host?.readOpenDocument(path) },
        writer: host ? { write: async (path, content, writeOptions) => host.writeDocument(path, content, writeOptions) } : undefined,
        disabled: new Set(settings?.disabled ?? []),
        // A protected write asks through our own prompt even when the caller confirmed the call.
        permissions: { ask: async request => options.confirmedByCaller && request.protectedPath === undefined ? 'allow-once' : host ? host.requestToolPermission(ownerId, request) : 'deny' }
    });
}

/** Agents that speak a chat protocol, those in the given roster first, for a feature's agent picker. */
export function agentChoices(configuration: Configuration, roster: readonly string[]): AgentChoice[] {
    const listed = new Set(roster);
    return [...configuration.agents.values()]
        .filter(agent => CHAT_PROTOCOLS.has(agent.protocol))
        .map(agent => ({ name: agent.name, model: agent.model, provider: agent.provider.instance.name, inRoster: listed.has(agent.name) }))
        .sort((a, b) => Number(b.inRoster) - Number(a.inRoster) || a.name.localeCompare(b.name));
}

/**
 * Where the chat finds skills: the project's (in a trusted workspace) and the user's `.qodeassist/skills`
 * and `.claude/skills`, then the extra folders of `qodeassist.skills.folders`. Undefined when the user
 * turned skills off.
 */
export function skillRootsFor(workspace: string | undefined, settings: ChatSkillSettings | undefined, projectTrusted: boolean): SkillRoot[] | undefined {
    if (settings?.enabled === false) {
        return undefined;
    }
    const folders = settings?.folders.filter(folder => folder.trim()) ?? [];
    return [...defaultSkillRoots(projectTrusted ? workspace : undefined), ...folders.map(dir => ({ dir, scope: 'user' as const }))];
}
