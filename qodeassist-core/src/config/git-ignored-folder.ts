import { constants } from 'node:fs';
import { lstat, mkdir, open, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The `.gitignore` of a folder whose files must never be committed (saved chats, exports). */
export const IGNORE_EVERYTHING = '*\n';

/** What is appended to a `.gitignore` that does not end by ignoring everything: the last matching line wins in git, so this one always does. */
const IGNORE_EVERYTHING_LAST = '# QodeAssist: saved chats are never committed\n*\n';

/** Whether a `.gitignore`'s last rule (blank lines and comments aside) is a bare `*`. */
function endsIgnoringEverything(text: string): boolean {
    const rules = text.split(/\r?\n/).map(line => line.trim()).filter(line => line !== '' && !line.startsWith('#'));
    return rules.at(-1) === '*';
}

/**
 * Creates `folder` with its parents, and makes sure its `.gitignore` ends by ignoring everything,
 * so a chat never lands in a commit by accident — also when the folder already existed (a
 * repository may ship it, with a `.gitignore` of its own that lets files through). A `.gitignore`
 * already there keeps its lines; a final `*` is appended when its last rule is anything else.
 */
export async function createGitIgnoredFolder(folder: string): Promise<void> {
    await mkdir(folder, { recursive: true });
    const path = join(folder, '.gitignore');
    if (await writeNew(path)) {
        return;
    }
    if (!(await lstat(path)).isFile()) {
        // A link (or anything but a file) shipped as the .gitignore: replaced, never followed — appending through it would write elsewhere.
        await unlink(path);
        await writeNew(path);
        return;
    }
    const file = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
        const text = await file.readFile('utf8');
        if (!endsIgnoringEverything(text)) {
            await file.write(`${text === '' || text.endsWith('\n') ? '' : '\n'}${IGNORE_EVERYTHING_LAST}`);
        }
    } finally {
        await file.close();
    }
}

/** Writes a new `.gitignore` ignoring everything; false when one is there already. */
async function writeNew(path: string): Promise<boolean> {
    try {
        await writeFile(path, IGNORE_EVERYTHING, { flag: 'wx' });
        return true;
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
            throw error;
        }
        return false;
    }
}
