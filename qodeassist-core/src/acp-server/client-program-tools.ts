import { ITerminal } from '../ports/process-ports';
import { CommandBuildRunner } from '../tools/node-process';
import { createBuildTool, createTerminalTool, defaultAllowedCommands, splitCommandLine } from '../tools/process-tools';
import { AnyTool } from '../tools/tool';
import { ToolInputError } from '../tools/workspace-files';
import { ToolSettings } from '../runtime/request-tools';

/** The client terminal of the session a chat belongs to, for one call (the terminal shows in that call's view). */
export type TerminalForCall = (chatId: string, tool: string, args: Record<string, unknown>) => ITerminal | undefined;

/**
 * execute_terminal_command and build_project as QodeAssist's own, run in the client's terminal
 * instead of a child process of this server. Registered after the built-in tools, they take their
 * place by name; the checks are the built-ins' own (allowed programs, no shell, the workspace as
 * cwd), and so are the permission questions (the tool kit asks before `run`).
 */
export function clientProgramTools(workspace: string, settings: ToolSettings, terminalFor: TerminalForCall): AnyTool[] {
    const allowed = settings.allowedCommands.length ? settings.allowedCommands : defaultAllowedCommands();
    const terminalTool = (terminal: ITerminal) => createTerminalTool({
        terminal, allowed, timeoutMs: settings.commandTimeoutSeconds * 1000, maxOutputChars: settings.commandOutputLimit
    });
    const inTerminal = (tool: AnyTool, make: (terminal: ITerminal) => AnyTool): AnyTool => ({
        ...tool,
        run: (args, context) => {
            const terminal = terminalFor(context.chatId, tool.name, args as Record<string, unknown>);
            if (!terminal) {
                throw new ToolInputError(`${tool.name} runs in the editor's terminal, and this chat is no longer connected to one.`);
            }
            return make(terminal).run(args, context);
        }
    });
    // The definitions (name, description, schema) do not depend on the terminal: one instance describes them.
    const described: ITerminal = { run: () => Promise.reject(new Error('not bound to a session')) };
    const tools = [inTerminal(terminalTool(described), terminalTool)];
    const build = splitCommandLine(settings.buildCommand.trim());
    if (build.length > 0) {
        const buildTool = (terminal: ITerminal) => createBuildTool(new CommandBuildRunner(build, workspace, terminal));
        tools.push(inTerminal(buildTool(described), buildTool));
    }
    return tools;
}
