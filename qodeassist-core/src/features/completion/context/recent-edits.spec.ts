import * as assert from 'node:assert/strict';
import { recentEditSnippets } from './recent-edits';
import { ContextFileAccess } from './source-files';

/** Files under /w are shown by their path inside it; `hidden.ts` is ignored. */
const access: ContextFileAccess = {
    roots: ['/w'],
    relativePath: path => path.startsWith('/w/') && !path.endsWith('hidden.ts') ? path.slice(3) : undefined,
    mayRead: path => path.startsWith('/w/')
};

describe('recently edited regions', () => {
    it('keeps the newest first and drops files the model may not see', () => {
        const found = recentEditSnippets([
            { path: '/w/b.ts', startLine: 10, text: 'const b = 2;\n' },
            { path: '/w/hidden.ts', startLine: 0, text: 'const secret = 1;' },
            { path: '/elsewhere/c.ts', startLine: 0, text: 'const c = 3;' },
            { path: '/w/a.ts', startLine: 3, text: 'const a = 1;' }
        ], access);
        assert.deepEqual(found, [
            { source: 'recent-edit', path: 'b.ts', content: 'const b = 2;', startLine: 10, score: -0 },
            { source: 'recent-edit', path: 'a.ts', content: 'const a = 1;', startLine: 3, score: -1 }
        ]);
    });

    it('drops an older edit of a region a newer one already shows, and blank ones', () => {
        const found = recentEditSnippets([
            { path: '/w/a.ts', startLine: 0, text: 'one\ntwo\nthree\nfour' },
            { path: '/w/a.ts', startLine: 1, text: 'two\nthree' },
            { path: '/w/a.ts', startLine: 8, text: '   \n' }
        ], access);
        assert.deepEqual(found.map(snippet => snippet.startLine), [0]);
    });

    it('keeps the middle of a long region and at most maxEdits of them', () => {
        const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
        const [snippet] = recentEditSnippets([{ path: '/w/a.ts', startLine: 100, text: long }], access, { maxEdits: 6, maxLines: 10 });
        assert.equal(snippet.startLine, 110);
        assert.equal(snippet.content, Array.from({ length: 10 }, (_, i) => `line ${i + 10}`).join('\n'));
        const many = Array.from({ length: 9 }, (_, i) => ({ path: `/w/f${i}.ts`, startLine: 0, text: 'x = 1' }));
        assert.equal(recentEditSnippets(many, access, { maxEdits: 4, maxLines: 10 }).length, 4);
        assert.deepEqual(recentEditSnippets(many, undefined), [], 'without a workspace nothing is shown');
    });
});
