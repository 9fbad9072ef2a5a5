import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive';

/** `<file>.<pid>-<uuid>.tmp`: the writing process is named, so a later start can tell a leftover from a write under way. */
const TEMPORARY_NAME = /\.(\d+)-[0-9a-f-]{36}\.tmp$/;

/** A leftover of a live process is left alone unless it is this old (the pid may have been reused after a crash). */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/**
 * Writes a file whole and durably: a temporary file beside it, flushed to the disk, then a
 * rename over the old one and the folder flushed too (POSIX), so a reader never sees half of it
 * and a power loss leaves either the old or the new file.
 */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
    const folder = dirname(file);
    await mkdir(folder, { recursive: true });
    const temporary = `${file}.${process.pid}-${randomUUID()}.tmp`;
    try {
        const handle = await open(temporary, 'w', mode);
        try {
            await handle.writeFile(text, 'utf8');
            await handle.sync();
        } finally {
            await handle.close();
        }
        await rename(temporary, file);
    } catch (error) {
        await rm(temporary, { force: true });
        throw error;
    }
    await syncFolder(folder);
}

/** Flushes a folder's entries (the rename) to the disk; Windows cannot open a folder for that, and does not need to. */
async function syncFolder(folder: string): Promise<void> {
    if (process.platform === 'win32') {
        return;
    }
    const handle = await open(folder, 'r');
    try {
        await handle.sync();
    } catch (error) {
        // Some file systems refuse to flush a folder (EINVAL); the rename is as durable as they make it.
        if (!['EINVAL', 'ENOTSUP', 'EPERM', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) {
            throw error;
        }
    } finally {
        await handle.close();
    }
}

/**
 * Removes the temporary files `writeFileAtomic` left in `folder` when its process died mid-write:
 * those of processes no longer running, any older than ten minutes, and those with this process's
 * pid older than this process. Returns the names removed. (The pid check is local: on a home folder
 * shared by several machines, a save under way on another one may lose its temporary file and fail, never a saved file.)
 */
export async function removeAbandonedTemporaryFiles(folder: string, now = Date.now()): Promise<string[]> {
    let names: string[];
    try {
        names = await readdir(folder);
    } catch {
        return [];
    }
    const removed: string[] = [];
    const started = now - process.uptime() * 1000;
    for (const name of names) {
        const pid = Number(TEMPORARY_NAME.exec(name)?.[1]);
        if (!pid) {
            continue;
        }
        const path = join(folder, name);
        const modified = await stat(path).then(stats => stats.mtimeMs, () => undefined);
        if (modified === undefined) {
            continue;
        }
        // This process's own pid: a write under way, unless the file is older than the process (a crashed one had the same pid, as in containers).
        const leftover = pid === process.pid
            ? modified < started
            : !processAlive(pid) || now - modified >= ABANDONED_AFTER_MS;
        if (!leftover) {
            continue;
        }
        await rm(path, { force: true });
        removed.push(basename(path));
    }
    return removed;
}
