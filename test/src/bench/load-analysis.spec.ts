import * as assert from 'node:assert/strict';
import { failureSummary, loadTable, modeRatios, ratioTable, summarize, UserFigures } from './load-analysis';

const MB = 1024 * 1024;
const user = (completionMs: number[], chatFirstTokenMs: number[], rssMb: number, extra: Partial<UserFigures> = {}): UserFigures => ({
    completionMs, chatFirstTokenMs, failures: [], rssBytes: rssMb * MB, cpuMs: 1000, ...extra
});

describe('load benchmark analysis', () => {
    it('pools every user\'s latencies into nearest-rank percentiles and takes the median backend\'s memory and CPU', () => {
        const row = summarize('real', { users: 3, rampMs: 5000 }, [
            user([100, 200], [600, 700], 200, { rssIdleBytes: 190 * MB, cpuMs: 900 }),
            user([300, 400], [800, 900], 240, { rssIdleBytes: 210 * MB, cpuMs: 1100 }),
            user([500], [1000, 5000], 220, { rssIdleBytes: 205 * MB, cpuMs: 3000, failures: ['completion: refused'] })
        ], 15, 42);
        assert.equal(row.completionP50, 300);
        assert.equal(row.completionP95, 500);
        assert.equal(row.chatFirstTokenP50, 800);
        assert.equal(row.chatFirstTokenP95, 5000);
        assert.deepEqual([row.completions, row.chatTurns], [5, 6]);
        assert.equal(row.rssAtEndMb, 220);
        assert.equal(row.rssPerUserMb, 220, 'without a collection forced, the RSS per user is the one at the end');
        assert.equal(row.rssIdleMb, 205);
        assert.equal(row.cpuPerUserMs, 1100);
        assert.equal(row.requestsPerUser, 5);
        assert.deepEqual(row.failures, ['completion: refused']);
    });

    it('keeps the core-only backend\'s RSS after GC beside the one at the end', () => {
        const row = summarize('core', { users: 1, rampMs: 0 }, [user([300], [650], 160, { rssAfterGcBytes: 130 * MB })], 3, 10);
        assert.equal(row.rssAtEndMb, 160);
        assert.equal(row.rssPerUserMb, 130);
        assert.equal(row.rssIdleMb, undefined);
    });

    it('refuses a run that lost a user, rather than reporting the others as the whole run', () => {
        assert.throws(() => summarize('real', { users: 2, rampMs: 0 }, [user([1], [1], 1)], 1, 1), /run of 2 users reported 1/);
    });

    it('divides core-only by real only where both ran the same users over the same ramp', () => {
        const core = [
            summarize('core', { users: 1, rampMs: 0 }, [user([300], [600], 150)], 3, 1),
            summarize('core', { users: 10, rampMs: 5000 }, Array.from({ length: 10 }, () => user([330], [660], 160)), 30, 1),
            summarize('core', { users: 50, rampMs: 5000 }, Array.from({ length: 50 }, () => user([400], [900], 160)), 150, 1)
        ];
        const real = [
            summarize('real', { users: 1, rampMs: 0 }, [user([400], [1200], 225)], 3, 1),
            summarize('real', { users: 10, rampMs: 0 }, Array.from({ length: 10 }, () => user([500], [2000], 230)), 30, 1)
        ];
        const ratios = modeRatios([...core, ...real]);
        assert.equal(ratios.length, 1, 'ten users over different ramps are not the same run');
        assert.equal(ratios[0].users, 1);
        assert.equal(ratios[0].completionP95, 0.75);
        assert.equal(ratios[0].chatFirstTokenP95, 0.5);
        assert.equal(ratios[0].rssAtEnd.toFixed(3), (150 / 225).toFixed(3));
        assert.match(ratioTable(ratios), /\| 1 \| one instant \| 0\.75× \/ 0\.75× \| 0\.50× \/ 0\.50× \| 0\.67× \|/);
    });

    it('writes each mode\'s table with p95 against its own one-user run and the memory its mode can measure', () => {
        const real = [
            summarize('real', { users: 1, rampMs: 0 }, [user([400], [1000], 230, { rssIdleBytes: 210 * MB })], 3, 12),
            summarize('real', { users: 5, rampMs: 5000 }, Array.from({ length: 5 }, () => user([600], [1500], 240, { rssIdleBytes: 212 * MB })), 15, 20)
        ];
        const table = loadTable(real);
        assert.match(table, /RSS per backend: idle with window \/ at end/);
        assert.match(table, /\| 5 \| 5 s \| 600 \/ 600 \| 1\.50× \| 1500 \/ 1500 \| 1\.50× \| 5 \/ 5 \| 212 \/ 240 MB \|/);
        const core = loadTable([summarize('core', { users: 1, rampMs: 0 }, [user([300], [600], 160, { rssAfterGcBytes: 130 * MB })], 3, 12)]);
        assert.match(core, /\| 1 \| one instant \| 300 \/ 300 \| 1\.00× \| 600 \/ 600 \| 1\.00× \| 1 \/ 1 \| 160 \/ 130 MB \|/);
    });

    it('names what failed in each run, each kind of message once with its count', () => {
        const clean = summarize('core', { users: 1, rampMs: 0 }, [user([300], [600], 150)], 3, 1);
        const failing = summarize('real', { users: 2, rampMs: 5000 }, [
            user([300], [600], 150, { failures: ['chat: no end within 60 s', 'completion: Provider unreachable at 127.0.0.1:4100'] }),
            user([300], [600], 150, { failures: ['chat: no end within 60 s'] })
        ], 6, 1);
        assert.deepEqual(failureSummary([clean, failing]), ['Real, 2 users over 5 s: chat: no end within N s (×2); completion: Provider unreachable at N.N.N.N:N (×1).']);
    });
});
