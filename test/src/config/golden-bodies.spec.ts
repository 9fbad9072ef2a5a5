import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { bundledConfiguration, GOLDEN_DIR, goldenFor, readGolden } from './golden-bodies';

describe('golden request bodies of the bundled agents', () => {
    const configuration = bundledConfiguration();

    it('loads the bundled configuration without a single issue', () => {
        assert.deepEqual(configuration.issues, []);
        assert.ok(configuration.agents.size >= 30, `only ${configuration.agents.size} concrete agents`);
    });

    it('has a snapshot for every concrete agent and none for a removed one', () => {
        const snapshots = readdirSync(GOLDEN_DIR).map(file => file.replace(/\.json$/, '')).sort();
        assert.deepEqual(snapshots, [...configuration.agents.keys()].sort());
    });

    for (const name of [...configuration.agents.keys()].sort()) {
        it(`${name} renders exactly its snapshot`, () => {
            assert.equal(goldenFor(configuration, name), readGolden(name), `agents/golden/${name}.json differs; run npm run golden:update and review the diff`);
        });
    }
});
