import { ToolHost } from '../ports/tool-host';
import { HistoryMessage } from '../context/conversation-history';
import { ManagedPolicy, permissionAllowed } from '../config/managed-policy';
import { stateDirRefusal } from '../config/state-dir';
import { createBuiltinTools } from '../tools/builtin-tools';
import { AnyTool } from '../tools/tool';
import { ToolContributorRegistry, ToolKitExecutor } from '../tools/tool-executor';
import { WorkspaceFiles } from '../tools/workspace-files';
import { defaultSkillRoots, SkillRoot, SkillsEngine } from '../skills/skills-engine';

/** The user's tool settings (preferences `qodeassist.tools.*`, or the bench's options). */
export interface ToolSettings {
    /** Tools turned off by name. */
    disabled: string[];
    /** Programs execute_terminal_command may start; empty: the built-in list for the OS. */
    allowedCommands: string[];
    /** Longest a command may run, in seconds. */
    commandTimeoutSeconds: number;
    /** Most characters of command output handed to the model (head and tail are kept). */
    commandOutputLimit: number;
    /** What build_project runs; empty: no build_project tool. */
    buildCommand: string;
    allowOutsideWorkspace: boolean;
    useGitignore: boolean;
    /** Network inside the commands' sandbox (bubblewrap); absent: on. */
    sandboxNetwork?: boolean;
}

/** The user's skill settings (preferences `qodeassist.skills.*`); absent: on, default folders. */
export interface SkillSettings {
    /** Off: no catalog in the prompt, no load_skill tool, no `/` skills. */
    enabled: boolean;
    /** More folders holding `<skill>/SKILL.md`, besides the project's and the user's `.qodeassist/skills` and `.claude/skills`. */
    folders: string[];
}

export interface ToolKitRequest {
    /** Who asks the user and reaches the editors; without one, write and execute tools are denied. */
    host: ToolHost | undefined;
    /** The chat or refactor the tools run for: permission prompts and "allow for this chat" belong to it. */
    ownerId: string;
    workspace: string;
    /**
     * Whether the user trusts the workspace. Untrusted, the tools that run programs (the terminal, the
     * build) are not offered: `git status` runs a repository's fsmonitor and hooks, `npm test` its scripts.
     */
    projectTrusted: boolean;
    settings: Partial<ToolSettings> | undefined;
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
    /** The administrator's policy: its tool permission ceiling applies. */
    policy?: ManagedPolicy;
}

/** Built-in tools that start programs in the workspace: offered only in a trusted one. */
const RUNS_PROGRAMS: ReadonlySet<string> = new Set(['execute_terminal_command', 'build_project']);

/** The built-in tools confined to a workspace folder, and the extra ones; write and execute ask the user through the host first. */
export function createToolKit(request: ToolKitRequest): ToolKitExecutor {
    const { host, ownerId, workspace, settings } = request;
    const registry = new ToolContributorRegistry();
    const getDiagnostics = host?.getDiagnostics?.bind(host);
    const tools = createBuiltinTools({
        workspace, allowedCommands: settings?.allowedCommands, commandTimeoutMs: (settings?.commandTimeoutSeconds ?? 60) * 1000,
        commandOutputLimit: settings?.commandOutputLimit, buildCommand: settings?.buildCommand, skills: request.skills,
        sandbox: { network: settings?.sandboxNetwork ?? true },
        // Only a host that shows problems (an IDE) offers get_diagnostics; the bench has none to show.
        diagnostics: getDiagnostics ? { get: async path => getDiagnostics(path) } : undefined,
        originalHistory: request.originalHistory
    });
    // The administrator's ceiling: a tool needing more than it allows is never offered, built-in or MCP.
    const allowed = (tool: AnyTool) => permissionAllowed(request.policy, tool.permission);
    const offered = (request.projectTrusted ? tools : tools.filter(tool => !RUNS_PROGRAMS.has(tool.name))).filter(allowed);
    registry.register(() => offered);
    const extraTools = request.extraTools;
    if (extraTools) {
        registry.register(() => extraTools().filter(allowed));
    }
    const writeDocument = host?.writeDocument?.bind(host);
    return new ToolKitExecutor(registry, ownerId, {
        files: new WorkspaceFiles([workspace], { allowOutside: settings?.allowOutsideWorkspace, useGitignore: settings?.useGitignore ?? true }),
        documents: { readOpen: async path => host?.readOpenDocument?.(path) },
        writer: writeDocument ? { write: async (path, content, options) => writeDocument(path, content, options) } : undefined,
        disabled: new Set(settings?.disabled ?? []),
        // A protected write asks through our own prompt even when the caller confirmed the call.
        permissions: {
            ask: async permission => request.confirmedByCaller && permission.protectedPath === undefined ? 'allow-once' : host ? host.requestToolPermission(ownerId, permission) : 'deny'
        }
    });
}

/**
 * Where the chat finds skills: the project's (in a trusted workspace) and the user's `.qodeassist/skills`
 * and `.claude/skills`, then the extra folders of `qodeassist.skills.folders`. Undefined when the user
 * turned skills off.
 */
export function skillRootsFor(workspace: string | undefined, settings: SkillSettings | undefined, projectTrusted: boolean, userHome?: string): SkillRoot[] | undefined {
    if (settings?.enabled === false) {
        return undefined;
    }
    const folders = settings?.folders.filter(folder => folder.trim()) ?? [];
    // A state dir inside the workspace is the repository's folder, not the user's: its skills are not the user's (see stateDirRefusal).
    const home = userHome !== undefined && stateDirRefusal(userHome, workspace) ? undefined : userHome;
    return [...defaultSkillRoots(projectTrusted ? workspace : undefined, home), ...folders.map(dir => ({ dir, scope: 'user' as const }))];
}
