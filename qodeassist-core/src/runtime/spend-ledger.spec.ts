import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedPolicy } from '../config/managed-policy';
import { SpendLedger } from './spend-ledger';

describe('SpendLedger: one user\'s spend per day against the administrator\'s limit', () => {
    let folder: string;
    beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'qodeassist-ledger-')); });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));
    const policy: ManagedPolicy = { dir: '/managed', forbiddenAgents: [], maxDailySpend: { amount: 1, currency: 'USD' } };
    const usd = (amount: number) => ({ amount, currency: 'USD' });

    it('adds up a day, refuses at the limit naming the rule and the administrator, starts again the next day; other currencies are kept apart', () => {
        let now = new Date(2026, 10, 24, 23, 59);
        const ledger = SpendLedger.at(join(folder, 'a.json'), () => now);
        ledger.reserve(policy, usd(0.1)).settle(usd(0.6));
        ledger.reserve(policy, undefined).settle({ amount: 5, currency: 'EUR' });
        ledger.reserve(policy, usd(0.1)).settle(usd(0.42));
        assert.throws(() => ledger.reserve(policy, usd(0.1)),
            /Today's spend limit of 1\.00 USD is reached \(1\.02 USD spent today\): max_daily_spend in \/managed\/policy\.toml, managed by your administrator/);
        assert.equal(ledger.spent('EUR'), 5);
        now = new Date(2026, 10, 25, 0, 1);
        assert.equal(ledger.spent('USD'), 0);
        ledger.reserve(policy, usd(0.1)).settle(undefined);
    });

    it('a reservation holds its estimate until it settles to the actual cost; a failed request releases it; settling twice counts once', () => {
        const path = join(folder, 'b.json');
        const ledger = SpendLedger.at(path);
        const first = ledger.reserve(policy, usd(0.4));
        const second = ledger.reserve(policy, usd(0.4));
        assert.equal(ledger.reserved('USD'), 0.8);
        assert.throws(() => ledger.reserve(policy, usd(0.4)), /has no room for this request \(estimated at up to 0\.40 USD\): 0\.00 USD spent today and 0\.80 USD held by requests in flight/);
        first.settle(usd(0.05));
        second.settle(undefined);
        second.settle(usd(9));
        first.settle(usd(9));
        assert.deepEqual([ledger.spent('USD'), ledger.reserved('USD')], [0.05, 0]);
        assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).reservations, {});
    });

    it('alone, a request goes while anything is left, even when its worst case is above the limit', () => {
        const ledger = SpendLedger.at(join(folder, 'c.json'));
        const big = ledger.reserve(policy, usd(60));
        assert.throws(() => ledger.reserve(policy, usd(0.01)), /held by requests in flight/);
        big.settle(usd(0.3));
        ledger.reserve(policy, usd(60)).settle(undefined);
    });

    it('no limit: nothing refused, costs still counted; an unreadable ledger starts at zero rather than blocking', () => {
        const path = join(folder, 'd.json');
        writeFileSync(path, '{ not json');
        const ledger = SpendLedger.at(path);
        assert.equal(ledger.spent('USD'), 0);
        ledger.reserve(undefined, usd(1000)).settle(usd(1000));
        ledger.reserve({ dir: '/managed', forbiddenAgents: [] }, usd(1)).settle(usd(1));
        assert.equal(ledger.spent('USD'), 1001);
    });

    it('a reservation left by a process that ended no longer holds anything', () => {
        const path = join(folder, 'e.json');
        const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
        const day = new Date();
        const today = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
        writeFileSync(path, JSON.stringify({ day: today, amounts: { USD: 0.2 }, reservations: { x: { currency: 'USD', amount: 0.7, pid: Number(ended), host: hostname(), at: Date.now() } } }));
        const ledger = SpendLedger.at(path);
        assert.deepEqual([ledger.spent('USD'), ledger.reserved('USD')], [0.2, 0]);
        ledger.reserve(policy, usd(0.5)).settle(undefined);
    });

    it('a lock left by an ended process, or older than a holder ever keeps one, is taken over; a live fresh one is waited for', () => {
        const path = join(folder, 'f.json');
        const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
        writeFileSync(`${path}.lock`, `${ended} ${hostname()}\n`);
        const ledger = SpendLedger.at(path);
        ledger.reserve(policy, usd(0.1)).settle(usd(0.1));
        assert.equal(existsSync(`${path}.lock`), false);
        writeFileSync(`${path}.lock`, `1 another-host\n`);
        const old = new Date(Date.now() - 60_000);
        utimesSync(`${path}.lock`, old, old);
        ledger.reserve(policy, usd(0.1)).settle(usd(0.1));
        assert.equal(ledger.spent('USD'), 0.2);
        assert.equal(existsSync(`${path}.lock`), false);
    });
});
