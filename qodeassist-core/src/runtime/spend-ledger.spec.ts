import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedPolicy } from '../config/managed-policy';
import { SpendLedger } from './spend-ledger';

describe('SpendLedger: one user\'s spend per day against the administrator\'s limit', () => {
    let folder: string;
    beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'qodeassist-ledger-')); });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));
    const policy: ManagedPolicy = { dir: '/managed', forbiddenAgents: [], maxDailySpend: { amount: 1, currency: 'USD' } };

    it('adds up a day, refuses at the limit, starts again the next day; other currencies are kept apart, never converted', () => {
        let now = new Date(2026, 10, 24, 23, 59);
        const ledger = SpendLedger.at(join(folder, 'a.json'), () => now);
        ledger.record({ amount: 0.6, currency: 'USD' });
        ledger.record({ amount: 5, currency: 'EUR' });
        ledger.check(policy);
        ledger.record({ amount: 0.4, currency: 'USD' });
        assert.throws(() => ledger.check(policy), /spend limit of 1\.00 USD is reached \(1\.00 USD spent\)/);
        now = new Date(2026, 10, 25, 0, 1);
        assert.equal(ledger.spent('USD'), 0);
        ledger.check(policy);
    });

    it('no limit, nothing refused; a cost of nothing is not recorded', () => {
        const ledger = SpendLedger.at(join(folder, 'b.json'));
        ledger.record({ amount: 1000, currency: 'USD' });
        ledger.record(undefined);
        ledger.check({ dir: '/managed', forbiddenAgents: [] });
        ledger.check(undefined);
        assert.equal(ledger.spent('USD'), 1000);
    });

    it('an unreadable ledger starts at zero rather than blocking', () => {
        const path = join(folder, 'c.json');
        writeFileSync(path, '{ not json');
        assert.equal(SpendLedger.at(path).spent('USD'), 0);
    });
});
