import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canScanProcesses, DescendantTracker, parseProcStat, PROCESS_TREE_TAG } from './process-tree-scan';

function alive(pid: number): boolean {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
    } catch {
        return false;
    }
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
            tracker.killAll();
            tracker.stop();
            const gone = await waitFor(() => !alive(grandchild));
            if (!gone) {
                process.kill(grandchild, 'SIGKILL');
            }
            assert.equal(gone, true, 'the grandchild is still running');
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
