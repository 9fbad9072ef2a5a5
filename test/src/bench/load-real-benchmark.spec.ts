import * as assert from 'node:assert/strict';
import { loadTable } from './load-analysis';
import { FIRST_BYTE_MS } from './load-benchmark';
import { measureRealLoad } from './load-real-benchmark';

/** The real-backend mode, tiny: one backend of the built browser-app, its headless window typing twice and chatting once. */
describe('load benchmark on a real Theia backend', function () {
    this.timeout(240_000);

    it('drives the backend through its websocket as a window does and measures the backend\'s process tree', async () => {
        const [row] = await measureRealLoad([{ users: 1, rampMs: 0 }], { completions: 2, chats: 1, thinkMs: 10 });
        assert.deepEqual(row.failures, []);
        assert.equal(row.mode, 'real');
        assert.deepEqual([row.completions, row.chatTurns], [2, 1]);
        // Only the backend talks to the provider: 2 completions and a chat turn of two requests (the tool round, then the answer).
        assert.equal(row.requestsPerUser, 4);
        assert.ok(row.completionP50 >= FIRST_BYTE_MS * 0.9, `a completion waits for the provider: ${row.completionP50}`);
        assert.ok(row.chatFirstTokenP50 >= 2 * FIRST_BYTE_MS, 'the first token of the answer comes after the tool round');
        assert.ok(row.rssIdleMb !== undefined && row.rssIdleMb > 80 && row.rssIdleMb < 2048, `a whole Theia backend's RSS: ${row.rssIdleMb} MB`);
        assert.ok(row.rssAtEndMb > 80 && row.rssAtEndMb < 2048, `RSS at the end ${row.rssAtEndMb} MB`);
        assert.ok(row.cpuPerUserMs > 0, 'the backend spent CPU on the session');
        assert.match(loadTable([row]), /\| 1 \| one instant \| .* \| 1\.00× \| .* \| 1\.00× \| 2 \/ 1 \|/);
    });
});
