import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/durable-file';
import { ChatStore } from '../session/chat-store';

/** One saved chat as `session/list` shows it. */
export interface FolderSession {
    sessionId: string;
    cwd: string;
    title: string;
    updatedAt: string;
}

const FOLDER_FILE = 'folder.json';

/**
 * Where qodeassist-acp keeps its chats: one directory per session folder (named by a hash of the
 * path, the path itself in `folder.json`), so `session/list` answers per folder. Chats saved
 * before this layout stay in the flat directory and are still loaded from there.
 */
export class FolderChats {
    constructor(private readonly root: string) { }

    /** The directory of a folder's chats, made on first use. */
    async directoryFor(cwd: string): Promise<string> {
        const directory = join(this.root, 'folders', createHash('sha256').update(cwd).digest('hex').slice(0, 16));
        if (!existsSync(join(directory, FOLDER_FILE))) {
            mkdirSync(directory, { recursive: true, mode: 0o700 });
            await writeFileAtomic(join(directory, FOLDER_FILE), `${JSON.stringify({ cwd })}\n`);
        }
        return directory;
    }

    /** The directory holding chat `id` for this folder: the folder's own, or the flat one of older chats. */
    async directoryOf(cwd: string, id: string): Promise<string> {
        const own = await this.directoryFor(cwd);
        return !existsSync(join(own, `${id}.json`)) && existsSync(join(this.root, `${id}.json`)) ? this.root : own;
    }

    /** The saved chats of one folder (or of every folder), newest first. */
    async list(cwd?: string): Promise<FolderSession[]> {
        const folders = join(this.root, 'folders');
        const sessions: FolderSession[] = [];
        for (const name of existsSync(folders) ? readdirSync(folders) : []) {
            const folder = folderOf(join(folders, name));
            if (folder === undefined || (cwd !== undefined && folder !== cwd)) {
                continue;
            }
            const { chats } = await new ChatStore(join(folders, name)).list();
            sessions.push(...chats.map(chat => ({ sessionId: chat.id, cwd: folder, title: chat.title, updatedAt: chat.updatedAt })));
        }
        return sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    }
}

function folderOf(directory: string): string | undefined {
    try {
        const cwd = (JSON.parse(readFileSync(join(directory, FOLDER_FILE), 'utf8')) as { cwd?: unknown }).cwd;
        return typeof cwd === 'string' ? cwd : undefined;
    } catch {
        return undefined;
    }
}
