import * as assert from 'node:assert/strict';
import { AcceptanceFigures, FiguresClock, FiguresStorage, FLUSH_AFTER_MS, STILL_PRESENT_AFTER_MS, TrackedText } from './acceptance-figures';
import { CompletionFigures } from './completion-figures';

/** A clock whose time moves only when told: timers run in order as it passes them. */
class ManualClock implements FiguresClock {
    private time = Date.parse('2026-11-23T10:00:00Z');
    private timers: Array<{ at: number; run: () => void; handle: number }> = [];
    private next = 1;
    now(): Date {
        return new Date(this.time);
    }
    setTimeout(run: () => void, ms: number): unknown {
        const handle = this.next++;
        this.timers.push({ at: this.time + ms, run, handle });
        return handle;
    }
    clearTimeout(handle: unknown): void {
        this.timers = this.timers.filter(timer => timer.handle !== handle);
    }
    async pass(ms: number): Promise<void> {
        const until = this.time + ms;
        for (let due = this.earliest(until); due; due = this.earliest(until)) {
            this.timers = this.timers.filter(timer => timer !== due);
            this.time = due.at;
            due.run();
            await new Promise(resolve => setImmediate(resolve));
        }
        this.time = until;
    }
    private earliest(until: number) {
        return this.timers.filter(timer => timer.at <= until).sort((a, b) => a.at - b.at)[0];
    }
}

class MemoryStorage implements FiguresStorage {
    stored: unknown;
    writes = 0;
    async read(): Promise<unknown> {
        return this.stored === undefined ? undefined : JSON.parse(JSON.stringify(this.stored));
    }
    async write(figures: CompletionFigures): Promise<void> {
        this.writes++;
        this.stored = JSON.parse(JSON.stringify(figures));
    }
}

/** The accepted text's range in a document the test edits. */
function document(text: string): TrackedText & { text: string | undefined; disposed: boolean } {
    const tracked = { text: text as string | undefined, disposed: false, read: () => tracked.text, dispose: () => { tracked.disposed = true; } };
    return tracked;
}

describe('acceptance figures: the bookkeeping', () => {
    let clock: ManualClock;
    let storage: MemoryStorage;
    let figures: AcceptanceFigures;
    const row = async (language = 'typescript', agent = 'fake-fim') => {
        const found = (await figures.figures()).rows.find(candidate => candidate.language === language && candidate.agent === agent);
        return found && [found.shown, found.accepted, found.checked, found.stillPresent];
    };

    beforeEach(() => {
        clock = new ManualClock();
        storage = new MemoryStorage();
        figures = new AcceptanceFigures(storage, clock);
    });

    it('an accepted suggestion left alone is still present 30 s later', async () => {
        const suggestion = {};
        const accepted = document('return a + b;');
        figures.shown('typescript', 'fake-fim');
        figures.accepted(suggestion, 'typescript', 'fake-fim', 'return a + b;', accepted);
        assert.deepEqual(await row(), [1, 1, 0, 0]);
        assert.equal(figures.pendingChecks, 1);
        await clock.pass(STILL_PRESENT_AFTER_MS - 1);
        assert.deepEqual(await row(), [1, 1, 0, 0], 'not looked at before 30 s');
        await clock.pass(1);
        assert.deepEqual(await row(), [1, 1, 1, 1]);
        assert.equal(accepted.disposed, true, 'its decoration goes');
        assert.equal(figures.pendingChecks, 0);
    });

    it('accepted, then edited away within the 30 s: counted as accepted, not as still present', async () => {
        const accepted = document('return a + b;');
        figures.shown('typescript', 'fake-fim');
        figures.accepted({}, 'typescript', 'fake-fim', 'return a + b;', accepted);
        await clock.pass(10_000);
        accepted.text = 'return a * b;';
        await clock.pass(STILL_PRESENT_AFTER_MS);
        assert.deepEqual(await row(), [1, 1, 1, 0]);
    });

    it('accepted, then deleted: not still present', async () => {
        const accepted = document('x');
        figures.accepted({}, 'python', 'claude', 'x', accepted);
        accepted.text = undefined;
        await clock.pass(STILL_PRESENT_AFTER_MS);
        assert.deepEqual(await row('python', 'claude'), [0, 1, 1, 0]);
    });

    it('a suggestion accepted a word, then a line at a time counts once, and is looked at 30 s after its last part', async () => {
        const suggestion = {};
        const word = document('const');
        figures.accepted(suggestion, 'typescript', 'fake-fim', 'const', word);
        await clock.pass(20_000);
        const line = document('const d = a - b;');
        figures.accepted(suggestion, 'typescript', 'fake-fim', 'const d = a - b;', line);
        assert.equal(word.disposed, true, 'the first part\'s range gives way to the whole');
        await clock.pass(STILL_PRESENT_AFTER_MS - 1);
        assert.deepEqual(await row(), [0, 1, 0, 0]);
        await clock.pass(1);
        assert.deepEqual(await row(), [0, 1, 1, 1]);
    });

    it('counts go to storage a moment after they change, added to what another window stored', async () => {
        storage.stored = { version: 1, since: '2026-11-01T00:00:00.000Z', rows: [{ language: 'typescript', agent: 'fake-fim', shown: 5, accepted: 2, checked: 2, stillPresent: 2 }] };
        figures.shown('typescript', 'fake-fim');
        figures.shown('typescript', 'fake-fim');
        assert.equal(storage.writes, 0);
        assert.deepEqual(await row(), [7, 2, 2, 2], 'shown before they are written');
        await clock.pass(FLUSH_AFTER_MS);
        assert.equal(storage.writes, 1, 'one write for the burst');
        assert.deepEqual((storage.stored as CompletionFigures).rows[0], { language: 'typescript', agent: 'fake-fim', shown: 7, accepted: 2, checked: 2, stillPresent: 2 });
        assert.equal((storage.stored as CompletionFigures).since, '2026-11-01T00:00:00.000Z');
        assert.deepEqual(await row(), [7, 2, 2, 2], 'not counted twice once written');
    });

    it('a reset empties storage and this window\'s counts, and drops the checks still waiting', async () => {
        const accepted = document('y');
        figures.shown('typescript', 'fake-fim');
        figures.accepted({}, 'typescript', 'fake-fim', 'y', accepted);
        await clock.pass(FLUSH_AFTER_MS);
        let changes = 0;
        figures.onChange(() => changes++);
        await figures.reset();
        assert.equal(changes, 1);
        assert.deepEqual((await figures.figures()).rows, []);
        assert.equal(accepted.disposed, true);
        await clock.pass(STILL_PRESENT_AFTER_MS);
        assert.deepEqual((await figures.figures()).rows, [], 'a check from before the reset counts nothing');
        assert.equal((await figures.figures()).since, '2026-11-23T10:00:01.000Z', 'counting begins again at the reset');
    });
});
