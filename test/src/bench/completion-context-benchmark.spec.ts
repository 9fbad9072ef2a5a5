import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CompletionContextRetriever, TokenEstimator } from '@qodeassist/core';
import { CaseResult, containsDefinition, CONTEXT_ROWS, measureCase, measureCompletionContext, recall } from './completion-context-benchmark';
import { casesOf, ContextProject, directoryNeighbours, sourcesUnder } from './completion-context-cases';

describe('completion-context benchmark on a tiny project', () => {
    let root: string;
    const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    };
    const project = (family: 'ts' | 'py'): ContextProject => ({ name: `tiny-${family}`, family, root, files: sourcesUnder(root, family === 'ts' ? ['.ts'] : ['.py']) });

    beforeEach(() => {
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qa-ctx-bench-')));
        write('lib/shapes.ts', 'export class Circle {\n    constructor(readonly radius: number) {\n    }\n}\nexport function area(circle: Circle): number {\n    return 0;\n}\n');
        write('lib/index.ts', "export * from './shapes';\n");
        write('app/main.ts', "import { Circle, area } from '../lib';\nimport { external } from 'some-package';\n\nconst c = new Circle(2);\nconsole.log(area(c), external);\n");
        write('app/other.ts', 'export const unrelated = true;\n');
        write('app/local.ts', "import { unrelated } from './other';\nexport const flag = unrelated;\n");
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('finds each use of a symbol imported from another file, with its declaration lines, the rest of the line untyped', () => {
        const cases = casesOf(project('ts'), 100).sort((a, b) => a.file.localeCompare(b.file) || a.offset - b.offset);
        assert.deepEqual(cases.map(found => [found.file.slice(root.length + 1), found.symbol, found.definitionFile.slice(root.length + 1), found.definitionLines]), [
            ['app/local.ts', 'unrelated', 'app/other.ts', ['export const unrelated = true;']],
            ['app/main.ts', 'Circle', 'lib/shapes.ts', ['export class Circle {']],
            ['app/main.ts', 'area', 'lib/shapes.ts', ['export function area(circle: Circle): number {']]
        ], 'external comes from a package: not a case; one case per symbol and file');
        const circle = cases[1];
        assert.equal(circle.text.slice(circle.offset - 'const c = new '.length, circle.offset + 1), 'const c = new \n', 'the cursor where Circle starts, the rest of its line gone');
    });

    it('reads Python with its own ast: a name a package passes on is traced to its definition', () => {
        write('pkg/__init__.py', '');
        write('pkg/core.py', 'def helper(value: int) -> int:\n    return value\n');
        write('pkg/api.py', 'from .core import helper\n');
        write('pkg/use.py', 'from .api import helper\n\nresult = helper(3)\n');
        const cases = casesOf({ ...project('py'), files: sourcesUnder(join(root, 'pkg'), ['.py']), root: join(root, 'pkg') }, 100);
        assert.deepEqual(cases.map(found => [found.file.slice(root.length + 1), found.symbol, found.definitionFile.slice(root.length + 1), found.definitionLines]), [
            ['pkg/use.py', 'helper', 'pkg/core.py', ['def helper(value: int) -> int:']]
        ]);
    });

    it('counts a hit only for a declaration line from the defining file', () => {
        const lines = ['export class Circle {'];
        assert.equal(containsDefinition([{ path: 'lib/shapes.ts', content: 'other\n    export class Circle {\n' }], 'lib/shapes.ts', lines), true);
        assert.equal(containsDefinition([{ path: 'lib/copy.ts', content: 'export class Circle {\n' }], 'lib/shapes.ts', lines), false, 'another file');
        assert.equal(containsDefinition([{ path: 'lib/shapes.ts', content: 'export class Circle extends Base {\n' }], 'lib/shapes.ts', lines), false, 'another line');
    });

    it('measures every row at every budget: today\'s open neighbours hold a definition only when the defining file is one of them', async () => {
        const estimator = new TokenEstimator();
        const retriever = new CompletionContextRetriever(text => estimator.estimateText(text));
        const [inFolder] = casesOf(project('ts'), 100).filter(found => found.symbol === 'unrelated');
        const [across] = casesOf(project('ts'), 100).filter(found => found.symbol === 'area');
        assert.deepEqual(directoryNeighbours(inFolder.file, 4).map(path => path.slice(root.length + 1)), ['app/main.ts', 'app/other.ts']);
        const near = await measureCase(inFolder, root, retriever, estimator);
        const far = await measureCase(across, root, retriever, estimator);
        assert.deepEqual(near.hits['open files, whole (today)'], [true, true, true]);
        assert.deepEqual(far.hits['open files, whole (today)'], [false, false, false], 'lib/shapes.ts is not open');
        assert.deepEqual(far.hits['definitions (lexical)'], [true, true, true]);
        assert.deepEqual(far.hits['all new sources (assembled)'], [true, true, true]);
        // The first requests run with the engine's reading deadline: how soon they are is measured, not asserted.
        assert.ok(far.warmMs >= 0 && far.coldMs >= 0);
    });

    it('computes recall as the share of cases with a hit, per row and budget', async () => {
        const result = (today: boolean[], assembled: boolean[]): CaseResult => ({
            project: 'p', warmMs: 1, warmHit: true, coldMs: 2, coldHit: false,
            hits: Object.fromEntries(CONTEXT_ROWS.map(row => [row, row === 'open files, whole (today)' ? today : row === 'all new sources (assembled)' ? assembled : [false, false, false]])) as CaseResult['hits']
        });
        const results = [result([false, false, true], [true, true, true]), result([false, true, true], [false, true, true]), result([false, false, false], [false, false, true]), result([false, false, false], [true, true, true])];
        assert.deepEqual([0, 1, 2].map(index => recall(results, 'open files, whole (today)', index)), [0, 0.25, 0.5]);
        assert.deepEqual([0, 1, 2].map(index => recall(results, 'all new sources (assembled)', index)), [0.5, 0.75, 1]);
        assert.equal(recall([], 'definitions (lexical)', 0), 0);
        const bench = await measureCompletionContext(100, [project('ts')]);
        assert.deepEqual(bench.projects, [{ name: 'tiny-ts', files: 5, cases: 3 }]);
        assert.equal(recall(bench.results, 'definitions (lexical)', 1), 1);
        assert.equal(recall(bench.results, 'open files, whole (today)', 1), 1 / 3, 'only the case whose definition is a neighbour');
    });
});
