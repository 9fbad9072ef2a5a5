import * as assert from 'node:assert/strict';
import { parseFimDataset, runCaseTests } from '@qodeassist/core';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildFimDataset, DATASET_FILE, formatFimDataset, SOURCES } from './fim-eval-dataset-generator';

const ROOT = join(__dirname, '..', '..', '..');

describe('fim-eval dataset from packaged sources', function () {
    this.timeout(30_000);
    const committed = readFileSync(DATASET_FILE, 'utf8');
    const dataset = parseFimDataset(DATASET_FILE, committed);

    it('the committed file is what the generator writes from the installed packages', () => {
        assert.ok(committed === formatFimDataset(buildFimDataset()), 'stale: run node test/lib/bench/fim-eval-dataset-generator.js');
    });

    it('is small, valid, and covers TypeScript, Python and cases with tests', () => {
        assert.ok(statSync(DATASET_FILE).size < 300_000);
        assert.deepEqual(dataset.issues, []);
        assert.ok(dataset.cases.length >= 30 && dataset.cases.length <= 60, String(dataset.cases.length));
        const languages = new Set(dataset.cases.map(entry => entry.language));
        assert.ok(languages.has('typescript') && languages.has('python'));
        assert.equal(dataset.cases.filter(entry => entry.tests).length, 3);
    });

    it('every packaged case is a contiguous excerpt of its source file, with bounded windows', () => {
        const packaged = dataset.cases.filter(entry => !entry.tests);
        assert.equal(packaged.length, SOURCES.reduce((sum, source) => sum + source.cases, 0));
        for (const entry of packaged) {
            const pkg = entry.id.split('/')[0];
            const source = readFileSync(join(ROOT, 'node_modules', pkg, entry.path), 'utf8');
            assert.ok(source.includes(entry.prefix + entry.expected + entry.suffix), entry.id);
            assert.ok(!entry.expected.includes('\n') && entry.expected.trim() === entry.expected, entry.id);
            assert.ok(entry.prefix.split('\n').length <= 41 && entry.prefix.length <= 2_200, entry.id);
            assert.ok(entry.suffix.split('\n').length <= 21 && entry.suffix.length <= 1_100, entry.id);
        }
    });

    it('each case with tests passes with its expected text and fails without it', async () => {
        for (const entry of dataset.cases.filter(candidate => candidate.tests)) {
            assert.equal((await runCaseTests(entry, entry.expected))?.passed, true, entry.id);
            assert.equal((await runCaseTests(entry, ''))?.passed, false, entry.id);
        }
    });
});
