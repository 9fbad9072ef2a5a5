import { HistoryMessage } from '../context/conversation-history';
import { IDiagnostics } from '../ports/diagnostics';
import { createDiagnosticsTool } from './diagnostics-tool';
import { FILE_TOOLS } from './file-tools';
import { createReadOriginalHistoryTool } from './history-tool';
import { CommandBuildRunner, NodeTerminal } from './node-process';
import { createBuildTool, createTerminalTool, defaultAllowedCommands, splitCommandLine } from './process-tools';
import { SandboxSettings } from './sandbox';
import { createTodoTool } from './todo-tool';
import { AnyTool } from './tool';

/** What load_skill comes from. Declared here so tools/ needs nothing from skills/; SkillsEngine satisfies it. */
export interface SkillToolSource {
    loadSkillTool(): AnyTool;
}

export interface BuiltinToolsOptions {
    /** The workspace folder commands and the build run in. */
    workspace: string;
    /** Programs execute_terminal_command may start; empty or absent: the OS's default list. */
    allowedCommands?: readonly string[];
    commandTimeoutMs?: number;
    commandOutputLimit?: number;
    /** What build_project runs; without it there is no build_project. */
    buildCommand?: string;
    /** The sandbox commands and the build run in (bubblewrap where it starts, network on, by default). */
    sandbox?: SandboxSettings;
    /** The IDE's problems; without it there is no get_diagnostics. */
    diagnostics?: IDiagnostics;
    /** Skills; without them there is no load_skill. */
    skills?: SkillToolSource;
    /** A summarized chat's original history; without it there is no read_original_history. */
    originalHistory?: (chatId: string) => readonly HistoryMessage[] | undefined;
}

/** The built-in ToolKit, as every host (IDE chat, bench CLI) offers it. Create once per chat: todo keeps its list. */
export function createBuiltinTools(options: BuiltinToolsOptions): AnyTool[] {
    const tools: AnyTool[] = [...FILE_TOOLS, createTodoTool()];
    tools.push(createTerminalTool({
        terminal: new NodeTerminal({ workspaceRoots: [options.workspace], sandbox: options.sandbox }), allowed: options.allowedCommands?.length ? options.allowedCommands : defaultAllowedCommands(),
        timeoutMs: options.commandTimeoutMs, maxOutputChars: options.commandOutputLimit
    }));
    if (options.diagnostics) {
        tools.push(createDiagnosticsTool(options.diagnostics));
    }
    if (options.skills) {
        tools.push(options.skills.loadSkillTool());
    }
    if (options.originalHistory) {
        tools.push(createReadOriginalHistoryTool(options.originalHistory));
    }
    if (options.buildCommand?.trim()) {
        tools.push(createBuildTool(new CommandBuildRunner(splitCommandLine(options.buildCommand), options.workspace, new NodeTerminal({ workspaceRoots: [options.workspace], sandbox: options.sandbox }))));
    }
    return tools;
}
