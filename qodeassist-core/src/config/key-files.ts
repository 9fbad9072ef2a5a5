import { FSWatcher, readFileSync, realpathSync, statSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import { QodeAssistError } from '../wire/error-info';

/** The suffix of a variable naming a file that holds a key: `ANTHROPIC_API_KEY_FILE=/var/run/secrets/qodeassist/anthropic`. */
export const KEY_FILE_SUFFIX = '_FILE';

/** Longest key file read (a key is a line; a mounted Secret of megabytes is a mistake). */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * The key in a file a variable names (a mounted Kubernetes Secret, a Docker secret): read at every
 * resolve, so a rotated Secret applies without a restart; its trailing line end is not part of the
 * key. A file that cannot be read, or holds nothing, is a Config error naming the variable and the
 * path — never a silent fall-back to another key.
 */
export function readKeyFile(variable: string, path: string): string {
    let text: string;
    try {
        if (statSync(path).size > MAX_KEY_FILE_BYTES) {
            throw new Error(`larger than ${MAX_KEY_FILE_BYTES / 1024} KiB, so not a key`);
        }
        text = readFileSync(path, 'utf8');
    } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : error instanceof Error ? error.message : String(error);
        throw new QodeAssistError({
            category: 'Config',
            message: `${variable} names the key file ${path}, which cannot be read (${reason}). Mount the Secret there, fix the path, or unset ${variable}.`
        });
    }
    const key = text.replace(/\r?\n$/, '').trim();
    if (!key) {
        throw new QodeAssistError({ category: 'Config', message: `The key file ${path} (${variable}) is empty. Put the key in it, or unset ${variable}.` });
    }
    return key;
}

/** A key given both ways: refused rather than one picked silently. */
export function bothKeyWaysError(variable: string): QodeAssistError {
    return new QodeAssistError({
        category: 'Config',
        message: `Both ${variable} and ${variable}${KEY_FILE_SUFFIX} are set, so QodeAssist does not guess which key to use. Unset one of them.`
    });
}

/** How long a burst of changes (a Secret's files swapped one by one) settles before the listener hears it. */
const SETTLE_MS = 200;

/**
 * Tells `listener` when a key file named in `env` changes, so keys resolved earlier are dropped and
 * the next request reads the new one. The folders are watched, not the files: Kubernetes updates a
 * mounted Secret by swapping a link in its folder, which a watch on the old file never sees.
 */
export function watchKeyFiles(env: Readonly<Record<string, string | undefined>>, listener: () => void): () => void {
    const folders = new Set<string>();
    for (const [name, value] of Object.entries(env)) {
        if (name.endsWith(`_API_KEY${KEY_FILE_SUFFIX}`) && value?.trim()) {
            folders.add(dirname(value.trim()));
        }
    }
    let timer: NodeJS.Timeout | undefined;
    const changed = () => {
        clearTimeout(timer);
        timer = setTimeout(listener, SETTLE_MS);
        timer.unref?.();
    };
    const watchers: FSWatcher[] = [];
    for (const folder of folders) {
        try {
            const watcher = watch(folder, { persistent: false }, changed);
            watcher.on('error', () => watcher.close());
            watchers.push(watcher);
        } catch {
            // A folder that is not there yet: the read names the problem when the key is needed.
        }
    }
    return () => {
        clearTimeout(timer);
        watchers.forEach(watcher => watcher.close());
    };
}

/**
 * Why a folder is no place for a key file, or undefined when it is private: owned by another user
 * (a volume shared between users or pods), writable by its group or anyone, or — `readable: true`,
 * for the home around `.qodeassist` — readable by anyone (a world-readable volume). Mode bits mean
 * nothing on Windows: there nothing is reported.
 */
export function sharedFolderProblem(folder: string, options: { readable?: boolean } = {}, platform: NodeJS.Platform = process.platform, uid = process.getuid?.()): string | undefined {
    if (platform === 'win32') {
        return undefined;
    }
    let stats;
    try {
        stats = statSync(folder);
    } catch {
        return undefined;
    }
    const mode = stats.mode & 0o777;
    if (uid !== undefined && stats.uid !== uid) {
        return `${folder} belongs to another user (uid ${stats.uid})`;
    }
    const open = options.readable ? 0o026 : 0o022;
    return (mode & open) !== 0 ? `${folder} is open to other users (mode ${mode.toString(8)})` : undefined;
}

/**
 * What identifies a key file's content without reading it: the file the path resolves to (a
 * Kubernetes Secret swaps its `..data` link, so the target changes), its inode, size and change
 * time. Compared before each request, so the first request after a rotation reads the new key —
 * no settle window. Undefined when the file cannot be reached (the read then names the problem).
 */
export function keyFileStamp(path: string): string | undefined {
    try {
        const target = realpathSync(path);
        const stats = statSync(target);
        return `${target}\0${stats.ino}\0${stats.size}\0${stats.mtimeMs}\0${stats.ctimeMs}`;
    } catch {
        return undefined;
    }
}
