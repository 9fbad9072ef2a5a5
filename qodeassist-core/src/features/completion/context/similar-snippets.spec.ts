import * as assert from 'node:assert/strict';
import { identifierSet, jaccard } from './identifier-tokens';
import { DEFAULT_SIMILAR, similarSnippets, tokenWindows } from './similar-snippets';

describe('similar snippets (Jaccard over identifier windows)', () => {
    it('measures identifier overlap, keywords and one-letter names left out', () => {
        assert.deepEqual([...identifierSet('const total = items.reduce((sum, x) => sum + x, 0); return total;')], ['total', 'items', 'reduce', 'sum']);
        assert.equal(jaccard(new Set(['a1', 'b1', 'c1']), new Set(['b1', 'c1', 'd1'])), 2 / 4);
        assert.equal(jaccard(new Set(), new Set(['a1'])), 0);
    });

    it('cuts a file into overlapping windows of whole lines', () => {
        const text = Array.from({ length: 25 }, (_, i) => `word${i}`).join('\n');
        assert.deepEqual(tokenWindows(text, { windowLines: 10, stride: 5 }).map(span => [span.start, span.end]), [[0, 10], [5, 15], [10, 20], [15, 25]]);
    });

    it('finds the window of a neighbouring file that shares the code\'s identifiers, at most maxPerFile a file, best first', () => {
        const noise = Array.from({ length: 40 }, (_, i) => `const unrelated${i} = other${i};`).join('\n');
        const match = 'const response = await client.fetchUser(userId, { retries });\nif (!response.ok) {\n    throw new HttpError(response.status);\n}';
        const files = [
            { path: 'src/users.ts', text: `${noise}\n${match}\n${noise}` },
            { path: 'src/noise.ts', text: noise }
        ];
        const found = similarSnippets('async function load(userId: string) {\n    const response = await client.fetchUser(userId, { retries', files, { ...DEFAULT_SIMILAR, windowLines: 6, stride: 3 });
        assert.equal(found.length, 1, 'the unrelated file shares nothing');
        assert.equal(found[0].path, 'src/users.ts');
        assert.ok(found[0].content.includes('client.fetchUser(userId'), found[0].content);
        assert.ok(found[0].score > 0.2);
    });

    it('offers nothing when the code before the cursor has no identifiers', () => {
        assert.deepEqual(similarSnippets('\n  {\n', [{ path: 'a.ts', text: 'const x = 1;' }]), []);
    });
});
