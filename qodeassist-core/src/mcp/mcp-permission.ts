import { createTwoFilesPatch } from 'diff';
import { readFile, stat } from 'node:fs/promises';
import { PermissionAnswer, PermissionRequest } from '../ports/permission-prompt';
import { WorkspaceFiles } from '../tools/workspace-files';
import { McpClaimedClient } from './mcp-server';

/**
 * What the IDE shows when an outside MCP client wants to write or run something: plain data,
 * rendered as text only. The path comes first for file tools, and the diff is computed here,
 * so the prompt shows what will change, not what the client describes.
 */
export interface McpToolPrompt {
    /** The client's name as it claims it in initialize (cleaned of control characters); nothing verifies it. */
    claimedClient: string;
    claimedVersion?: string;
    /** The workspace folder the served tools work in. */
    workspace: string;
    tool: string;
    permission: 'write' | 'execute';
    /** For file tools: the path relative to the workspace (or as given, when it cannot be used). */
    path?: string;
    /** Why the path cannot be used; the tool will refuse it. */
    pathProblem?: string;
    /** For create_file and edit_file: the unified diff of the change. */
    diff?: string;
    /** Why no diff could be made (old_text not found, the file unreadable…). */
    diffProblem?: string;
    arguments: Record<string, unknown>;
    /** What "allow for this client" covers: the tool (write tools) or these exact arguments only (execute tools). */
    allowForClient: 'tool' | 'same-arguments';
}

const MAX_NAME = 80;
const MAX_DIFF = 64 * 1024;
const MAX_FILE = 2 * 1024 * 1024;

/** A claimed name fit to show: no control, bidi or zero-width characters that could fake lines or reorder the text; bounded. */
export function cleanClaimedName(name: string | undefined): string {
    const cleaned = (name ?? '').replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ').replace(/\s+/g, ' ').trim();
    return cleaned ? cleaned.slice(0, MAX_NAME) : '(no name given)';
}

export interface McpPromptSources {
    files: WorkspaceFiles;
    /** An open editor's text (unsaved changes included), preferred to the disk as edit_file does. */
    readOpen?(absolutePath: string): Promise<string | undefined>;
}

/** Builds the prompt of a write or execute request: the path resolved as the tool will, and the diff of a file change. */
export async function describeMcpToolRequest(
    request: PermissionRequest, client: McpClaimedClient, workspace: string, sources: McpPromptSources
): Promise<McpToolPrompt> {
    const permission = request.permission === 'execute' ? 'execute' : 'write';
    const prompt: McpToolPrompt = {
        claimedClient: cleanClaimedName(client.name), ...(client.version ? { claimedVersion: cleanClaimedName(client.version) } : {}),
        workspace, tool: request.tool, permission, arguments: request.arguments,
        allowForClient: permission === 'execute' ? 'same-arguments' : 'tool'
    };
    const given = request.arguments.path;
    if (typeof given !== 'string') {
        return prompt;
    }
    let absolute: string;
    try {
        const resolved = sources.files.resolve(given);
        prompt.path = resolved.relative || '.';
        absolute = resolved.absolute;
    } catch (error) {
        prompt.path = given;
        prompt.pathProblem = error instanceof Error ? error.message : String(error);
        return prompt;
    }
    const change = await fileChange(request, prompt.path, absolute, sources);
    if ('diff' in change) {
        prompt.diff = change.diff.length > MAX_DIFF ? `${change.diff.slice(0, MAX_DIFF)}\n… (diff cut at ${MAX_DIFF} characters)` : change.diff;
    } else if (change.problem) {
        prompt.diffProblem = change.problem;
    }
    return prompt;
}

/** The change create_file or edit_file would make, computed the way the tools do. */
async function fileChange(request: PermissionRequest, label: string, absolute: string, sources: McpPromptSources): Promise<{ diff: string } | { problem?: string }> {
    const args = request.arguments;
    if (request.tool === 'create_file' && typeof args.content === 'string') {
        return { diff: unifiedDiff(label, undefined, args.content) };
    }
    if (request.tool !== 'edit_file' || typeof args.old_text !== 'string' || typeof args.new_text !== 'string') {
        return {};
    }
    let before: string | undefined;
    try {
        before = await sources.readOpen?.(absolute);
        if (before === undefined) {
            if ((await stat(absolute)).size > MAX_FILE) {
                return { problem: 'The file is too large to show a diff.' };
            }
            before = await readFile(absolute, 'utf8');
        }
    } catch (error) {
        return { problem: `The file could not be read: ${error instanceof Error ? error.message : String(error)}` };
    }
    const oldText = args.old_text;
    const newText = args.new_text;
    if (!oldText || !before.includes(oldText)) {
        return { problem: 'old_text does not occur in the file; the tool will fail without changing it.' };
    }
    if (args.replace_all !== true && before.split(oldText).length > 2) {
        return { problem: 'old_text occurs more than once and replace_all is not set; the tool will fail without changing it.' };
    }
    const after = args.replace_all === true ? before.split(oldText).join(newText) : before.replace(oldText, () => newText);
    return { diff: unifiedDiff(label, before, after) };
}

function unifiedDiff(path: string, before: string | undefined, after: string): string {
    return createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after, undefined, undefined, { context: 3 })
        .replace(/^=+\n/, '');
}

/**
 * "Allow for this client", remembered per client session: a write tool is allowed as a tool,
 * an execute tool only for the exact arguments the user saw. The tool kit is always told
 * `allow-once`, so its own per-tool memory never widens an answer.
 */
export class McpClientAllowances {
    private readonly allowed = new Set<string>();

    async ask(request: PermissionRequest, askUser: () => Promise<PermissionAnswer>): Promise<PermissionAnswer> {
        if (request.protectedPath !== undefined) {
            // Configuration and ignore rules: asked every time, never covered by an earlier allowance.
            const answer = await askUser();
            return answer === 'allow-chat' ? 'allow-once' : answer;
        }
        const key = allowanceKey(request);
        if (this.allowed.has(key)) {
            return 'allow-once';
        }
        const answer = await askUser();
        if (answer === 'allow-chat') {
            this.allowed.add(key);
            return 'allow-once';
        }
        return answer;
    }
}

function allowanceKey(request: PermissionRequest): string {
    return request.permission === 'execute' ? `${request.tool}\0${canonicalJson(request.arguments)}` : request.tool;
}

/** JSON with object keys sorted, so the same arguments in another key order are still the same. */
function canonicalJson(value: unknown): string {
    if (Array.isArray(value)) {
        return `[${value.map(canonicalJson).join(',')}]`;
    }
    if (value && typeof value === 'object') {
        return `{${Object.keys(value).sort().map(key => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
}
