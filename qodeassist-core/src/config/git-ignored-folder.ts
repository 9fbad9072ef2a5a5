import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The `.gitignore` of a folder whose files must never be committed (saved chats, exports). */
export const IGNORE_EVERYTHING = '*\n';

/**
 * Creates `folder` with its parents. When this call created it, a `.gitignore` ignoring
 * everything goes in first, so a chat never lands in a commit by accident; a folder that
 * already existed is the user's, and so is any `.gitignore` in it.
 */
export async function createGitIgnoredFolder(folder: string): Promise<void> {
    const created = await mkdir(folder, { recursive: true });
    if (created === undefined) {
        return;
    }
    try {
        await writeFile(join(folder, '.gitignore'), IGNORE_EVERYTHING, { flag: 'wx' });
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
            throw error;
        }
    }
}
