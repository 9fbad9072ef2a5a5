import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { canScanProcesses, DescendantTracker, PROCESS_TREE_TAG } from './process-tree-scan';

/** After the tree is killed (or the program exited), how long to wait for its output pipes to close. */
const CLOSE_GRACE_MS = 500;
/** After the program exits, how long a leftover process may keep its output pipe open before it is ended too. */
const EXIT_GRACE_MS = 2_000;

export interface ContainedProcessOptions {
    cwd: string;
    env: Record<string, string>;
    timeoutMs?: number;
    signal?: AbortSignal;
    /** Pipe stderr as well (it is ignored otherwise). */
    stderr?: boolean;
    platform?: NodeJS.Platform;
    /**
     * Track the tree beyond the process group (Linux, through /proc): descendants that left the
     * group (`setsid`, `detached`) are ended too. `env` must hold PROCESS_TREE_TAG with this value.
     */
    treeTag?: string;
}

export interface ContainedExit {
    exitCode: number | null;
    timedOut: boolean;
    cancelled: boolean;
    /** The spawn failed (ENOENT, EACCES …). */
    error?: NodeJS.ErrnoException;
}

export interface ContainedProcess {
    child: ChildProcess;
    /** Settles once the program is done, or within a second of its timeout or cancel, whatever its descendants do. */
    exit: Promise<ContainedExit>;
}

/** Ends a process and everything it started: its process group on POSIX, its tree through taskkill on Windows. */
export function killProcessTree(child: ChildProcess, platform: NodeJS.Platform = process.platform): void {
    const pid = child.pid;
    if (pid === undefined) {
        return;
    }
    if (platform === 'win32') {
        // taskkill by its absolute path: a taskkill.exe in the workspace must not be the one that runs.
        const taskkill = join(process.env.SystemRoot ?? process.env.SYSTEMROOT ?? 'C:\\Windows', 'System32', 'taskkill.exe');
        const killer = spawn(taskkill, ['/PID', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
        killer.on('error', () => child.kill('SIGKILL'));
        return;
    }
    if (!killGroup(pid)) {
        child.kill('SIGKILL');
    }
}

function killGroup(pid: number): boolean {
    try {
        process.kill(-pid, 'SIGKILL');
        return true;
    } catch {
        return false;
    }
}

/**
 * Starts `file` (an absolute path, never through a shell) in its own process group, so a
 * timeout or cancel ends the whole tree, and the answer never waits on a grandchild that
 * holds the output pipe open.
 */
export function startContained(file: string, args: readonly string[], options: ContainedProcessOptions): ContainedProcess {
    const platform = options.platform ?? process.platform;
    const child = spawn(file, args, {
        cwd: options.cwd, env: options.env, shell: false, windowsHide: true,
        detached: platform !== 'win32', stdio: ['ignore', 'pipe', options.stderr ? 'pipe' : 'ignore']
    });
    const tracker = options.treeTag && child.pid !== undefined && options.env[PROCESS_TREE_TAG] === options.treeTag && canScanProcesses(platform)
        ? new DescendantTracker(child.pid, options.treeTag) : undefined;
    const exit = new Promise<ContainedExit>(resolve => {
        let timedOut = false;
        let cancelled = false;
        let exitCode: number | null = null;
        let settled = false;
        const timers: NodeJS.Timeout[] = [];
        const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
        const finish = (error?: NodeJS.ErrnoException) => {
            if (settled) {
                return;
            }
            settled = true;
            timers.forEach(clearTimeout);
            // Whatever is left of the tree goes with it, even a descendant that closed its pipes and left the group.
            if (platform !== 'win32' && child.pid !== undefined) {
                killGroup(child.pid);
            }
            tracker?.killAll();
            tracker?.stop();
            options.signal?.removeEventListener('abort', onAbort);
            // A descendant may still hold the pipes: stop reading so nothing keeps this process waiting.
            streams.forEach(stream => stream.destroy());
            resolve({ exitCode, timedOut, cancelled, error });
        };
        const stopTree = () => {
            killProcessTree(child, platform);
            tracker?.killAll();
            timers.push(setTimeout(() => finish(), CLOSE_GRACE_MS));
        };
        const onAbort = () => {
            cancelled = true;
            stopTree();
        };
        if (options.timeoutMs !== undefined) {
            timers.push(setTimeout(() => { timedOut = true; stopTree(); }, options.timeoutMs));
        }
        if (options.signal?.aborted) {
            onAbort();
        } else {
            options.signal?.addEventListener('abort', onAbort, { once: true });
        }
        child.on('error', error => finish(error as NodeJS.ErrnoException));
        child.on('exit', code => {
            exitCode = code;
            if (!timedOut && !cancelled) {
                // Exited, but a leftover process may hold stdout: give it a moment, then end the group.
                timers.push(setTimeout(stopTree, EXIT_GRACE_MS));
            }
        });
        child.on('close', code => {
            exitCode = exitCode ?? code;
            finish();
        });
    });
    return { child, exit };
}
