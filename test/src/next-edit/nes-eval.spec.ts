import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
    casesFromVersions, ConfigurationService, editableRegion, EnvironmentSecretsStore, NesCase, QodeAssistRuntime, runNesEval, summarizeNesEval
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording } from '../fake-provider/recordings';

/** Two published versions of the same file, as installed in node_modules: real history. */
const OLD = require.resolve('@theia/filesystem/node_modules/ignore/index.js', { paths: [process.cwd()] });
const NEW = require.resolve('ignore/index.js', { paths: [require.resolve('@qodeassist/core')] });

/** What a perfect model answers for a case: the editable region as it reads after the real next edit; undefined when that edit reaches outside the region. */
function oracleRegion(testCase: NesCase): string | undefined {
    const region = editableRegion(testCase.text, testCase.cursor);
    const grown = testCase.expected.length - testCase.text.length;
    const rewritten = testCase.expected.slice(region.start, region.end + grown);
    return testCase.text.slice(0, region.start) + rewritten + testCase.text.slice(region.end) === testCase.expected ? rewritten : undefined;
}

describe('nes-eval over cases cut from two published versions of a package', function () {
    this.timeout(60_000);
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let cases: NesCase[];

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/fake-zeta.toml', 'schema_version = 1\nname = "fake-zeta"\nextends = "zeta-ollama"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n\n[next_edit]\nagents = ["fake-zeta"]\n');
        cases = casesFromVersions('ignore/index.js', readFileSync(OLD, 'utf8'), readFileSync(NEW, 'utf8'), 'ignore');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });

    const run = async (answer: (testCase: NesCase) => string) => {
        server.reset();
        for (const testCase of cases) {
            server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['<|editable_region_start|>\n', answer(testCase), '\n<|editable_region_end|>\n```']) });
        }
        const { results } = await runNesEval({
            runtime: new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS) }), configuration: new ConfigurationService(fixture.roots),
            workspace: fixture.workspace, cases
        });
        return results;
    };

    it('cuts a few dozen cases from the two versions', () => {
        assert.ok(cases.length >= 10, `only ${cases.length} cases`);
    });

    it('a model that repeats the region scores 0: the score measures the edit, not the copied text', async () => {
        const results = await run(testCase => { const region = editableRegion(testCase.text, testCase.cursor); return testCase.text.slice(region.start, region.end); });
        const summary = summarizeNesEval(results);
        assert.deepEqual([summary.exactMatch, summary.editSimilarity, summary.noEdit, summary.errors], [0, 0, cases.length, 0]);
    });

    it('a perfect model scores exact on every case whose next edit lies in the region: prompt, parsing and edits lose nothing', async () => {
        const reachable = cases.filter(testCase => oracleRegion(testCase) !== undefined);
        assert.ok(reachable.length > cases.length / 2, `${reachable.length} of ${cases.length} reachable`);
        const results = await run(testCase => oracleRegion(testCase) ?? '');
        const byId = new Map(results.map(result => [result.id, result]));
        for (const testCase of reachable) {
            assert.deepEqual([testCase.id, byId.get(testCase.id)!.exact_match, byId.get(testCase.id)!.edit_similarity], [testCase.id, true, 1]);
        }
    });
});
