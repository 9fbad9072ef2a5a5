import * as assert from 'node:assert/strict';
import { FIRST_BYTE_MS, loadTable, measureLoad } from './load-benchmark';

/** The load benchmark's machinery, tiny: two user backends in processes of their own, one typing and chatting each. */
describe('load benchmark machinery', function () {
    this.timeout(120_000);

    it('runs user backends as separate processes against one provider and reports their latencies, requests and memory', async () => {
        const [row] = await measureLoad([{ users: 2, rampMs: 200 }], { completions: 2, chats: 1, thinkMs: 10 });
        assert.deepEqual(row.failures, []);
        assert.equal(row.users, 2);
        // Each user: 2 completions (each stop on a line of its own, so none comes from the cache) and a chat turn of two requests.
        assert.equal(row.requestsPerUser, 4);
        assert.ok(row.completionP50 >= FIRST_BYTE_MS * 0.9, `a completion waits for the provider: ${row.completionP50}`);
        assert.ok(row.chatFirstTokenP50 >= 2 * FIRST_BYTE_MS, 'the first token of the answer comes after the tool round');
        assert.ok(row.rssPerUserMb > 20 && row.rssPerUserMb < 1024, `RSS ${row.rssPerUserMb} MB`);
        assert.ok(row.cpuPerUserMs > 0 && row.cpuPerUserMs < 60_000, `CPU ${row.cpuPerUserMs} ms`);
        assert.match(loadTable([row]), /\| 2 \| 0\.2 s \| .* \| 1\.00× \|/);
    });
});
