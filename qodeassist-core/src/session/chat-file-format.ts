import { z } from 'zod';
import { describeAgentPlan, describeAgentToolCall } from '../context/agent-activity';
import { HistoryBlock, HistoryMessage, messageText, ToolImage } from '../context/conversation-history';
import { CostTotal, NEW_CHAT_TITLE, titleFromText } from '../protocol';
import { ERROR_CATEGORIES, QodeAssistError } from '../wire/error-info';
import { FileEditRecord } from '../wire/events';
import { redactSecrets } from '../wire/redaction';
import { isToolImageType, keptToolImages, MAX_TOOL_RESULT_IMAGES, ToolImageType } from '../wire/tool-result-images';

/*
 * The chat file's format: its types, the schema every file and import is checked against, the
 * versions inside it, titles, what redaction does to it, and its Markdown export. The store
 * (chat-store.ts) reads and writes it.
 */

export const CHAT_FILE_VERSION = 1;

/** A file edit as the chat last left it: applied by the tool, or undone by the user. */
export interface StoredFileEdit extends FileEditRecord {
    state: 'applied' | 'undone';
}

/** One persisted chat: the session's history (typed blocks, usage) and what the view adds to it. */
export interface StoredChat {
    version: typeof CHAT_FILE_VERSION;
    id: string;
    title: string;
    createdAt: string;
    updatedAt: string;
    /** The agent and role the user chose, if any. */
    agent?: string;
    role?: string;
    history: HistoryMessage[];
    /** File edits by tool call id. */
    edits: Record<string, StoredFileEdit>;
    /** This chat continues a summary of that chat; the original is kept. */
    compressedFrom?: string;
    /** Conversations the user replaced (an edited message, a regenerated answer, a reset), kept so they can be brought back. */
    branches?: ChatBranch[];
    /** The external (ACP) agent's session the chat last talked to: loaded again (`session/load`) where the agent can. */
    agentSession?: { agent: string; sessionId: string };
    /**
     * Counts the writes of this file: a writer saves only over the revision it read, so a copy
     * that went stale (another IDE backend, an edit by hand) never overwrites it. Absent in older files: 0.
     */
    revision?: number;
}

/** A part of a chat the user replaced: the messages from `at` on as they were, and their file edits. */
export interface ChatBranch {
    id: string;
    /** The index in the history of its first message; the messages before it are the ones it shares. */
    at: number;
    messages: HistoryMessage[];
    /** The file edits of its messages, under the keys they had there. */
    edits: Record<string, StoredFileEdit>;
    createdAt: string;
    /** What replaced it. */
    reason: 'edit' | 'regenerate' | 'reset';
    /** Versions made while this one was shown, of its own later messages: they belong to it and come back with it. */
    branches?: ChatBranch[];
}

/** What a writer knows of a chat file: the revision it read or wrote, and how the file looked then. */
export interface ChatFileState {
    revision: number;
    /** Size, time and inode of the file as last read or written; undefined while there is no file. */
    stamp?: string;
}

/** How a revision-checked save ended: written, or refused because the file holds what this copy does not. */
export type ChatSaveOutcome = { saved: ChatFileState } | { conflict: string };

export interface ChatSummary {
    id: string;
    title: string;
    updatedAt: string;
    messages: number;
    compressedFrom?: string;
    /** What its requests cost at the prices they were received at; absent when none had a price. */
    cost?: CostTotal;
}

/** A chat file that could not be read: listed so the user sees it, never overwritten. */
export interface UnreadableChat {
    file: string;
    reason: string;
}

const contentRef = z.object({ path: z.string(), name: z.string(), mediaType: z.string() });
/**
 * A tool result's images: files of the chat's own (`ref`, checked when the chat is loaded), or —
 * in files written before images were kept as files — inline bytes held to the tool loop's rules.
 * A file or an import can hold anything: an image against those rules is left out (the result's
 * text still describes it), never sent, and the rest of the chat still opens.
 */
const toolResultImages = z.array(z.object({ mediaType: z.string(), data: z.string().optional(), bytes: z.number().optional(), ref: contentRef.optional() }))
    .transform(images => {
        const kept: ToolImage[] = [];
        for (const image of images) {
            if (kept.length >= MAX_TOOL_RESULT_IMAGES) {
                break;
            }
            if (image.ref && isToolImageType(image.mediaType) && image.ref.mediaType === image.mediaType && Number.isSafeInteger(image.bytes) && image.bytes! >= 0) {
                kept.push({ mediaType: image.mediaType, bytes: image.bytes!, ref: image.ref });
            } else if (image.data !== undefined && !image.ref) {
                kept.push(...keptToolImages([{ mediaType: image.mediaType as ToolImageType, data: image.data }]));
            }
        }
        return kept;
    });
const agentContent = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('image'), mimeType: z.string(), data: z.string().optional(), uri: z.string().optional() }),
    z.object({ type: z.literal('audio'), mimeType: z.string() }),
    z.object({ type: z.literal('resource'), uri: z.string(), name: z.string().optional(), mimeType: z.string().optional(), text: z.string().optional() })
]);
const agentToolCall = z.object({
    callId: z.string(), title: z.string(),
    kind: z.enum(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']),
    status: z.enum(['pending', 'in_progress', 'completed', 'failed']),
    locations: z.array(z.object({ path: z.string(), line: z.number().int().positive().optional() })),
    content: z.array(z.discriminatedUnion('type', [
        z.object({ type: z.literal('content'), content: agentContent }),
        z.object({ type: z.literal('diff'), path: z.string(), oldText: z.string().optional(), newText: z.string(), patch: z.string().optional() }),
        z.object({ type: z.literal('terminal'), terminalId: z.string() })
    ])),
    rawInput: z.unknown().optional(),
    rawOutput: z.unknown().optional()
});
const agentPlanEntry = z.object({ content: z.string(), priority: z.enum(['high', 'medium', 'low']), status: z.enum(['pending', 'in_progress', 'completed']) });
const historyBlock = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('thinking'), text: z.string(), signature: z.string().optional() }),
    z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
    z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
    z.object({ type: z.literal('tool_result'), toolUseId: z.string(), name: z.string(), content: z.string(), isError: z.boolean(), images: toolResultImages.optional() }),
    z.object({ type: z.literal('image'), ref: contentRef }),
    z.object({ type: z.literal('attachment'), ref: contentRef }),
    z.object({ type: z.literal('file_edit'), path: z.string(), summary: z.string(), editId: z.string().optional() }),
    z.object({ type: z.literal('skill_invocation'), name: z.string(), body: z.string() }),
    z.object({ type: z.literal('completion'), prefix: z.string(), suffix: z.string() }),
    z.object({ type: z.literal('agent_tool_call'), agent: z.string(), call: agentToolCall }),
    z.object({ type: z.literal('agent_plan'), agent: z.string(), entries: z.array(agentPlanEntry) })
]);
const historyMessage = z.object({
    role: z.enum(['user', 'assistant']),
    blocks: z.array(historyBlock),
    usage: z.object({
        inputTokens: z.number(), outputTokens: z.number(), cachedTokens: z.number().optional(), reasoningTokens: z.number().optional(),
        cost: z.object({ amount: z.number().nonnegative(), currency: z.string().regex(/^[A-Z]{3}$/) }).optional()
    }).optional(),
    compressedFrom: z.string().optional(),
    interrupted: z.boolean().optional(),
    ended: z.discriminatedUnion('reason', [
        z.object({
            reason: z.literal('failed'),
            error: z.object({ category: z.enum(ERROR_CATEGORIES), message: z.string(), providerDetail: z.string().optional(), status: z.number().optional(), provider: z.string().optional() })
        }),
        z.object({ reason: z.literal('cancelled') })
    ]).optional()
});
const fileEdits = z.record(z.string(), z.object({
    path: z.string(), absolutePath: z.string(), diff: z.string(), created: z.boolean(), state: z.enum(['applied', 'undone'])
}));
const chatBranch: z.ZodType<ChatBranch> = z.lazy(() => z.object({
    id: z.string().min(1),
    at: z.number().int().nonnegative(),
    messages: z.array(historyMessage),
    edits: fileEdits,
    createdAt: z.string(),
    reason: z.enum(['edit', 'regenerate', 'reset']),
    branches: z.array(chatBranch).optional()
}));
/** How deep versions may sit inside versions in a file: far past what a person makes, short of what a crafted file would need to exhaust the stack. */
export const MAX_VERSION_DEPTH = 200;

/** How deep `branches` nest in a parsed file (counted without recursion). */
export function versionDepth(json: unknown): number {
    let deepest = 0;
    const pending: Array<[unknown, number]> = [[json, 0]];
    while (pending.length > 0) {
        const [node, depth] = pending.pop()!;
        deepest = Math.max(deepest, depth);
        const branches = (node as { branches?: unknown } | null)?.branches;
        if (Array.isArray(branches) && depth <= MAX_VERSION_DEPTH) {
            branches.forEach(branch => pending.push([branch, depth + 1]));
        }
    }
    return deepest;
}

/** Every message of a chat's versions, those kept inside versions included. */
export function versionMessages(branches: readonly ChatBranch[] = []): HistoryMessage[] {
    return branches.flatMap(branch => [...branch.messages, ...versionMessages(branch.branches)]);
}

/** The versions with each one's messages and edits (and those of the versions inside it) mapped. */
export function mapVersions(
    branches: readonly ChatBranch[], messages: (messages: HistoryMessage[]) => HistoryMessage[],
    edits: (edits: Record<string, StoredFileEdit>) => Record<string, StoredFileEdit> = same => same
): ChatBranch[] {
    return branches.map(branch => ({
        ...branch, messages: messages(branch.messages), edits: edits(branch.edits), ...branch.branches ? { branches: mapVersions(branch.branches, messages, edits) } : {}
    }));
}

/** The saved chat format, also what a JSON export holds and an import is checked against. */
export const storedChatSchema = z.object({
    version: z.literal(CHAT_FILE_VERSION),
    id: z.string().min(1),
    title: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    agent: z.string().optional(),
    role: z.string().optional(),
    history: z.array(historyMessage),
    edits: fileEdits,
    compressedFrom: z.string().optional(),
    branches: z.array(chatBranch).optional(),
    agentSession: z.object({ agent: z.string(), sessionId: z.string() }).optional(),
    revision: z.number().int().nonnegative().optional()
});


/** A title the user typed, trimmed; an empty one is refused. */
export function chatTitle(title: string): string {
    const trimmed = title.trim();
    if (!trimmed) {
        throw new QodeAssistError({ category: 'Validation', message: 'A chat title cannot be empty.' });
    }
    return trimmed;
}

/** The title a chat gets from its first user message. */
export function titleOf(history: readonly HistoryMessage[]): string {
    const first = history.find(message => message.role === 'user' && messageText(message).trim());
    return titleFromText(first ? messageText(first) : undefined) ?? NEW_CHAT_TITLE;
}

/** Block fields kept byte-exact: ids, references to files, the provider's opaque blobs, and a tool result's images (bytes, not text: held to their limits instead). */
const VERBATIM_FIELDS = new Set(['type', 'id', 'toolUseId', 'signature', 'data', 'ref', 'path', 'images']);

/** Every string in a value (tool arguments, a nested error's providerDetail, …) redacted; object keys kept. */
function redactDeep(value: unknown, redact: (text: string) => string): unknown {
    if (typeof value === 'string') {
        return redact(value);
    }
    if (Array.isArray(value)) {
        return value.map(item => redactDeep(item, redact));
    }
    if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]));
    }
    return value;
}

function redactBlock(block: HistoryBlock, redact: (text: string) => string): HistoryBlock {
    const redacted = Object.fromEntries(Object.entries(block).map(([key, value]) => [key, VERBATIM_FIELDS.has(key) ? value : redactDeep(value, redact)])) as HistoryBlock;
    if (redacted.type === 'thinking' && block.type === 'thinking' && redacted.text !== block.text) {
        // The provider refuses a signature over changed text; unsigned, the thinking is kept as plain text.
        delete redacted.signature;
    }
    return redacted;
}

function redactMessage(message: HistoryMessage, redact: (text: string) => string): HistoryMessage {
    const redacted: HistoryMessage = { ...message, blocks: message.blocks.map(block => redactBlock(block, redact)) };
    const ended = message.ended;
    if (ended?.reason === 'failed') {
        redacted.ended = { reason: 'failed', error: redactDeep(ended.error, redact) as typeof ended.error };
    }
    return redacted;
}

/** Undo and Apply replay an edit's diff: only real keys leave it, not code that merely looks like one ("password": x). */
function redactEdits(edits: Record<string, StoredFileEdit>, redactValues: (text: string) => string): Record<string, StoredFileEdit> {
    return Object.fromEntries(Object.entries(edits).map(([id, edit]) => [id, { ...edit, diff: redactValues(edit.diff) }]));
}

/** The chat as it may be written to disk: every text a key could hide in (tool results and arguments, errors, diffs, the title) redacted. */
export function redactChat(chat: StoredChat, redact: (text: string) => string, redactValues: (text: string) => string): StoredChat {
    return {
        ...chat,
        title: redact(chat.title),
        history: chat.history.map(message => redactMessage(message, redact)),
        edits: redactEdits(chat.edits, redactValues),
        ...chat.branches ? {
            branches: mapVersions(chat.branches, messages => messages.map(message => redactMessage(message, redact)), edits => redactEdits(edits, redactValues))
        } : {}
    };
}

/** A chat as Markdown for export: the user's and the assistant's text, tool calls and edits in brief; redacted, as a chat saved before redaction may hold a key. */
export function chatToMarkdown(chat: StoredChat): string {
    const lines = [`# ${chat.title}`, '', `_${chat.updatedAt}${chat.agent ? ` · ${chat.agent}` : ''}_`, ''];
    for (const message of chat.history) {
        const parts: string[] = [];
        for (const block of message.blocks) {
            switch (block.type) {
                case 'text':
                    parts.push(block.text);
                    break;
                case 'tool_use':
                    parts.push(`> Tool \`${block.name}\` ${'`'}${JSON.stringify(block.input)}${'`'}`);
                    break;
                case 'tool_result': {
                    const edit = chat.edits[block.toolUseId];
                    parts.push(edit ? `\`\`\`diff\n${edit.diff.trimEnd()}\n\`\`\`` : `> ${block.isError ? 'Failed' : 'Result'}: ${firstLine(block.content)}`);
                    break;
                }
                case 'image':
                case 'attachment':
                    parts.push(`> Attached: ${block.ref.name}`);
                    break;
                case 'skill_invocation':
                    parts.push(`> Skill /${block.name}`);
                    break;
                case 'agent_tool_call':
                    parts.push(`> ${describeAgentToolCall(block.agent, block.call)}`);
                    break;
                case 'agent_plan':
                    parts.push(describeAgentPlan(block.agent, block.entries));
                    break;
                default:
                    break;
            }
        }
        if (parts.length === 0) {
            continue;
        }
        const toolResultsOnly = message.blocks.every(block => block.type === 'tool_result');
        if (!toolResultsOnly) {
            lines.push(message.role === 'user' ? '## You' : '## QodeAssist', '');
        }
        lines.push(parts.join('\n\n'), '');
    }
    return redactSecrets(`${lines.join('\n').trimEnd()}\n`);
}

function firstLine(text: string): string {
    const line = text.split('\n', 1)[0];
    return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
