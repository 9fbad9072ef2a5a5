import type { PlanEntry, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { isAbsolute, resolve } from 'node:path';

/** How an ACP client shows one of QodeAssist's tool calls: its icon (kind), its one-line title and the files it touches. */
export interface ToolCallView {
    kind: ToolKind;
    title: string;
    locations: ToolCallLocation[];
}

const KINDS: Readonly<Record<string, ToolKind>> = {
    read_file: 'read', get_diagnostics: 'read', load_skill: 'read', read_original_history: 'read',
    list_project_files: 'search', find_file: 'search', search_project: 'search',
    create_file: 'edit', edit_file: 'edit',
    execute_terminal_command: 'execute', build_project: 'execute',
    todo: 'think'
};

function text(value: unknown): string | undefined {
    return typeof value === 'string' && value.trim() ? value : undefined;
}

function lineOf(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Client paths are absolute (ACP); the tools' are relative to the session's folder. */
export function absoluteIn(cwd: string, path: string): string {
    return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * The view of a call from its tool name and arguments (empty while they stream). Tools that
 * are not QodeAssist's own (an MCP server's) keep their name and the neutral kind.
 */
export function toolCallView(name: string, args: Record<string, unknown>, cwd: string): ToolCallView {
    const path = text(args.path);
    const fileAt = (line?: number): ToolCallLocation[] => path ? [{ path: absoluteIn(cwd, path), ...(line ? { line } : {}) }] : [];
    const kind = KINDS[name] ?? 'other';
    switch (name) {
        case 'read_file': {
            const start = lineOf(args.start_line);
            const end = lineOf(args.end_line);
            const range = start || end ? ` (lines ${start ?? 1}–${end ?? 'end'})` : '';
            return { kind, title: path ? `Read ${path}${range}` : 'Read a file', locations: fileAt(start) };
        }
        case 'create_file': return { kind, title: path ? `Create ${path}` : 'Create a file', locations: fileAt() };
        case 'edit_file': return { kind, title: path ? `Edit ${path}` : 'Edit a file', locations: fileAt() };
        case 'list_project_files': return { kind, title: path ? `List ${path}` : 'List the project files', locations: fileAt() };
        case 'find_file': return { kind, title: text(args.query) ? `Find files matching "${args.query}"` : 'Find files', locations: [] };
        case 'search_project': {
            const where = text(args.glob) ? ` in ${args.glob}` : '';
            return { kind, title: text(args.query) ? `Search for "${args.query}"${where}` : 'Search the project', locations: [] };
        }
        case 'execute_terminal_command': return { kind, title: text(args.command) ? `Run ${args.command}` : 'Run a command', locations: [] };
        case 'build_project': return { kind, title: 'Build the project', locations: [] };
        case 'get_diagnostics': return { kind, title: path ? `Problems in ${path}` : 'Problems in the workspace', locations: fileAt() };
        case 'load_skill': return { kind, title: text(args.name) ? `Load skill ${args.name}` : 'Load a skill', locations: [] };
        case 'read_original_history': return { kind, title: 'Read the chat before its summary', locations: [] };
        case 'todo': return { kind, title: args.action === 'add' ? `Todo: ${text(args.text) ?? 'add'}` : args.action === 'complete' ? `Todo: complete ${args.id}` : 'Todo list', locations: [] };
        default: return { kind, title: name, locations: fileAt() };
    }
}

/**
 * The todo tool's list (`[x] 1. text` per line, as it renders it) as an ACP plan, so the client's
 * plan view follows the model's list; undefined for any other text (an empty list, an error).
 */
export function planOfTodoList(content: string): PlanEntry[] | undefined {
    const entries: PlanEntry[] = [];
    for (const line of content.split('\n')) {
        const item = /^\[( |x)\] \d+\. (.*)$/.exec(line);
        if (item) {
            entries.push({ content: item[2], priority: 'medium', status: item[1] === 'x' ? 'completed' : 'pending' });
        }
    }
    return entries.length > 0 ? entries : undefined;
}
