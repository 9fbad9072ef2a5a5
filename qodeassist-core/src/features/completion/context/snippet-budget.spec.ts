import * as assert from 'node:assert/strict';
import { ContextSnippet, ContextSourceKind } from './context-snippet';
import { fitSnippets, repoFilesOf } from './snippet-budget';

const snippet = (source: ContextSourceKind, path: string, content: string, startLine = 0, score = 1): ContextSnippet => ({ source, path, content, startLine, score });
/** One token per character: budgets read as lengths. */
const chars = (text: string) => text.length;

describe('fitting snippets into the budget', () => {
    const around = { prefix: 'import { parse } from "./parse";\nconst result = parse(', suffix: ');\n' };

    it('gives each source its share first, then what is left in order of importance', () => {
        const definition = snippet('definition', 'd.ts', 'export function parse(text: string): Ast {');
        const edit = snippet('recent-edit', 'e.ts', 'const edited = somethingNew();');
        const similar = snippet('similar', 's.ts', 'const other = parse(source, { strict: true });');
        const bigSimilar = snippet('similar', 'b.ts', 'x'.repeat(500));
        const fitted = fitSnippets({ 'definition': [definition], 'recent-edit': [edit], 'similar': [bigSimilar, similar] }, around, 200, chars);
        assert.deepEqual(fitted.chosen, [definition, edit, similar]);
        assert.deepEqual(fitted.records.map(record => [record.source, record.path, record.tokens]), [
            ['definition', 'd.ts', 'd.ts\n'.length + definition.content.length + 1],
            ['recent-edit', 'e.ts', 36],
            ['similar', 's.ts', 52]
        ]);
        assert.equal(fitted.overBudget, 1);
        assert.ok(fitted.records.reduce((sum, record) => sum + record.tokens, 0) <= 200);
    });

    it('lets a source use what the others leave', () => {
        const definitions = [1, 2, 3].map(i => snippet('definition', `d${i}.ts`, `export const value${i} = ${'9'.repeat(40)};`));
        const fitted = fitSnippets({ 'definition': definitions }, around, 210, chars);
        assert.equal(fitted.chosen.length, 3, 'the 50% share holds one; the rest comes from the unused shares');
    });

    it('drops what the cursor window or an earlier snippet already shows', () => {
        const shown = snippet('definition', 'p.ts', 'import { parse } from "./parse";');
        const first = snippet('definition', 'a.ts', 'export const alpha = computeAlpha();\nexport const beta = computeBeta();');
        const again = snippet('similar', 'b.ts', 'export const alpha = computeAlpha();\nexport const beta = computeBeta();\n}');
        const empty = snippet('similar', 'c.ts', '}\n  );\n');
        const fitted = fitSnippets({ 'definition': [shown, first], 'similar': [again, empty] }, around, 10_000, chars);
        assert.deepEqual(fitted.chosen, [first]);
        assert.equal(fitted.duplicates, 3);
    });

    it('takes nothing at a budget of 0', () => {
        assert.deepEqual(fitSnippets({ 'definition': [snippet('definition', 'a.ts', 'export const a = 1;')] }, around, 0, chars).chosen, []);
    });

    it('renders one entry per file, snippets in line order, the most important files last', () => {
        const files = repoFilesOf([
            snippet('definition', 'a.ts', 'export class A {', 40),
            snippet('definition', 'b.ts', 'export type B = string;', 2),
            snippet('similar', 'a.ts', 'const a = new A();', 3),
            snippet('similar', 's.ts', 'const s = 1;', 0),
            snippet('recent-edit', 'e.ts', 'edited();\n', 7)
        ]);
        assert.deepEqual(files, [
            { path: 's.ts', source: 'similar', content: 'const s = 1;\n' },
            { path: 'e.ts', source: 'recent-edit', content: 'edited();\n' },
            { path: 'b.ts', source: 'definition', content: 'export type B = string;\n' },
            { path: 'a.ts', source: 'definition', content: 'const a = new A();\n\nexport class A {\n' }
        ]);
    });
});
