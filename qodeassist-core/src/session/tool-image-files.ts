import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HistoryBlock, HistoryMessage, StoredToolImage, ToolImage } from '../context/conversation-history';
import { base64Size, ToolImageType, ToolResultImage } from '../wire/tool-result-images';
import { mapVersions, StoredChat, versionMessages } from './chat-file-format';

/*
 * A tool result's images as files of the chat (beside its attachments), not base64 in the chat
 * file: the file is rewritten every few seconds while an answer streams, and the history a view
 * gets carries no image bytes. Each image is written once, named by a hash of its bytes.
 */

const EXTENSIONS: Readonly<Record<ToolImageType, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** The file name of an image: a hash of its bytes and the extension of its (allowed) type. */
export function toolImageFileName(image: ToolResultImage): string {
    return `${createHash('sha256').update(image.data).digest('hex').slice(0, 32)}.${EXTENSIONS[image.mediaType]}`;
}

/** What the store tells this class of a chat's folder. */
export interface ChatFolders {
    attachmentsOf(id: string): string;
    /** Whether the path is the chat's own copy on disk (its folder, no link). */
    ownsAttachmentFile(id: string, path: string): Promise<boolean>;
}

export class ToolImageFiles {
    /** The files an image in memory was written to, per chat id: a save every few seconds hashes and writes nothing again. */
    private readonly written = new WeakMap<ToolResultImage, Map<string, StoredToolImage>>();

    constructor(private readonly folders: ChatFolders) { }

    /** The chat with every image still held as bytes written to a file of its own and referred to. */
    async filed(chat: StoredChat): Promise<StoredChat> {
        const fresh = [...chat.history, ...versionMessages(chat.branches)]
            .flatMap(message => message.blocks.flatMap(block => block.type === 'tool_result' ? (block.images ?? []).filter(isFresh) : []));
        if (fresh.length === 0) {
            return chat;
        }
        for (const image of fresh) {
            await this.write(chat.id, image);
        }
        const map = (messages: HistoryMessage[]) => messages.map(message => ({
            ...message,
            blocks: message.blocks.map((block): HistoryBlock => block.type === 'tool_result' && block.images?.some(isFresh)
                ? { ...block, images: block.images.map(image => isFresh(image) ? this.written.get(image)!.get(chat.id)! : image) }
                : block)
        }));
        return { ...chat, history: map(chat.history), ...chat.branches ? { branches: mapVersions(chat.branches, map) } : {} };
    }

    /**
     * The chat with each saved image checked as an attachment is: a file in its own folder, not a
     * link. One that is not is left out, with a line in the result's text saying so; the chat still opens.
     */
    async checked(chat: StoredChat): Promise<StoredChat> {
        const bad = new Set<StoredToolImage>();
        for (const message of [...chat.history, ...versionMessages(chat.branches)]) {
            for (const block of message.blocks) {
                for (const image of block.type === 'tool_result' ? block.images ?? [] : []) {
                    if ('ref' in image && !await this.folders.ownsAttachmentFile(chat.id, image.ref.path)) {
                        bad.add(image);
                    }
                }
            }
        }
        if (bad.size === 0) {
            return chat;
        }
        const map = (messages: HistoryMessage[]) => messages.map(message => ({
            ...message,
            blocks: message.blocks.map((block): HistoryBlock => {
                const dropped = block.type === 'tool_result' ? (block.images ?? []).filter(image => bad.has(image as StoredToolImage)) : [];
                if (block.type !== 'tool_result' || dropped.length === 0) {
                    return block;
                }
                const images = block.images!.filter(image => !bad.has(image as StoredToolImage));
                const notice = dropped.map(image => `[an image of this result was left out: its file "${(image as StoredToolImage).ref.path}" is not in the chat's own folder ${this.folders.attachmentsOf(chat.id)} (or is a link)]`);
                const checked: HistoryBlock = { ...block, content: [block.content, ...notice].join('\n'), images };
                if (images.length === 0) {
                    delete checked.images;
                }
                return checked;
            })
        }));
        return { ...chat, history: map(chat.history), ...chat.branches ? { branches: mapVersions(chat.branches, map) } : {} };
    }

    private async write(id: string, image: ToolResultImage): Promise<void> {
        let byChat = this.written.get(image);
        if (byChat?.has(id)) {
            return;
        }
        const folder = this.folders.attachmentsOf(id);
        const name = toolImageFileName(image);
        const path = join(folder, name);
        await mkdir(folder, { recursive: true });
        try {
            // `wx`: never written through a link planted there; a file of that name holds these bytes already (its name is their hash).
            await writeFile(path, Buffer.from(image.data, 'base64'), { mode: 0o600, flag: 'wx' });
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
                throw error;
            }
        }
        if (!byChat) {
            byChat = new Map();
            this.written.set(image, byChat);
        }
        byChat.set(id, { mediaType: image.mediaType, bytes: base64Size(image.data), ref: { path, name, mediaType: image.mediaType } });
    }
}

function isFresh(image: ToolImage): image is ToolResultImage {
    return 'data' in image;
}
