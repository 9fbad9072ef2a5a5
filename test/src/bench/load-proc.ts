/**
 * What a real backend holds and spends, read from /proc as `ps` would: the backend's process and
 * everything it started (a Theia backend forks helpers), resident memory summed, CPU ticks summed.
 * Parsing is kept apart from reading so the spec can feed it text.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc's CPU times are in these ticks on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export interface ProcStat {
    pid: number;
    ppid: number;
    /** utime + stime + cutime + cstime: the process's CPU and that of its children already waited for. */
    cpuTicks: number;
}

/**
 * One /proc/<pid>/stat line. The command (field 2) is in parentheses and may hold spaces and
 * parentheses itself, so the fields are counted from the last ')'.
 */
export function parseStat(text: string): ProcStat {
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    if (open < 0 || close < open) {
        throw new Error(`Not a /proc/<pid>/stat line: ${JSON.stringify(text.slice(0, 80))}`);
    }
    // After ')': state(3) ppid(4) pgrp(5) session(6) tty(7) tpgid(8) flags(9) minflt(10) cminflt(11) majflt(12) cmajflt(13) utime(14) stime(15) cutime(16) cstime(17).
    const rest = text.slice(close + 2).trim().split(/\s+/);
    const field = (n: number) => Number(rest[n - 3]);
    const values = [field(4), field(14), field(15), field(16), field(17)];
    if (values.some(value => !Number.isFinite(value))) {
        throw new Error(`A /proc/<pid>/stat line without its numbers: ${JSON.stringify(text.slice(0, 80))}`);
    }
    return { pid: Number(text.slice(0, open).trim()), ppid: field(4), cpuTicks: field(14) + field(15) + field(16) + field(17) };
}

/** VmRSS of a /proc/<pid>/status text in bytes; 0 for a process without one (a zombie, a kernel thread). */
export function parseVmRssBytes(status: string): number {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
}

/** The process and all its descendants, from every process's parent. */
export function treeOf(root: number, stats: readonly ProcStat[]): number[] {
    const children = new Map<number, number[]>();
    for (const { pid, ppid } of stats) {
        children.set(ppid, [...children.get(ppid) ?? [], pid]);
    }
    const tree: number[] = [];
    const queue = [root];
    while (queue.length > 0) {
        const pid = queue.shift()!;
        if (!tree.includes(pid)) {
            tree.push(pid);
            queue.push(...children.get(pid) ?? []);
        }
    }
    return tree;
}

const readOr = (path: string): string | undefined => {
    try {
        return readFileSync(path, 'utf8');
    } catch {
        // The process ended between the listing and the read.
        return undefined;
    }
};

function allStats(): ProcStat[] {
    return readdirSync('/proc').filter(name => /^\d+$/.test(name)).flatMap(pid => {
        const text = readOr(`/proc/${pid}/stat`);
        return text ? [parseStat(text)] : [];
    });
}

/** The pid of the process whose command line holds every one of `parts` (e.g. the backend's main.js and its own workspace). */
export function findProcess(parts: readonly string[]): number | undefined {
    for (const name of readdirSync('/proc').filter(entry => /^\d+$/.test(entry))) {
        const args = readOr(`/proc/${name}/cmdline`)?.split('\0');
        if (args && parts.every(part => args.includes(part))) {
            return Number(name);
        }
    }
    return undefined;
}

export interface TreeUsage {
    processes: number;
    rssBytes: number;
    cpuMs: number;
}

/** Resident memory and CPU of a process and its descendants now. */
export function treeUsage(root: number): TreeUsage {
    const stats = allStats();
    const tree = treeOf(root, stats);
    const byPid = new Map(stats.map(stat => [stat.pid, stat]));
    return {
        processes: tree.length,
        rssBytes: tree.reduce((sum, pid) => sum + parseVmRssBytes(readOr(`/proc/${pid}/status`) ?? ''), 0),
        cpuMs: tree.reduce((sum, pid) => sum + (byPid.get(pid)?.cpuTicks ?? 0), 0) * 1000 / TICKS_PER_SECOND
    };
}
