import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, rename, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CheckpointRepository } from './checkpoint-repository';
import { Checkpoint, RestoreOutcome, TreeChange } from './checkpoint-types';

/** Why a file was not written: a folder on its way is a link (or a file) the checkpoint does not hold. */
const THROUGH_LINK = 'a folder on its path is a link or a file now; QodeAssist writes through no link';
const LEFT_OUT_NOW = 'a file left out of checkpoints (ignored or too large) is in its place; it is left as it is';

/**
 * Puts the workspace's files as `target` holds them, from `current` (a checkpoint of the
 * workspace as it is now): files created since are removed, deleted ones written back, modified
 * ones written over, byte for byte, executable bits and links as kept. Files left out of either
 * checkpoint (ignored, too large) are not touched. Nothing is run: bytes come from git's object
 * store and are written by QodeAssist itself, never through a filter or a link.
 */
export async function restoreWorkspace(repository: CheckpointRepository, current: Checkpoint, target: Checkpoint, only?: ReadonlySet<string>): Promise<RestoreOutcome> {
    const changes = (await repository.diff(current.commit, target.commit)).filter(change => !only || only.has(change.path));
    const leftOutInTarget = new Set(target.oversized);
    const outcome: RestoreOutcome = { changed: [], skipped: [] };
    const removals = changes.filter(change => !change.after || change.before && isLink(change.before) !== isLink(change.after));
    // Deepest first, so a folder empties before its parent is looked at.
    for (const change of removals.sort((a, b) => b.path.length - a.path.length)) {
        if (!change.after && leftOutInTarget.has(change.path)) {
            outcome.skipped.push({ path: change.path, reason: 'the checkpoint left it out for its size; it is left as it is' });
            continue;
        }
        await unlink(join(repository.workspace, change.path)).catch(error => {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
                throw error;
            }
        });
        if (!change.after) {
            outcome.changed.push({ path: change.path, kind: 'deleted' });
            await removeEmptyParents(repository.workspace, change.path);
        }
    }
    const writes = changes.filter(change => change.after);
    const blobs = await repository.read(writes.map(change => change.after!.oid));
    for (const change of writes) {
        const reason = await writeFileAt(repository.workspace, change, blobs.get(change.after!.oid)!);
        if (reason) {
            outcome.skipped.push({ path: change.path, reason });
        } else {
            outcome.changed.push({ path: change.path, kind: change.before ? 'modified' : 'added' });
        }
    }
    return outcome;
}

function isLink(side: { mode: string }): boolean {
    return side.mode === '120000';
}

/** Removes the folders a removal left empty, up to (never including) the workspace. */
async function removeEmptyParents(workspace: string, path: string): Promise<void> {
    for (let folder = dirname(path); folder !== '.' && folder !== ''; folder = dirname(folder)) {
        const absolute = join(workspace, folder);
        const entries = await readdir(absolute).catch(() => undefined);
        if (!entries || entries.length > 0) {
            return;
        }
        await rmdir(absolute).catch(() => undefined);
    }
}

/** Every folder on the way exists as a real folder (made when missing); undefined when one is a link or a file. */
async function realFolders(workspace: string, path: string): Promise<boolean> {
    const parts = path.split('/').slice(0, -1);
    let at = workspace;
    for (const part of parts) {
        at = join(at, part);
        const stats = await lstat(at).catch(() => undefined);
        if (!stats) {
            await mkdir(at);
        } else if (!stats.isDirectory()) {
            return false;
        }
    }
    return true;
}

/** Writes one file of the checkpoint: beside it under a temporary name, then renamed over (a link in its place is replaced, never followed). */
async function writeFileAt(workspace: string, change: TreeChange, bytes: Buffer): Promise<string | undefined> {
    if (!await realFolders(workspace, change.path)) {
        return THROUGH_LINK;
    }
    const absolute = join(workspace, change.path);
    const existing = await lstat(absolute).catch(() => undefined);
    if (existing && !change.before) {
        return LEFT_OUT_NOW;
    }
    if (existing?.isDirectory()) {
        return LEFT_OUT_NOW;
    }
    const temporary = join(dirname(absolute), `.qodeassist-restore-${randomBytes(6).toString('hex')}`);
    const mode = change.after!.mode;
    if (mode === '120000') {
        await symlink(bytes.toString('utf8'), temporary);
    } else {
        const executable = mode === '100755';
        // A file written over keeps its permissions but for the executable bits, which the checkpoint holds.
        const kept = existing?.isFile() ? existing.mode & 0o666 : 0o644;
        await writeFile(temporary, bytes, { mode: kept });
        await chmod(temporary, executable ? kept | ((kept & 0o444) >> 2) : kept);
    }
    try {
        await rename(temporary, absolute);
    } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
    }
    return undefined;
}
