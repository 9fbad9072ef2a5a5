import { readdirSync, readFileSync } from 'node:fs';

/**
 * Where no sandbox can start, a process group is not the whole tree: a descendant that calls
 * `setsid` (or is spawned `detached`) leaves the group, and once its parent exits it is re-parented
 * away from us. This tracker finds the tree on Linux through `/proc` two ways: parent links, read
 * while the command runs (so a process seen once stays known after its parent is gone), and a tag
 * variable every descendant inherits, read at kill time (which also finds one never seen while its
 * parent lived). Reads are synchronous: `/proc` is in memory, and a kill must not interleave with forks.
 */

/** The variable that marks every process of one command; its value is random per command, never a secret. */
export const PROCESS_TREE_TAG = 'QODEASSIST_PROCESS_TREE';

const PROC = '/proc';

interface ProcessStat {
    pid: number;
    ppid: number;
    /** Clock ticks since boot when it started: with the pid, names one process even after pid reuse. */
    start: string;
}

/** Pure: pid, parent pid and start time from the text of `/proc/<pid>/stat` (its name may hold spaces and parentheses). */
export function parseProcStat(text: string): ProcessStat | undefined {
    const close = text.lastIndexOf(')');
    const pid = Number.parseInt(text, 10);
    if (close < 0 || !Number.isInteger(pid)) {
        return undefined;
    }
    // After the name: state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt, majflt, cmajflt,
    // utime, stime, cutime, cstime, priority, nice, num_threads, itrealvalue, starttime.
    const fields = text.slice(close + 2).split(' ');
    const ppid = Number.parseInt(fields[1] ?? '', 10);
    const start = fields[19];
    return Number.isInteger(ppid) && start ? { pid, ppid, start } : undefined;
}

function readStat(pid: number): ProcessStat | undefined {
    try {
        return parseProcStat(readFileSync(`${PROC}/${pid}/stat`, 'utf8'));
    } catch {
        return undefined;
    }
}

function allPids(): number[] {
    try {
        return readdirSync(PROC).filter(name => /^\d+$/.test(name)).map(Number);
    } catch {
        return [];
    }
}

function carriesTag(pid: number, tag: string): boolean {
    try {
        // Only our own processes are readable; the tag must be a whole NUL-separated entry.
        return `\0${readFileSync(`${PROC}/${pid}/environ`, 'latin1')}`.includes(`\0${tag}\0`);
    } catch {
        return false;
    }
}

/** Whether this system has a `/proc` to scan (Linux). */
export function canScanProcesses(platform: NodeJS.Platform = process.platform): boolean {
    return platform === 'linux' && readStat(process.pid) !== undefined;
}

export class DescendantTracker {
    /** pid → start time of every descendant seen. */
    private readonly known = new Map<number, string>();
    private timer: NodeJS.Timeout | undefined;
    private readonly rootStart: string | undefined;

    /** `tagValue`: the value of PROCESS_TREE_TAG in the command's environment. */
    constructor(private readonly rootPid: number, private readonly tagValue: string, private readonly intervalMs = 100) {
        this.rootStart = readStat(rootPid)?.start;
        this.scan();
        this.timer = setInterval(() => this.scan(), this.intervalMs);
        this.timer.unref();
    }

    /** The descendants known now (for tests and logs). */
    pids(): number[] {
        return [...this.known.keys()];
    }

    /** Records every process whose parent chain reaches the command or a descendant already known. */
    scan(): ProcessStat[] {
        const stats = allPids().map(readStat).filter((stat): stat is ProcessStat => stat !== undefined);
        const parents = new Set<number>([this.rootPid, ...this.known.keys()]);
        let grew = true;
        while (grew) {
            grew = false;
            for (const stat of stats) {
                if (stat.pid !== this.rootPid && parents.has(stat.ppid) && !this.known.has(stat.pid)) {
                    this.known.set(stat.pid, stat.start);
                    parents.add(stat.pid);
                    grew = true;
                }
            }
        }
        return stats;
    }

    /**
     * Ends every descendant: the tree is frozen first (SIGSTOP, so nothing forks between the scan
     * and the kill), rescanned until it stops growing — the tag finds the ones re-parented before
     * any scan saw them — then killed. A pass that leaves any known or tagged process alive (one
     * forked between a scan and its freeze, or missed by a read of `/proc` that raced its change)
     * is followed by another, up to a bound.
     */
    killAll(): void {
        if (this.rootStart !== undefined && readStat(this.rootPid)?.start === this.rootStart) {
            signal(this.rootPid, 'SIGSTOP');
        }
        for (let pass = 0; pass < 5; pass++) {
            const killed = this.freezeAndKill();
            if (killed === 0 || this.survivors().length === 0) {
                break;
            }
        }
    }

    /** The known or tagged processes still running (not zombies), other than this one. */
    survivors(): number[] {
        const tag = `${PROCESS_TREE_TAG}=${this.tagValue}`;
        return allPids().filter(pid => {
            if (pid === process.pid || !running(pid)) {
                return false;
            }
            const start = this.known.get(pid);
            return (start !== undefined && readStat(pid)?.start === start) || carriesTag(pid, tag);
        });
    }

    /** One pass: freeze what is found until nothing new appears, then kill it all. Returns how many were signalled. */
    private freezeAndKill(): number {
        const stopped = new Map<number, string>();
        const tag = `${PROCESS_TREE_TAG}=${this.tagValue}`;
        for (let round = 0; round < 20; round++) {
            const stats = this.scan();
            for (const stat of stats) {
                if (stat.pid !== process.pid && stat.pid !== this.rootPid && !this.known.has(stat.pid) && carriesTag(stat.pid, tag)) {
                    this.known.set(stat.pid, stat.start);
                }
            }
            // A pid seen earlier may since have been reused by a tagged process: the tag decides then.
            for (const stat of stats) {
                if (this.known.has(stat.pid) && this.known.get(stat.pid) !== stat.start && carriesTag(stat.pid, tag)) {
                    this.known.set(stat.pid, stat.start);
                }
            }
            const fresh = [...this.known].filter(([pid, start]) => !stopped.has(pid) && readStat(pid)?.start === start);
            if (fresh.length === 0) {
                break;
            }
            for (const [pid, start] of fresh) {
                signal(pid, 'SIGSTOP');
                stopped.set(pid, start);
            }
        }
        let signalled = 0;
        if (this.rootStart !== undefined && readStat(this.rootPid)?.start === this.rootStart) {
            signal(this.rootPid, 'SIGKILL');
            signalled++;
        }
        for (const [pid, start] of stopped) {
            if (readStat(pid)?.start === start) {
                signal(pid, 'SIGKILL');
                signalled++;
            }
        }
        return signalled;
    }

    stop(): void {
        if (this.timer) {
            clearInterval(this.timer);
            this.timer = undefined;
        }
    }
}

/** Whether the process exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
    try {
        const text = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
        const state = text.charAt(text.lastIndexOf(')') + 2);
        return state !== 'Z' && state !== 'X';
    } catch {
        return false;
    }
}

function signal(pid: number, name: NodeJS.Signals): void {
    try {
        process.kill(pid, name);
    } catch {
        // Already gone.
    }
}
