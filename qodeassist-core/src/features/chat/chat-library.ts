import { randomUUID } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ContentRef, contentRefsOf, HistoryBlock, HistoryMessage, ToolImage } from '../../context/conversation-history';
import { keptToolImages, ToolImageType } from '../../wire/tool-result-images';
import { ChatBranch, ChatStore, chatTitle, chatToMarkdown, CHAT_FILE_VERSION, mapVersions, MAX_VERSION_DEPTH, StoredChat, storedChatSchema, versionDepth, versionMessages } from '../../session/chat-store';
import { QodeAssistError } from '../../wire/error-info';
import { attachmentRefusal } from './attachment-rules';
import { ChatOwners } from './chat-owners';
import { ATTACHMENT_LIMITS, ChatStorage } from './chat-types';

/** Names a JSON export: a saved chat plus the attachments it refers to. */
export const CHAT_EXPORT_FORMAT = 'qodeassist-chat';

/** The largest chat export an import reads (attachments included, as base64). */
export const MAX_CHAT_IMPORT_BYTES = 64 * 1024 * 1024;

/** Images the chat takes; an imported image of another type is left out. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const exportedAttachment = z.object({ path: z.string(), name: z.string(), mediaType: z.string(), base64: z.string() });
const chatExportSchema = storedChatSchema.extend({ format: z.literal(CHAT_EXPORT_FORMAT), attachments: z.array(exportedAttachment) });

/** A chat as JSON export writes it: the saved format, plus each attachment it refers to. */
export type ChatExport = StoredChat & { format: typeof CHAT_EXPORT_FORMAT; attachments: Array<z.infer<typeof exportedAttachment>> };

/** What an import made: the new chat's id and what of the file it did not take, in plain words. */
export interface ChatImport {
    chatId: string;
    title: string;
    notes: string[];
}

/**
 * The saved chats of a storage, as History shows them: list, rename, delete, export (Markdown or
 * JSON) and import. A chat open in a window is renamed through its owner and never deleted.
 */
export class ChatLibrary {
    constructor(private readonly owners: ChatOwners, private readonly stores: (storage: ChatStorage) => ChatStore) {}

    list(storage: ChatStorage): ReturnType<ChatStore['list']> {
        return this.stores(storage).list();
    }

    async rename(storage: ChatStorage, chatId: string, title: string): Promise<void> {
        const store = this.stores(storage);
        const open = this.owners.find(store, chatId);
        if (!open) {
            await store.rename(chatId, title);
            return;
        }
        // An open chat is saved only by its owner, so a save under way cannot undo the rename.
        open.record.title = chatTitle(title);
        this.owners.save(open);
        await open.saving;
    }

    async delete(storage: ChatStorage, chatId: string): Promise<void> {
        if (this.owners.find(this.stores(storage), chatId)) {
            throw new QodeAssistError({ category: 'Validation', message: 'This chat is open in a window; close its view before deleting it.' });
        }
        await this.stores(storage).delete(chatId);
    }

    async exportMarkdown(storage: ChatStorage, chatId: string): Promise<string> {
        return chatToMarkdown(await this.loadSaved(storage, chatId));
    }

    /** The chat in its saved format (as written: redacted), with its attachments' bytes, as JSON. */
    async exportJson(storage: ChatStorage, chatId: string): Promise<string> {
        const chat = await this.loadSaved(storage, chatId);
        const refs = new Map<string, ContentRef>();
        for (const message of messagesOf(chat)) {
            for (const ref of message.blocks.flatMap(contentRefsOf)) {
                refs.set(ref.path, ref);
            }
        }
        const attachments: ChatExport['attachments'] = [];
        for (const ref of refs.values()) {
            // The store checked on load that each is the chat's own copy; checked again as it is read (a link planted since is not followed).
            const info = await lstat(ref.path).catch(() => undefined);
            const bytes = info?.isFile() && info.size <= ATTACHMENT_LIMITS.imageBytes ? await readFile(ref.path).catch(() => undefined) : undefined;
            if (bytes) {
                attachments.push({ path: ref.path, name: ref.name, mediaType: ref.mediaType, base64: bytes.toString('base64') });
            }
        }
        const exported: ChatExport = { format: CHAT_EXPORT_FORMAT, ...chat, attachments };
        return `${JSON.stringify(exported, undefined, 1)}\n`;
    }

    /**
     * A chat exported as JSON (here or elsewhere, maybe by someone else) saved as a new chat of this
     * storage. It is checked as a chat file is; it never names files on this machine: attachments come
     * from the export's own bytes, within the chat's limits, and file edits are not taken (Undo would
     * write to paths the file names).
     */
    async importJson(storage: ChatStorage, text: string): Promise<ChatImport> {
        const exported = parseExport(text);
        const store = this.stores(storage);
        const id = randomUUID();
        const notes: string[] = [];
        const stored = new Map<string, Promise<ContentRef | undefined>>();
        const byPath = new Map(exported.attachments.map(attachment => [attachment.path, attachment]));
        const copy = (ref: ContentRef, image: boolean): Promise<ContentRef | undefined> => {
            const key = `${image}:${ref.path}`;
            let copied = stored.get(key);
            if (!copied) {
                copied = this.importAttachment(store, id, byPath.get(ref.path), image, notes);
                stored.set(key, copied);
            }
            return copied;
        };
        const importMessages = async (messages: readonly HistoryMessage[]): Promise<HistoryMessage[]> => {
            const result: HistoryMessage[] = [];
            for (const message of messages) {
                const blocks: HistoryBlock[] = [];
                for (const block of message.blocks) {
                    if (block.type === 'tool_result') {
                        blocks.push(importedToolImages(block, byPath, notes));
                        continue;
                    }
                    if (block.type !== 'image' && block.type !== 'attachment') {
                        blocks.push(block);
                        continue;
                    }
                    const ref = await copy(block.ref, block.type === 'image');
                    blocks.push(ref ? { ...block, ref } : { type: 'text', text: `[${block.type === 'image' ? 'Image' : 'Attachment'} "${block.ref.name}" was not imported]` });
                }
                result.push({ ...message, blocks });
            }
            return result;
        };
        let edits = Object.keys(exported.edits).length;
        mapVersions(exported.branches ?? [], messages => messages, versionEdits => {
            edits += Object.keys(versionEdits).length;
            return versionEdits;
        });
        if (edits > 0) {
            notes.push(`${edits} file edit(s) are shown but cannot be undone or applied from the imported chat.`);
        }
        const now = new Date().toISOString();
        const chat: StoredChat = {
            version: CHAT_FILE_VERSION, id, title: exported.title.trim() || 'Imported chat', createdAt: exported.createdAt, updatedAt: now,
            ...exported.agent ? { agent: exported.agent } : {}, ...exported.role ? { role: exported.role } : {},
            history: await importMessages(exported.history), edits: {},
            ...exported.branches?.length ? { branches: await importVersions(exported.branches, importMessages) } : {}
        };
        const outcome = await store.saveOver(chat, { revision: 0 });
        if ('conflict' in outcome) {
            throw new QodeAssistError({ category: 'Config', message: `The imported chat could not be saved: ${outcome.conflict}.` });
        }
        return { chatId: id, title: chat.title, notes };
    }

    private async loadSaved(storage: ChatStorage, chatId: string): Promise<StoredChat> {
        const store = this.stores(storage);
        const open = this.owners.find(store, chatId);
        // An open chat's latest messages may not be on disk yet.
        await open?.saving;
        return store.load(chatId);
    }

    /** An exported attachment kept as the new chat's own copy, if it is one the chat would take. */
    private async importAttachment(
        store: ChatStore, id: string, attachment: ChatExport['attachments'][number] | undefined, image: boolean, notes: string[]
    ): Promise<ContentRef | undefined> {
        if (!attachment) {
            notes.push('An attachment the chat refers to was not in the export; it is left out.');
            return undefined;
        }
        const bytes = Buffer.from(attachment.base64, 'base64');
        const refusal = image && !IMAGE_TYPES.has(attachment.mediaType) ? `"${attachment.name}" is not an image the chat takes (${attachment.mediaType})`
            : attachmentRefusal(attachment.name, image ? attachment.mediaType : 'text/plain', bytes)?.reason;
        if (refusal) {
            notes.push(`${refusal}; it is left out.`);
            return undefined;
        }
        return store.storeAttachment(id, attachment.name, attachment.mediaType, bytes);
    }
}

/**
 * A tool result's images from the export's own bytes, held to the tool loop's rules; the store
 * writes them as the new chat's files when it saves. One missing or against the rules is left out.
 */
function importedToolImages(block: Extract<HistoryBlock, { type: 'tool_result' }>, byPath: ReadonlyMap<string, ChatExport['attachments'][number]>, notes: string[]): HistoryBlock {
    if (!block.images?.length) {
        return block;
    }
    const images: ToolImage[] = [];
    for (const image of block.images) {
        const exported = 'ref' in image ? byPath.get(image.ref.path) : undefined;
        const candidate = 'data' in image ? image : exported ? { mediaType: image.mediaType as ToolImageType, data: exported.base64 } : undefined;
        const kept = keptToolImages(candidate ? [candidate] : []);
        if (kept.length === 0) {
            notes.push(`An image ${block.name} returned was ${candidate ? 'not an image the chat takes' : 'not in the export'}; it is left out.`);
        }
        images.push(...kept);
    }
    const imported: HistoryBlock = { ...block, images };
    if (images.length === 0) {
        delete imported.images;
    }
    return imported;
}

/** The export a text holds, checked: size, JSON, format and version, every field. */
function parseExport(text: string): ChatExport {
    if (Buffer.byteLength(text) > MAX_CHAT_IMPORT_BYTES) {
        throw new QodeAssistError({ category: 'Validation', message: `The file is larger than a chat export may be (${MAX_CHAT_IMPORT_BYTES / 1024 / 1024} MB); it was not imported.` });
    }
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        throw new QodeAssistError({ category: 'Validation', message: `The file is not valid JSON (${(error as Error).message}); choose a chat exported as JSON from QodeAssist.` });
    }
    const head = json as { format?: unknown; version?: unknown } | null;
    if (head?.format !== CHAT_EXPORT_FORMAT) {
        throw new QodeAssistError({ category: 'Validation', message: `The file is not a QodeAssist chat export (it has no "format": "${CHAT_EXPORT_FORMAT}"); export the chat as JSON from Chat History.` });
    }
    if (typeof head.version === 'number' && head.version > CHAT_FILE_VERSION) {
        throw new QodeAssistError({ category: 'Validation', message: `The chat export has version ${head.version}, newer than this QodeAssist reads (${CHAT_FILE_VERSION}). Update QodeAssist to import it.` });
    }
    if (versionDepth(json) > MAX_VERSION_DEPTH) {
        throw new QodeAssistError({ category: 'Validation', message: `The chat export nests versions more than ${MAX_VERSION_DEPTH} deep; it was not imported.` });
    }
    const parsed = chatExportSchema.safeParse(json);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new QodeAssistError({ category: 'Validation', message: `The chat export is not valid at ${issue.path.join('.') || '(root)'}: ${issue.message}. It was not imported.` });
    }
    return parsed.data as ChatExport;
}

function messagesOf(chat: StoredChat): HistoryMessage[] {
    return [...chat.history, ...versionMessages(chat.branches)];
}

/** The versions (and the versions inside them) with their messages imported one after another, their file edits left out. */
async function importVersions(branches: readonly ChatBranch[], importMessages: (messages: readonly HistoryMessage[]) => Promise<HistoryMessage[]>): Promise<ChatBranch[]> {
    const imported: ChatBranch[] = [];
    for (const branch of branches) {
        imported.push({
            ...branch, messages: await importMessages(branch.messages), edits: {},
            ...branch.branches ? { branches: await importVersions(branch.branches, importMessages) } : {}
        });
    }
    return imported;
}

/** Where a storage's chats are kept by default: `.qodeassist/chats` of the workspace or the user's home. */
export function defaultChatStore(storage: ChatStorage, userHome: string): ChatStore {
    const root = storage.location === 'workspace' && storage.workspacePath ? storage.workspacePath : userHome;
    return new ChatStore(join(root, '.qodeassist', 'chats'));
}
