
/**
 * The `ctx.*` contract between the ContextAssembler and agent templates (ARCHITECTURE §5).
 * Blocks use the same names as the wire protocols where they exist, so partials read naturally.
 */
export type CtxBlock =
    | { type: 'text'; text: string }
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    /** `images`: what the tool returned besides its text, only for an agent that takes images; `content` describes them either way. */
    | { type: 'tool_result'; tool_use_id: string; name: string; content: string; is_error: boolean; images?: CtxImage[] }
    | { type: 'image'; media_type: string; data: string };

/** An image's bytes as base64, with its media type. */
export interface CtxImage {
    media_type: string;
    data: string;
}

export interface CtxMessage {
    role: 'user' | 'assistant';
    content: CtxBlock[];
}

export interface CtxTool {
    name: string;
    description: string;
    /** JSON Schema of the arguments. */
    parameters: Record<string, unknown>;
}

/**
 * What a next-edit template renders: the user's recent edits as unified-diff hunks, and the excerpt
 * around the cursor, cut into read-only context and the region the model may rewrite.
 */
export interface NextEditContext {
    /** Unified-diff hunks of the recent edits in this file; empty when none. */
    events: string;
    /** Other files' recent edits the model may see, the most recently edited first (each a unified diff with its header); absent or empty when none. */
    other_events?: Array<{ path: string; diff: string }>;
    /** Read-only lines above the region (ending with a line break when not empty) and below it. */
    before: string;
    after: string;
    /** The editable region, cut at the cursor. */
    region_before_cursor: string;
    region_after_cursor: string;
    /** The excerpt starts at the file's first line. */
    start_of_file: boolean;
}

export interface TemplateContext {
    system_prompt: string;
    history: CtxMessage[];
    /** Code completion and refactor: text before and after the cursor. */
    prefix?: string;
    suffix?: string;
    files_metadata: Array<{ path: string; content: string }>;
    /**
     * Code completion's cross-file context (definitions, recent edits, similar code), one entry per
     * file, the most important last; `source` is the kind of its most important snippet
     * (`definition`, `recent-edit`, `similar`). FIM templates with a repository format render them.
     */
    repo_files?: Array<{ path: string; content: string; source: string }>;
    /** The project's name for repository formats (`<|repo_name|>`). */
    repo_name?: string;
    tools: CtxTool[];
    language?: string;
    file_path?: string;
    /** The active-file line of the environment block (`formatFile`): `Active file: <file_path> (<language>)`. */
    file_info?: string;
    /** Next edit suggestions: the recent edits and the editable region around the cursor (`next_edit` agents). */
    next_edit?: NextEditContext;
    /** A request's own thinking switch (the refactor's toggle); it wins over the agent's `enable_thinking` in `agent.enable_thinking`. */
    thinking?: boolean;
}

/** What a template sees: `ctx`, plus the resolved `model`, a few agent facts, and `tools` (= ctx.tools). */
export interface TemplateVariablesFor {
    ctx: TemplateContext;
    model: string;
    agent: { name: string; enable_tools: boolean; enable_thinking: boolean; context_window: number };
    tools: CtxTool[];
}

/**
 * A context that exercises every branch a partial can take: text, signed thinking,
 * redacted thinking, parallel tool calls with results (one an error), an image,
 * prefix/suffix and tools. Every bundled and user profile must render against it.
 */
export function syntheticContext(): TemplateContext {
    return {
        system_prompt: 'You are QodeAssist, a coding assistant.',
        history: [
            { role: 'user', content: [{ type: 'text', text: 'Where is the "main" function defined?' }] },
            {
                role: 'assistant', content: [
                    { type: 'thinking', thinking: 'I should search the project.', signature: 'c2lnbmF0dXJl' },
                    { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
                    { type: 'text', text: 'Let me look.' },
                    { type: 'tool_use', id: 'call_1', name: 'search_project', input: { query: 'main(' } },
                    { type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'src/app.ts' } }
                ]
            },
            {
                role: 'user', content: [
                    { type: 'tool_result', tool_use_id: 'call_1', name: 'search_project', content: 'src/app.ts:3: function main() {', is_error: false },
                    { type: 'tool_result', tool_use_id: 'call_2', name: 'read_file', content: 'File not found: src/app.ts', is_error: true }
                ]
            },
            { role: 'assistant', content: [{ type: 'text', text: 'It is in src/app.ts, line 3.' }] },
            {
                role: 'user', content: [
                    { type: 'text', text: 'What does this screenshot show?\n<code>a < b && c > "d"</code>' },
                    { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }
                ]
            }
        ],
        prefix: 'function add(a: number, b: number) {\n    return ',
        suffix: ';\n}\n',
        files_metadata: [{ path: 'src/util.ts', content: 'export const one = 1;\n' }],
        repo_files: [
            { path: 'src/format.ts', content: 'export function format(value: number, digits = 2): string {\n', source: 'similar' },
            { path: 'src/numbers.ts', content: 'export type Num = number | bigint;\n', source: 'definition' }
        ],
        repo_name: 'calculator',
        tools: [
            {
                name: 'read_file', description: 'Read a project file.',
                parameters: { type: 'object', properties: { path: { type: 'string', description: 'Path relative to the workspace' } }, required: ['path'], additionalProperties: false }
            },
            {
                name: 'search_project', description: 'Search the project.',
                parameters: { type: 'object', properties: { query: { type: 'string' }, case_sensitive: { type: 'boolean', default: false } }, required: ['query'], $schema: 'http://json-schema.org/draft-07/schema#' }
            }
        ],
        language: 'typescript',
        file_path: 'src/math.ts',
        // As context/env-block's formatFile writes it (its spec checks that they agree): prompt/ does not import context/.
        file_info: 'Active file: src/math.ts (typescript)',
        next_edit: {
            events: '--- a/src/math.ts\n+++ b/src/math.ts\n@@ -1,2 +1,2 @@\n-function add(a: number, b: number) {\n+function add(left: number, b: number) {\n     return a + b;\n',
            other_events: [{ path: 'src/stats.ts', diff: '--- a/src/stats.ts\n+++ b/src/stats.ts\n@@ -4,1 +4,1 @@\n-export const mean = (a: number, b: number) => add(a, b) / 2;\n+export const mean = (left: number, b: number) => add(left, b) / 2;\n' }],
            before: '',
            region_before_cursor: 'function add(left',
            region_after_cursor: ': number, b: number) {\n    return a + b;\n}',
            after: '',
            start_of_file: true
        }
    };
}
