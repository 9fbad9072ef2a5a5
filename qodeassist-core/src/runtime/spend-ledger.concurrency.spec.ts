import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A child process on the compiled ledger: waits for `start`, reserves, reports, waits for `go`, settles. */
const CHILD = `
const fs = require('node:fs');
const { SpendLedger } = require(process.env.LEDGER_MODULE);
const { path, start, go, limit, estimate, cost, rounds } = JSON.parse(process.env.LEDGER_TASK);
const policy = limit === null ? undefined : { dir: '/managed', forbiddenAgents: [], maxDailySpend: { amount: limit, currency: 'USD' } };
const when = (file, then) => fs.existsSync(file) ? then() : setTimeout(() => when(file, then), 2);
when(start, () => {
    const ledger = SpendLedger.at(path);
    if (rounds) {
        for (let i = 0; i < rounds; i++) ledger.reserve(policy, undefined).settle({ amount: cost, currency: 'USD' });
        process.exit(0);
    }
    let held;
    try {
        held = ledger.reserve(policy, { amount: estimate, currency: 'USD' });
        process.stdout.write('pass\\n');
    } catch (error) {
        process.stdout.write('refused\\n');
    }
    when(go, () => { held?.settle({ amount: cost, currency: 'USD' }); process.exit(0); });
});
`;

function child(task: Record<string, unknown>): { process: ChildProcess; said: Promise<string>; exited: Promise<number | null> } {
    const spawned = spawn(process.execPath, ['-e', CHILD], {
        env: { ...process.env, LEDGER_MODULE: join(__dirname, 'spend-ledger.js'), LEDGER_TASK: JSON.stringify(task) }, stdio: ['ignore', 'pipe', 'inherit']
    });
    let output = '';
    const said = new Promise<string>(resolve => spawned.stdout!.on('data', chunk => {
        output += String(chunk);
        if (output.includes('\n')) {
            resolve(output.trim());
        }
    }));
    const exited = new Promise<number | null>(resolve => spawned.on('exit', resolve));
    return { process: spawned, said, exited };
}

describe('SpendLedger across processes: reservations under a lock file, never a lost update', function () {
    this.timeout(60_000);
    let folder: string;
    beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'qodeassist-ledger-procs-')); });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    it('6 processes reserve 0.30 at once against a limit of 1.00: exactly 3 pass, and the ledger is the sum of their settled costs', async () => {
        const path = join(folder, 'spend.json');
        const start = join(folder, 'start');
        const go = join(folder, 'go');
        const children = Array.from({ length: 6 }, () => child({ path, start, go, limit: 1, estimate: 0.3, cost: 0.25 }));
        writeFileSync(start, '');
        const answers = await Promise.all(children.map(each => each.said));
        writeFileSync(go, '');
        const codes = await Promise.all(children.map(each => each.exited));
        assert.deepEqual(codes, [0, 0, 0, 0, 0, 0]);
        assert.equal(answers.filter(answer => answer === 'pass').length, 3, answers.join(', '));
        assert.equal(answers.filter(answer => answer === 'refused').length, 3, answers.join(', '));
        const ledger = JSON.parse(readFileSync(path, 'utf8')) as { amounts: Record<string, number>; reservations: Record<string, unknown> };
        assert.equal(ledger.amounts.USD, 0.75);
        assert.deepEqual(ledger.reservations, {});
    });

    it('4 processes settling 50 costs each at once: every one of the 200 is in the ledger', async () => {
        const path = join(folder, 'spend.json');
        const start = join(folder, 'start');
        const children = Array.from({ length: 4 }, () => child({ path, start, limit: null, cost: 1, rounds: 50 }));
        writeFileSync(start, '');
        assert.deepEqual(await Promise.all(children.map(each => each.exited)), [0, 0, 0, 0]);
        assert.equal((JSON.parse(readFileSync(path, 'utf8')) as { amounts: Record<string, number> }).amounts.USD, 200);
    });
});
