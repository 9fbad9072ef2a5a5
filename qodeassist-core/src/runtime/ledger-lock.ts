import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, linkSync } from 'node:fs';
import { hostname } from 'node:os';
import { processAlive } from '../config/process-alive';
import { QodeAssistError } from '../wire/error-info';

/** A lock older than this is a holder that died or hung: holders keep it for the milliseconds of one read and one write. */
export const STALE_LOCK_MS = 5_000;
/** How long a process waits for a live holder before it says so. */
const WAIT_LIMIT_MS = 15_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Sleeps this thread; the lock is held for a few milliseconds at most, so the wait is short. */
function pause(ms: number): void {
    Atomics.wait(sleeper, 0, 0, ms);
}

/** `<pid> <host>` of the holder, as this process writes it into its lock. */
export function holderTag(): string {
    return `${process.pid} ${hostname()}`;
}

/** Whether a holder's tag names a process of this machine that has ended. */
export function holderGone(tag: string): boolean {
    const [pid, host] = tag.trim().split(' ');
    return host === hostname() && /^\d+$/.test(pid) && !processAlive(Number(pid));
}

/**
 * Runs `work` holding `<path>.lock`, created with O_EXCL so that of several processes (several
 * IDE backends, a bench run) exactly one holds it. A lock whose holder has ended (same machine)
 * or that is older than STALE_LOCK_MS is taken over: it is renamed away first, and put back if
 * another process had replaced it meanwhile, so a fresh lock is never removed. Synchronous, so
 * nothing else of this process runs between the read and the write it guards.
 * Throws NodeJS errors when the folder cannot hold a lock (read-only, missing): the caller decides.
 */
export function withFileLock<T>(path: string, work: () => T): T {
    const lock = `${path}.lock`;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
        try {
            const fd = openSync(lock, 'wx', 0o600);
            try {
                writeSync(fd, `${holderTag()}\n`);
            } finally {
                closeSync(fd);
            }
            break;
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
                throw error;
            }
        }
        if (takeOverStale(lock)) {
            continue;
        }
        if (Date.now() - started > WAIT_LIMIT_MS) {
            throw new QodeAssistError({
                category: 'Config',
                message: `The spend ledger ${path} stays locked by another QodeAssist process (${lock}). If none is running, remove ${lock}.`
            });
        }
        pause(Math.min(2 + attempt * 2, 25));
    }
    try {
        return work();
    } finally {
        try {
            unlinkSync(lock);
        } catch {
            // Taken over as stale meanwhile (a holder that hung for seconds): nothing left to release.
        }
    }
}

function takeOverStale(lock: string): boolean {
    let stats;
    let tag = '';
    try {
        stats = statSync(lock);
        tag = readFileSync(lock, 'utf8');
    } catch {
        return true; // Released meanwhile: try again at once.
    }
    const stale = Date.now() - stats.mtimeMs > STALE_LOCK_MS || (tag !== '' && holderGone(tag));
    if (!stale) {
        return false;
    }
    const aside = `${lock}.${process.pid}.stale`;
    try {
        renameSync(lock, aside);
    } catch {
        return true; // Another process took it over first.
    }
    try {
        if (statSync(aside).ino !== stats.ino) {
            // Not the stale lock any more but a fresh one: give it back (unless a newer one is there).
            try {
                linkSync(aside, lock);
            } catch {
                // A newer lock exists; the holder we displaced will find its own lock gone at release.
            }
        }
    } finally {
        try {
            unlinkSync(aside);
        } catch {
            // Already gone.
        }
    }
    return true;
}
