import { randomBytes } from 'node:crypto';
import { chmod, link, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ToolInputError } from './workspace-files';

/** A hidden temporary name in the same folder, so the final rename stays on one file system. */
function temporaryBeside(path: string): string {
    return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Replaces a file's content through a temporary file and a rename: nobody sees half a file, and a
 * symbolic link put at `path` after the last check is replaced, never followed. Keeps the file's mode.
 */
export async function replaceFileAtomically(path: string, content: string): Promise<void> {
    const mode = (await stat(path).catch(() => undefined))?.mode;
    const temporary = temporaryBeside(path);
    try {
        await writeFile(temporary, content, { flag: 'wx' });
        if (mode !== undefined) {
            await chmod(temporary, mode & 0o7777);
        }
        await rename(temporary, path);
    } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
    }
}

/**
 * Creates a file that must not exist: written to a temporary file, then given its name with a hard
 * link, which fails rather than replace anything (a file or a link) that appeared meanwhile. Where
 * hard links are not supported, a rename does it.
 */
export async function createFileAtomically(path: string, content: string): Promise<void> {
    const temporary = temporaryBeside(path);
    await writeFile(temporary, content, { flag: 'wx' });
    try {
        await link(temporary, path);
    } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') {
            await unlink(temporary).catch(() => undefined);
            throw new ToolInputError(`"${path}" appeared while the file was being created; nothing was overwritten.`);
        }
        await rename(temporary, path).catch(async renameError => {
            await unlink(temporary).catch(() => undefined);
            throw renameError;
        });
        return;
    }
    await unlink(temporary);
}
