import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { z } from 'zod';
import { removeAbandonedTemporaryFiles, writeFileAtomic } from '../config/atomic-file';
import { createGitIgnoredFolder } from '../config/git-ignored-folder';
import { ContentRef, HistoryBlock, HistoryMessage, messageText } from '../context/conversation-history';
import { chatCostOf, CostTotal } from '../context/usage-totals';
import { ERROR_CATEGORIES, QodeAssistError } from '../wire/error-info';
import { FileEditRecord } from '../wire/events';
import { KnownSecrets, PROCESS_SECRETS, redactKnownValues, redactSecrets } from '../wire/redaction';

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
const historyBlock = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('thinking'), text: z.string(), signature: z.string().optional() }),
    z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
    z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
    z.object({ type: z.literal('tool_result'), toolUseId: z.string(), name: z.string(), content: z.string(), isError: z.boolean() }),
    z.object({ type: z.literal('image'), ref: contentRef }),
    z.object({ type: z.literal('attachment'), ref: contentRef }),
    z.object({ type: z.literal('file_edit'), path: z.string(), summary: z.string() }),
    z.object({ type: z.literal('skill_invocation'), name: z.string(), body: z.string() }),
    z.object({ type: z.literal('completion'), prefix: z.string(), suffix: z.string() })
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
    branches: z.array(z.object({
        id: z.string().min(1),
        at: z.number().int().nonnegative(),
        messages: z.array(historyMessage),
        edits: fileEdits,
        createdAt: z.string(),
        reason: z.enum(['edit', 'regenerate', 'reset'])
    })).optional(),
    revision: z.number().int().nonnegative().optional()
});

const ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;
const TITLE_LENGTH = 60;

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
    const text = first ? messageText(first).trim().replace(/\s+/g, ' ') : '';
    if (!text) {
        return 'New chat';
    }
    return text.length > TITLE_LENGTH ? `${text.slice(0, TITLE_LENGTH - 1)}…` : text;
}

/** Block fields kept byte-exact: ids, references to files, and the provider's opaque blobs. */
const VERBATIM_FIELDS = new Set(['type', 'id', 'toolUseId', 'signature', 'data', 'ref', 'path']);

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
function redactChat(chat: StoredChat, redact: (text: string) => string, redactValues: (text: string) => string): StoredChat {
    return {
        ...chat,
        title: redact(chat.title),
        history: chat.history.map(message => redactMessage(message, redact)),
        edits: redactEdits(chat.edits, redactValues),
        ...chat.branches ? {
            branches: chat.branches.map(branch => ({ ...branch, messages: branch.messages.map(message => redactMessage(message, redact)), edits: redactEdits(branch.edits, redactValues) }))
        } : {}
    };
}

/** Folders whose abandoned temporary files were removed by this process already. */
const CLEANED = new Set<string>();

/** The file as a writer remembers it: another write (a rename) changes the inode, an edit the time or size. */
async function stampOf(file: string): Promise<string | undefined> {
    try {
        const stats = await stat(file, { bigint: true });
        return `${stats.size}:${stats.mtimeNs}:${stats.ino}`;
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            return undefined;
        }
        throw error;
    }
}

/** Whether `ours` continues `onDisk`: every message on disk (an interrupted answer at its end aside) is ours too, in order. */
function continues(ours: readonly HistoryMessage[], onDisk: readonly HistoryMessage[]): boolean {
    const kept = onDisk.at(-1)?.interrupted ? onDisk.slice(0, -1) : onDisk;
    return kept.length <= ours.length && kept.every((message, index) => JSON.stringify(message) === JSON.stringify(ours[index]));
}

/**
 * Chats on disk: one `<id>.json` per chat (versioned, validated on read, written
 * atomically through a temporary file and a rename) and its attachments in `<id>/`.
 * A file that does not parse is reported and left alone — never overwritten.
 * What is written is redacted: resolved keys by value, and anything shaped like a key.
 */
export class ChatStore {
    readonly directory: string;

    /** `secrets`: the keys resolved so far; by default every key this process resolved. */
    constructor(directory: string, private readonly secrets: KnownSecrets = PROCESS_SECRETS) {
        this.directory = resolve(directory);
    }

    async list(): Promise<{ chats: ChatSummary[]; unreadable: UnreadableChat[] }> {
        await this.removeLeftovers();
        let names: string[];
        try {
            names = await readdir(this.directory);
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
                return { chats: [], unreadable: [] };
            }
            throw error;
        }
        const chats: ChatSummary[] = [];
        const unreadable: UnreadableChat[] = [];
        for (const name of names.filter(candidate => extname(candidate) === '.json' && !candidate.startsWith('.')).sort()) {
            try {
                const chat = await this.load(basename(name, '.json'));
                chats.push({
                    id: chat.id, title: chat.title, updatedAt: chat.updatedAt, messages: chat.history.length, ...summaryCost(chat),
                    ...(chat.compressedFrom ? { compressedFrom: chat.compressedFrom } : {})
                });
            } catch (error) {
                unreadable.push({ file: join(this.directory, name), reason: error instanceof Error ? error.message : String(error) });
            }
        }
        chats.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
        return { chats, unreadable };
    }

    /** The chat and the state a revision-checked save starts from. */
    async open(id: string): Promise<{ chat: StoredChat; state: ChatFileState }> {
        await this.removeLeftovers();
        const stamp = await stampOf(this.fileOf(id));
        const chat = await this.load(id);
        return { chat, state: { revision: chat.revision ?? 0, stamp } };
    }

    async load(id: string): Promise<StoredChat> {
        const file = this.fileOf(id);
        let text: string;
        try {
            text = await readFile(file, 'utf8');
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
                throw new QodeAssistError({ category: 'Config', message: `There is no saved chat ${id} in ${this.directory}; it was deleted or the history location changed (qodeassist.chat.historyLocation).` });
            }
            throw error;
        }
        let json: unknown;
        try {
            json = JSON.parse(text);
        } catch (error) {
            throw new QodeAssistError({ category: 'Config', message: `The chat file ${file} is not valid JSON (${(error as Error).message}). It was left as it is; fix or delete it.` });
        }
        const version = (json as { version?: unknown } | null)?.version;
        if (typeof version === 'number' && version > CHAT_FILE_VERSION) {
            throw new QodeAssistError({ category: 'Config', message: `The chat file ${file} has version ${version}, newer than this QodeAssist reads (${CHAT_FILE_VERSION}). Update QodeAssist to open it.` });
        }
        const parsed = storedChatSchema.safeParse(json);
        if (!parsed.success) {
            const issue = parsed.error.issues[0];
            throw new QodeAssistError({ category: 'Config', message: `The chat file ${file} is not a QodeAssist chat: ${issue.path.join('.') || '(root)'}: ${issue.message}. It was left as it is; fix or delete it.` });
        }
        const chat = parsed.data as StoredChat;
        if (chat.id !== id) {
            throw new QodeAssistError({ category: 'Config', message: `The chat file ${file} holds chat "${chat.id}", not "${id}". It was left as it is; rename it to ${chat.id}.json or delete it.` });
        }
        for (const message of [...chat.history, ...(chat.branches ?? []).flatMap(branch => branch.messages)]) {
            for (const block of message.blocks) {
                if ((block.type === 'image' || block.type === 'attachment') && !this.ownsAttachment(id, block.ref.path)) {
                    // A chat file can come with a cloned workspace: it must not make the next send upload any file it names.
                    throw new QodeAssistError({
                        category: 'Config',
                        message: `The chat file ${file} refers to the attachment "${block.ref.path}", which is not in its own folder ${this.attachmentsOf(id)}. It was not opened and left as it is; delete it, or fix the path.`
                    });
                }
            }
        }
        return chat;
    }

    /** Where a chat's attached copies live. */
    attachmentsOf(id: string): string {
        return join(this.directory, this.idOf(id), 'attachments');
    }

    /** Whether `path` is one of the chat's own attachment copies (directly in its folder, no `..`). */
    ownsAttachment(id: string, path: string): boolean {
        const absolute = resolve(path);
        return absolute === path && dirname(absolute) === this.attachmentsOf(id);
    }

    /** Writes the chat whole, redacted: a temporary file beside it, flushed, then a rename over the old one. */
    async save(chat: StoredChat): Promise<void> {
        const file = this.fileOf(chat.id);
        await createGitIgnoredFolder(this.directory);
        await writeFileAtomic(file, `${JSON.stringify(this.redacted(chat), undefined, 1)}\n`);
    }

    /**
     * Writes the chat only over the file `base` describes: when another writer changed it since,
     * the write goes ahead only if this copy continues what is on disk (nothing there would be
     * lost); otherwise nothing is written and the reason is returned. A file that no longer
     * parses is never overwritten. Between two processes the check and the rename are not one step:
     * a write in that instant can still be lost, a stale copy an hour old cannot.
     */
    async saveOver(chat: StoredChat, base: ChatFileState): Promise<ChatSaveOutcome> {
        const file = this.fileOf(chat.id);
        let revision = base.revision;
        const stamp = await stampOf(file);
        if (stamp !== undefined && stamp !== base.stamp) {
            let onDisk: StoredChat;
            try {
                onDisk = await this.load(chat.id);
            } catch (error) {
                return { conflict: `${file} changed since this window read it and cannot be read now (${error instanceof Error ? error.message : String(error)})` };
            }
            const diskRevision = onDisk.revision ?? 0;
            // Changed since this copy read it (another backend, an edit by hand, an older QodeAssist without revisions): written over only if nothing there would be lost.
            if (!continues(this.redacted(chat).history, onDisk.history)) {
                return { conflict: `${file} was changed by another program or IDE backend (revision ${diskRevision}, this copy started from ${base.revision})` };
            }
            revision = Math.max(revision, diskRevision);
        }
        await this.save({ ...chat, revision: revision + 1 });
        return { saved: { revision: revision + 1, stamp: await stampOf(file) } };
    }

    /**
     * Keeps a copy that may not overwrite its file beside it, as a chat of its own ("… (conflict copy)")
     * with its attachments copied along; the id it is saved under is returned.
     */
    async saveConflictCopy(chat: StoredChat): Promise<{ id: string; state: ChatFileState }> {
        const id = `${chat.id.slice(0, 36)}-conflict-${Date.now().toString(36)}`;
        await cp(this.attachmentsOf(chat.id), this.attachmentsOf(id), { recursive: true }).catch(error => {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
                throw error;
            }
        });
        const copy: StoredChat = { ...chat, id, title: `${chat.title} (conflict copy)`, revision: 0, history: this.relocateAttachments(chat.history, [chat.id], id) };
        const outcome = await this.saveOver(copy, { revision: 0 });
        if ('conflict' in outcome) {
            throw new QodeAssistError({ category: 'Config', message: `The conflict copy ${this.fileOf(id)} could not be written: ${outcome.conflict}.` });
        }
        return { id, state: outcome.saved };
    }

    async rename(id: string, title: string): Promise<StoredChat> {
        const valid = chatTitle(title);
        const chat = await this.load(id);
        // A new revision: a window of another backend holding this chat open saves beside it, not over it.
        const renamed = { ...chat, title: valid, revision: (chat.revision ?? 0) + 1 };
        await this.save(renamed);
        return renamed;
    }

    /** Removes the chat and its attachments. */
    async delete(id: string): Promise<void> {
        await rm(this.fileOf(id), { force: true });
        await rm(join(this.directory, id), { recursive: true, force: true });
    }

    /** Keeps a copy of an attached file beside the chat; the history refers to the copy. */
    async storeAttachment(id: string, name: string, mediaType: string, bytes: Uint8Array): Promise<ContentRef> {
        const safeName = basename(name).replace(/[^\w.\- ]+/g, '_') || 'attachment';
        const folder = this.attachmentsOf(id);
        await createGitIgnoredFolder(this.directory);
        await mkdir(folder, { recursive: true });
        let path = join(folder, safeName);
        for (let n = 2; await exists(path); n++) {
            const extension = extname(safeName);
            path = join(folder, `${basename(safeName, extension)}-${n}${extension}`);
        }
        await writeFile(path, bytes, { mode: 0o600 });
        return { path, name, mediaType };
    }

    /** The history with the attachments kept in the folders of `fromIds` referring to their copies in the folder of `toId`. */
    relocateAttachments(history: readonly HistoryMessage[], fromIds: readonly string[], toId: string): HistoryMessage[] {
        const relocated = (ref: ContentRef): ContentRef => fromIds.some(from => this.ownsAttachment(from, ref.path))
            ? { ...ref, path: join(this.attachmentsOf(toId), basename(ref.path)) }
            : ref;
        return history.map(message => ({
            ...message,
            blocks: message.blocks.map(block => block.type === 'image' || block.type === 'attachment' ? { ...block, ref: relocated(block.ref) } : block)
        }));
    }

    /** The chat as it is written: keys redacted by value and by shape. */
    private redacted(chat: StoredChat): StoredChat {
        return redactChat(chat, text => this.secrets.redact(text), text => redactKnownValues(text, this.secrets.list()));
    }

    /** Once per folder and process: temporary files of writes a crash cut short are removed (at a backend's start, and at the folder's first use). */
    async removeLeftovers(): Promise<void> {
        if (!CLEANED.has(this.directory)) {
            CLEANED.add(this.directory);
            await removeAbandonedTemporaryFiles(this.directory);
        }
    }

    private fileOf(id: string): string {
        return join(this.directory, `${this.idOf(id)}.json`);
    }

    private idOf(id: string): string {
        if (!ID_PATTERN.test(id)) {
            throw new QodeAssistError({ category: 'Validation', message: `"${id}" is not a chat id.` });
        }
        return id;
    }
}

async function exists(path: string): Promise<boolean> {
    try {
        await stat(path);
        return true;
    } catch {
        return false;
    }
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

/** What a chat's requests cost, the answers it replaced (its branches) included: they were paid for too. */
function summaryCost(chat: StoredChat): { cost?: CostTotal } {
    const cost = chatCostOf([...chat.history, ...(chat.branches ?? []).flatMap(branch => branch.messages)]);
    return cost ? { cost } : {};
}
