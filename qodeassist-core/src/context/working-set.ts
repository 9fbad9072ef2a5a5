import { formatBuildProblem, parseBuildProblems } from './build-problems';
import { HistoryMessage } from './conversation-history';

/** The latest result of a build or of the IDE's problems: a newer one supersedes an older one. */
export interface Evidence {
    /** The tool call that produced it (its result is protected from elision). */
    callId: string;
    ok: boolean;
    /** The first lines worth reading (the problems), already cut short. */
    summary: string;
}

/**
 * What a long coding run must not lose: the goal, the files touched, the latest build and
 * problems, the open todos and the next thing to repair. Derived from the history alone, so it
 * is always consistent with it and never stored twice.
 */
export interface WorkingSet {
    goal?: string;
    /** Later user messages that changed direction, newest last (at most three). */
    redirections: string[];
    filesRead: string[];
    /** Path → what the last write did, newest last. */
    filesWritten: Array<{ path: string; change: string; callId: string }>;
    build?: Evidence;
    diagnostics?: Evidence;
    openTodos: string[];
    /** The first error location of the latest failing build or problem list. */
    nextRepair?: string;
}

const MAX_FILES = 12;
const MAX_SUMMARY_LINES = 8;

function emptyWorkingSet(): WorkingSet {
    return { redirections: [], filesRead: [], filesWritten: [], openTodos: [] };
}

function firstLine(text: string, max = 160): string {
    const line = text.trim().split('\n')[0] ?? '';
    return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The lines that name problems (`file:line…: error…`), else the first lines. */
function problemSummary(content: string): string {
    const lines = content.split('\n').map(line => line.trimEnd()).filter(Boolean);
    const problems = lines.filter(line => parseBuildProblems(line).length > 0);
    const chosen = (problems.length ? [lines[0], ...problems.filter(line => line !== lines[0])] : lines).slice(0, MAX_SUMMARY_LINES);
    return chosen.join('\n');
}

function firstErrorLocation(content: string): string | undefined {
    const error = parseBuildProblems(content).find(problem => problem.severity === 'error');
    return error ? formatBuildProblem(error).slice(0, 200) : undefined;
}

/** Folds one message into the working set; true when it changed something the block shows. */
function fold(set: WorkingSet, message: HistoryMessage, uses: Map<string, { name: string; input: Record<string, unknown> }>, superseded: Set<string>): boolean {
    let changed = false;
    for (const block of message.blocks) {
        if (block.type === 'text' && message.role === 'user') {
            const text = firstLine(block.text, 240);
            if (!text) {
                continue;
            }
            if (set.goal === undefined) {
                set.goal = text;
            } else {
                set.redirections = [...set.redirections, text].slice(-3);
            }
            changed = true;
        } else if (block.type === 'tool_use') {
            uses.set(block.id, { name: block.name, input: block.input });
        } else if (block.type === 'tool_result') {
            const use = uses.get(block.toolUseId);
            const path = typeof use?.input.path === 'string' ? use.input.path : undefined;
            switch (block.name) {
                case 'read_file':
                    if (path && !block.isError && set.filesRead.at(-1) !== path) {
                        set.filesRead = [...set.filesRead.filter(known => known !== path), path].slice(-MAX_FILES);
                        changed = true;
                    }
                    break;
                case 'edit_file':
                case 'create_file':
                    if (path && !block.isError) {
                        set.filesWritten = [...set.filesWritten.filter(known => known.path !== path), { path, change: describeWrite(block.name, use!.input), callId: block.toolUseId }].slice(-MAX_FILES);
                        changed = true;
                    }
                    break;
                case 'build_project':
                    if (set.build) {
                        superseded.add(set.build.callId);
                    }
                    set.build = { callId: block.toolUseId, ok: !block.isError, summary: problemSummary(block.content) };
                    set.nextRepair = block.isError ? firstErrorLocation(block.content) ?? set.nextRepair : set.diagnostics?.ok === false ? set.nextRepair : undefined;
                    changed = true;
                    break;
                case 'get_diagnostics': {
                    const clean = /^No (errors|problems) reported/.test(block.content.trim());
                    if (set.diagnostics) {
                        superseded.add(set.diagnostics.callId);
                    }
                    set.diagnostics = { callId: block.toolUseId, ok: clean && !block.isError, summary: problemSummary(block.content) };
                    if (!clean) {
                        set.nextRepair = firstErrorLocation(block.content) ?? set.nextRepair;
                    } else if (set.build?.ok !== false) {
                        set.nextRepair = undefined;
                    }
                    changed = true;
                    break;
                }
                case 'todo':
                    if (!block.isError) {
                        const open = block.content.split('\n').filter(line => line.startsWith('[ ]')).map(line => line.slice(4).trim()).slice(0, 10);
                        changed ||= open.join('\n') !== set.openTodos.join('\n');
                        set.openTodos = open;
                    }
                    break;
            }
        }
    }
    return changed;
}

function describeWrite(tool: string, input: Record<string, unknown>): string {
    const lines = (value: unknown) => typeof value === 'string' ? value.split('\n').length : 0;
    if (tool === 'create_file') {
        return `created, ${lines(input.content)} lines`;
    }
    const removed = lines(input.old_text);
    const added = lines(input.new_text);
    return `edited: −${removed} +${added} lines, now "${firstLine(String(input.new_text ?? ''), 80)}"`;
}

export function renderWorkingSet(set: WorkingSet): string {
    // A conversation without tool work has nothing to keep track of: no block.
    if (!set.filesWritten.length && !set.filesRead.length && !set.build && !set.diagnostics && !set.openTodos.length) {
        return '';
    }
    const parts = ['<working_set>'];
    if (set.goal) {
        parts.push(`Goal: ${set.goal}`);
    }
    for (const redirection of set.redirections) {
        parts.push(`Then: ${redirection}`);
    }
    if (set.filesWritten.length) {
        parts.push(`Changed files:\n${set.filesWritten.map(file => `- ${file.path}: ${file.change}`).join('\n')}`);
    }
    if (set.filesRead.length) {
        parts.push(`Read: ${set.filesRead.join(', ')}`);
    }
    if (set.build) {
        parts.push(`Latest build: ${set.build.ok ? 'succeeded' : 'FAILED'}${set.build.ok ? '' : `\n${set.build.summary}`}`);
    }
    if (set.diagnostics) {
        parts.push(`Latest problems:${set.diagnostics.ok ? ' none' : `\n${set.diagnostics.summary}`}`);
    }
    if (set.openTodos.length) {
        parts.push(`Open todos:\n${set.openTodos.map(todo => `- ${todo}`).join('\n')}`);
    }
    if (set.nextRepair) {
        parts.push(`Next to repair: ${set.nextRepair}`);
    }
    parts.push('</working_set>');
    return parts.join('\n');
}

/**
 * The working set after the whole history, and the index of the message where it last
 * changed (rendered once, at the end): the block is placed there, so the request prefix
 * before it stays the same from request to request until something in the set changes.
 * `superseded` holds the build and problem-list results that a newer one of the same tool replaced.
 */
export function workingSetOf(history: readonly HistoryMessage[]): { set: WorkingSet; text: string; changedAt: number; superseded: Set<string> } {
    const set = emptyWorkingSet();
    const uses = new Map<string, { name: string; input: Record<string, unknown> }>();
    const superseded = new Set<string>();
    let changedAt = -1;
    history.forEach((message, index) => {
        if (fold(set, message, uses, superseded)) {
            changedAt = index;
        }
    });
    const text = renderWorkingSet(set);
    return { set, text, changedAt: text ? changedAt : -1, superseded };
}

/** Tool calls whose results must survive elision: the latest build and problems, the last `writes` writes. */
export function protectedCalls(set: WorkingSet, writes = 3): Set<string> {
    const ids = new Set<string>();
    if (set.build) {
        ids.add(set.build.callId);
    }
    if (set.diagnostics) {
        ids.add(set.diagnostics.callId);
    }
    for (const file of set.filesWritten.slice(-writes)) {
        ids.add(file.callId);
    }
    return ids;
}
