import * as assert from 'node:assert/strict';
import { CompletionCache } from './completion-cache';

describe('CompletionCache', () => {
    it('answers the position it was stored for and every position typed ahead into the completion', () => {
        const cache = new CompletionCache();
        cache.put('a.ts', 'const x = ', ';\n', 'compute(1)');
        assert.equal(cache.get('a.ts', 'const x = ', ';\n'), 'compute(1)');
        assert.equal(cache.get('a.ts', 'const x = comp', ';\n'), 'ute(1)');
        assert.equal(cache.get('a.ts', 'const x = compute(1', ';\n'), ')');
        assert.equal(cache.get('a.ts', 'const x = compute(1)', ';\n'), undefined, 'fully typed: nothing left to suggest');
        assert.equal(cache.get('a.ts', 'const x = comx', ';\n'), undefined, 'typing away from it misses');
        assert.equal(cache.get('b.ts', 'const x = ', ';\n'), undefined, 'another file misses');
        assert.equal(cache.get('a.ts', 'const x = ', ')\n'), undefined, 'another suffix misses');
    });

    it('keeps forward entries within their limit', () => {
        const cache = new CompletionCache({ entries: 1000, bytes: 1 << 20, forwardChars: 3 });
        cache.put('a', 'p', 's', 'abcdefgh');
        assert.equal(cache.size.entries, 4);
        assert.equal(cache.get('a', 'pabc', 's'), 'defgh');
        assert.equal(cache.get('a', 'pabcd', 's'), undefined);
    });

    it('evicts the least recently used entries past the entry and byte bounds', () => {
        const cache = new CompletionCache({ entries: 3, bytes: 1 << 20, forwardChars: 0 });
        cache.put('a', '1', '', 'x');
        cache.put('a', '2', '', 'x');
        cache.put('a', '3', '', 'x');
        assert.equal(cache.get('a', '1', ''), 'x', 'touching 1 makes 2 the oldest');
        cache.put('a', '4', '', 'x');
        assert.equal(cache.get('a', '2', ''), undefined);
        assert.equal(cache.get('a', '1', ''), 'x');
        const small = new CompletionCache({ entries: 100, bytes: 200, forwardChars: 0 });
        small.put('a', 'p', '', 'y'.repeat(60));
        small.put('a', 'q', '', 'z'.repeat(60));
        assert.ok(small.size.bytes <= 200, String(small.size.bytes));
        assert.equal(small.get('a', 'p', ''), undefined, 'the older entry went to stay within the bytes');
        assert.equal(small.get('a', 'q', ''), 'z'.repeat(60));
    });

    it('keys on the end of the prefix and the start of the suffix only', () => {
        assert.equal(CompletionCache.key('f', `${'x'.repeat(5000)}tail`, `head${'y'.repeat(5000)}`), CompletionCache.key('f', `${'z'.repeat(3000)}${'x'.repeat(996)}tail`, `head${'y'.repeat(296)}`));
    });
});
