import { cp, lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { removeAbandonedTemporaryFiles, writeFileAtomic } from '../config/durable-file';
import { createGitIgnoredFolder } from '../config/git-ignored-folder';
import { ContentRef, HistoryMessage, mapContentRefs } from '../context/conversation-history';
import { chatCostOf, CostTotal } from '../context/usage-totals';
import { QodeAssistError } from '../wire/error-info';
import { KnownSecrets, PROCESS_SECRETS, redactKnownValues } from '../wire/redaction';
import {
    CHAT_FILE_VERSION, ChatFileState, ChatSaveOutcome, ChatSummary, chatTitle, mapVersions, MAX_VERSION_DEPTH, redactChat, StoredChat, storedChatSchema, UnreadableChat,
    versionDepth, versionMessages
} from './chat-file-format';
import { ToolImageFiles } from './tool-image-files';

export * from './chat-file-format';

const ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

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
    private readonly toolImages = new ToolImageFiles(this);

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
        if (versionDepth(json) > MAX_VERSION_DEPTH) {
            throw new QodeAssistError({ category: 'Config', message: `The chat file ${file} nests versions more than ${MAX_VERSION_DEPTH} deep. It was left as it is; delete it.` });
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
        for (const message of [...chat.history, ...versionMessages(chat.branches)]) {
            for (const block of message.blocks) {
                if ((block.type === 'image' || block.type === 'attachment') && !await this.ownsAttachmentFile(id, block.ref.path)) {
                    // A chat file can come with a cloned workspace: it must not make the next send upload any file it names, by its path or through a link.
                    throw new QodeAssistError({
                        category: 'Config',
                        message: `The chat file ${file} refers to the attachment "${block.ref.path}", which is not a file in its own folder ${this.attachmentsOf(id)} (or is a link). It was not opened and left as it is; delete it, or fix the path.`
                    });
                }
            }
        }
        return this.toolImages.checked(chat);
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

    /**
     * Writes the chat whole, redacted: a temporary file beside it, flushed, then a rename over the old
     * one. A tool result's images are written once as files of the chat; the chat file refers to them.
     */
    async save(chat: StoredChat): Promise<void> {
        const file = this.fileOf(chat.id);
        await createGitIgnoredFolder(this.directory);
        const filed = await this.toolImages.filed(chat);
        await writeFileAtomic(file, `${JSON.stringify(this.redacted(filed), undefined, 1)}\n`);
    }

    /**
     * Writes the chat only over the file `base` describes: when another writer changed it since,
     * the write goes ahead only if this copy continues what is on disk (nothing there would be
     * lost); otherwise nothing is written and the reason is returned. A file that no longer
     * parses is never overwritten. Between two processes the check and the rename are not one step:
     * a write in that instant can still be lost, a stale copy an hour old cannot.
     */
    async saveOver(unfiled: StoredChat, base: ChatFileState): Promise<ChatSaveOutcome> {
        const file = this.fileOf(unfiled.id);
        await createGitIgnoredFolder(this.directory);
        // As it would be written (images as files) before it is compared with what is on disk.
        const chat = await this.toolImages.filed(unfiled);
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
        const copy: StoredChat = {
            ...chat, id, title: `${chat.title} (conflict copy)`, revision: 0, history: this.relocateAttachments(chat.history, [chat.id], id),
            ...chat.branches ? { branches: mapVersions(chat.branches, messages => this.relocateAttachments(messages, [chat.id], id)) } : {}
        };
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

    /**
     * Whether `path` is one of the chat's own copies as the disk has it: named in its folder, the
     * chat's folders not links, and the file itself a regular file or absent (deleted since) — never a
     * link or a device, which a repository could plant to make a send read any file of the machine.
     */
    async ownsAttachmentFile(id: string, path: string): Promise<boolean> {
        if (!this.ownsAttachment(id, path)) {
            return false;
        }
        for (const folder of [join(this.directory, this.idOf(id)), this.attachmentsOf(id)]) {
            const info = await lstat(folder).catch(() => undefined);
            if (info && !info.isDirectory()) {
                return false;
            }
        }
        const info = await lstat(path).catch(() => undefined);
        // One name only: a hard link shares another file's bytes (one outside the chat's folder, say), so it is no copy of the chat's own.
        return !info || (info.isFile() && info.nlink === 1);
    }

    /** Keeps a copy of an attached file beside the chat; the history refers to the copy. */
    async storeAttachment(id: string, name: string, mediaType: string, bytes: Uint8Array): Promise<ContentRef> {
        const safeName = basename(name).replace(/[^\w.\- ]+/g, '_') || 'attachment';
        const folder = this.attachmentsOf(id);
        await createGitIgnoredFolder(this.directory);
        await mkdir(folder, { recursive: true });
        const extension = extname(safeName);
        for (let n = 1; ; n++) {
            const path = join(folder, n === 1 ? safeName : `${basename(safeName, extension)}-${n}${extension}`);
            try {
                // `wx`: two copies stored at once never take the same name (nor write through a link planted there).
                await writeFile(path, bytes, { mode: 0o600, flag: 'wx' });
                return { path, name, mediaType };
            } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 10_000) {
                    throw error;
                }
            }
        }
    }

    /** The history with the attachments (and a tool result's saved images) kept in the folders of `fromIds` referring to their copies in the folder of `toId`. */
    relocateAttachments(history: readonly HistoryMessage[], fromIds: readonly string[], toId: string): HistoryMessage[] {
        const relocated = (ref: ContentRef): ContentRef => fromIds.some(from => this.ownsAttachment(from, ref.path))
            ? { ...ref, path: join(this.attachmentsOf(toId), basename(ref.path)) }
            : ref;
        return history.map(message => ({
            ...message,
            blocks: message.blocks.map(block => mapContentRefs(block, relocated))
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

/** What a chat's requests cost, the answers it replaced (its branches) included: they were paid for too. */
function summaryCost(chat: StoredChat): { cost?: CostTotal } {
    const cost = chatCostOf([...chat.history, ...versionMessages(chat.branches)]);
    return cost ? { cost } : {};
}
