import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canScanProcesses, DescendantTracker, parseProcStat, PROCESS_TREE_TAG } from './process-tree-scan';

function statOf(pid: number): string | undefined {
    try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
        return undefined;
    }
}

/** Whether this very process (pid and start time: a reused pid is another process) still runs, not a zombie. */
function alive(pid: number, start?: string): boolean {
    const stat = statOf(pid);
    if (stat === undefined || (start !== undefined && parseProcStat(stat)?.start !== start)) {
        return false;
    }
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X';
}

async function waitFor(check: () => boolean, ms = 5_000): Promise<boolean> {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) {
        await new Promise(done => setTimeout(done, 20));
    }
    return check();
}

describe('process tree scan', () => {
    it('reads pid, parent and start time from /proc/<pid>/stat, whatever the process name holds', () => {
        const text = '4242 (evil) (name) 1 2 3) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615';
        assert.deepEqual(parseProcStat(text), { pid: 4242, ppid: 17, start: '987654' });
        assert.equal(parseProcStat('garbage'), undefined);
    });

    if (canScanProcesses()) {
        it('ends a descendant that called setsid after its parent already exited, found by its tag', async function () {
            this.timeout(15_000);
            const tag = randomUUID();
            const token = `91.${Date.now() % 100_000}`;
            // The parent starts the grandchild in a new session and exits at once: no parent link is left to follow.
            const parent = spawn('sh', ['-c', `setsid sleep ${token} >/dev/null 2>&1 & echo $!`], { env: { PATH: process.env.PATH, [PROCESS_TREE_TAG]: tag }, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
            let out = '';
            parent.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
            const tracker = new DescendantTracker(parent.pid!, tag, 1_000);
            await new Promise(done => parent.on('close', done));
            const grandchild = Number(out.trim());
            assert.ok(await waitFor(() => alive(grandchild) && readFileSync(`/proc/${grandchild}/cmdline`, 'latin1').includes(token)), 'the grandchild runs');
            const start = parseProcStat(statOf(grandchild) ?? '')?.start;
            tracker.killAll();
            tracker.stop();
            const gone = await waitFor(() => !alive(grandchild, start));
            const seen = { known: tracker.pids().includes(grandchild), survivors: tracker.survivors(), stat: statOf(grandchild) };
            if (!gone) {
                process.kill(grandchild, 'SIGKILL');
            }
            assert.equal(gone, true, `the grandchild is still running: ${JSON.stringify(seen)}`);
        });

        it('ends a tree that is still forking when the kill starts, leaving no tagged process', async function () {
            this.timeout(15_000);
            const tag = randomUUID();
            // Each child forks again in a new session while the parent keeps forking: scans race the forks.
            const script = 'i=0; while [ $i -lt 400 ]; do setsid sh -c "sleep 40 & sleep 40" >/dev/null 2>&1 & i=$((i+1)); done; wait';
            const root = spawn('sh', ['-c', script], { env: { PATH: process.env.PATH, [PROCESS_TREE_TAG]: tag }, stdio: 'ignore', detached: true });
            const tracker = new DescendantTracker(root.pid!, tag, 50);
            const tagged = () => {
                const byTag = new DescendantTracker(process.pid + 1_000_000, tag, 60_000);
                byTag.stop();
                return byTag.survivors();
            };
            assert.ok(await waitFor(() => tagged().length >= 20), 'the tree grew');
            tracker.killAll();
            tracker.stop();
            const clean = await waitFor(() => tagged().length === 0);
            const left = tagged();
            for (const pid of left) {
                process.kill(pid, 'SIGKILL');
            }
            assert.equal(clean, true, `tagged processes left: ${left.length}`);
        });

        it('leaves alone a process that carries another command\'s tag', async () => {
            const other = spawn('sleep', ['30'], { env: { PATH: process.env.PATH, [PROCESS_TREE_TAG]: randomUUID() }, stdio: 'ignore' });
            try {
                const tracker = new DescendantTracker(process.pid + 1_000_000, randomUUID(), 1_000);
                tracker.killAll();
                tracker.stop();
                await new Promise(done => setTimeout(done, 100));
                assert.equal(alive(other.pid!), true);
            } finally {
                other.kill('SIGKILL');
            }
        });
    }
});
