import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { findProcess, parseStat, parseVmRssBytes, treeOf, treeUsage } from './load-proc';

describe('load benchmark: a process tree read from /proc', () => {
    it('reads a stat line whose command holds spaces and parentheses', () => {
        const line = '4242 (node (main) x) S 17 4242 4242 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 11 0 123 456789 1234 18446744073709551615\n';
        assert.deepEqual(parseStat(line), { pid: 4242, ppid: 17, cpuTicks: 310 });
        assert.throws(() => parseStat('garbage'), /Not a \/proc\/<pid>\/stat line/);
        assert.throws(() => parseStat('1 (x) S'), /without its numbers/);
    });

    it('reads VmRSS in bytes, and 0 for a process without one', () => {
        assert.equal(parseVmRssBytes('Name:\tnode\nVmPeak:\t  999 kB\nVmRSS:\t  204800 kB\nThreads:\t11\n'), 204800 * 1024);
        assert.equal(parseVmRssBytes('Name:\tkthreadd\nState:\tS (sleeping)\n'), 0);
    });

    it('takes a process and every descendant, not its siblings or parent', () => {
        const stats = [[1, 0], [10, 1], [11, 10], [12, 11], [13, 10], [20, 1]].map(([pid, ppid]) => ({ pid, ppid, cpuTicks: 0 }));
        assert.deepEqual(treeOf(10, stats).sort((a, b) => a - b), [10, 11, 12, 13]);
    });

    it('finds a live child by its command line and counts it in its parent\'s tree; gone once killed', async () => {
        const marker = `load-proc-spec-${process.pid}-${Date.now()}`;
        const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker], { stdio: 'ignore' });
        try {
            await new Promise(resolve => setTimeout(resolve, 300));
            assert.equal(findProcess([marker]), child.pid);
            const own = treeUsage(child.pid!);
            assert.equal(own.processes, 1);
            assert.ok(own.rssBytes > 5 * 1024 * 1024, `a Node process holds more than 5 MB: ${own.rssBytes}`);
            const withChild = treeUsage(process.pid);
            assert.ok(withChild.processes >= 2, 'the child is in this process\'s tree');
            assert.ok(withChild.rssBytes >= own.rssBytes + process.memoryUsage().rss * 0.5, 'the tree sums the parent and the child');
        } finally {
            const exited = new Promise(resolve => child.once('exit', resolve));
            child.kill('SIGKILL');
            await exited;
        }
        assert.equal(findProcess([marker]), undefined, 'a killed process is not found');
    });
});
