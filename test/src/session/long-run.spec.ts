import * as assert from 'node:assert/strict';
import { LongRunResult, longRunScript, runLongScenario } from './long-run-scenario';

describe('a long agentic run stays coherent (50 tool rounds, 10,000-token window)', function () {
    this.timeout(180_000);
    let run: LongRunResult;
    before(async () => { run = await runLongScenario(); });

    it('finishes all 50 rounds, re-assembling every request', () => {
        const failed = run.events.find(event => event.type === 'Failed');
        assert.equal(failed, undefined, JSON.stringify(failed));
        assert.equal(run.requests.length, longRunScript().length + 1);
        assert.ok(run.requests.every(request => request.manifest), 'every request has its manifest');
        assert.ok(run.events.some(event => event.type === 'Finished'));
    });

    it('needs no tool-trace repair in any request', () => {
        assert.deepEqual(run.requests.map(request => request.manifest!.repairs).filter(repairs => Object.keys(repairs).length > 0), []);
    });

    it('stays under the limit, eliding to get there', () => {
        for (const request of run.requests) {
            assert.ok(request.manifest!.estimate <= run.limit, `request ${request.round}: ${request.manifest!.estimate} > ${run.limit}`);
        }
        assert.ok(run.requests.some(request => request.manifest!.elisions.some(elision => elision.reason === 'low-signal')), 'old reads were elided');
    });

    it('keeps the working set and the latest build failure in every request after they arise; superseded failures are gone', () => {
        const script = longRunScript();
        let latestBuildFailure: string | undefined;
        let latestProblem: string | undefined;
        const seen = new Set<string>();
        run.requests.forEach((request, round) => {
            // The results of the rounds before this request are in it.
            const previous = script[round - 1];
            const cycle = Math.floor((round - 1) / 6);
            if (previous?.name === 'build_project') {
                latestBuildFailure = (round - 1) % 6 === 2 ? `BROKEN${cycle} is not defined` : undefined;
            } else if (previous?.name === 'get_diagnostics') {
                latestProblem = `BROKEN${cycle} is not defined`;
            }
            for (const failure of [latestBuildFailure, latestProblem]) {
                if (failure) {
                    seen.add(failure);
                }
            }
            const body = request.body;
            if (round > 0) {
                assert.match(body, /<working_set>/, `request ${round} has the working set`);
                assert.match(body, /Goal: Cycle the step constant eight times/);
            }
            if (latestBuildFailure) {
                assert.ok(body.includes(`error: ${latestBuildFailure}`), `request ${round} shows the latest build failure ${latestBuildFailure}`);
                assert.match(body, /Latest build: FAILED/);
            } else if (round > 3) {
                assert.match(body, /Latest build: succeeded/, `request ${round}`);
            }
            for (const old of seen) {
                if (old !== latestBuildFailure && old !== latestProblem) {
                    assert.ok(!body.includes(`error: ${old}`), `request ${round} no longer shows the superseded failure ${old}`);
                }
            }
        });
        assert.equal(seen.size, 8, 'eight failures arose and were superseded one after another');
    });

    it('without re-assembly the same run outgrows the window (the baseline the benchmark compares with)', async () => {
        const replay = await runLongScenario({ reassembleRounds: false });
        const sizes = replay.requests.map(request => request.body.length);
        assert.ok(sizes.at(-1)! / 4 > replay.limit, `the replayed run ends at ~${Math.round(sizes.at(-1)! / 4)} tokens against a limit of ${replay.limit}`);
    });
});
