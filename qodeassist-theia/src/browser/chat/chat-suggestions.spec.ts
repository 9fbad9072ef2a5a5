import * as assert from 'node:assert/strict';
import { applySuggestion, mentionsIn, rankMentions, triggerAt } from './chat-suggestions';

describe('chat composer suggestions', () => {
    const triggers: Array<[string, number | undefined, ReturnType<typeof triggerAt>]> = [
        ['@', undefined, { kind: 'mention', query: '', start: 0 }],
        ['look at @src/ma', undefined, { kind: 'mention', query: 'src/ma', start: 8 }],
        ['mail me@example.com', undefined, undefined],
        ['/', undefined, { kind: 'skill', query: '', start: 0 }],
        ['/revi', undefined, { kind: 'skill', query: 'revi', start: 0 }],
        ['use /revi', undefined, undefined],
        ['/review the @main', 12, undefined],
        ['/review the @main', 7, { kind: 'skill', query: 'review', start: 0 }],
        ['@main.ts and more', 3, { kind: 'mention', query: 'ma', start: 0 }]
    ];
    for (const [text, caret, expected] of triggers) {
        it(`"${text}" at ${caret ?? 'the end'} → ${expected ? `${expected.kind} "${expected.query}"` : 'nothing'}`, () => {
            assert.deepEqual(triggerAt(text, caret ?? text.length), expected);
        });
    }

    it('replaces the typed trigger with the choice and puts the caret after it', () => {
        const text = 'see @ma please';
        const trigger = triggerAt(text, 7)!;
        assert.deepEqual(applySuggestion(text, 7, trigger, 'src/main.ts'), { text: 'see @src/main.ts please', caret: 17 });
        assert.deepEqual(applySuggestion('/re', 3, triggerAt('/re', 3)!, 'review'), { text: '/review ', caret: 8 });
    });

    it('finds each mentioned file once, and ranks open editors first', () => {
        assert.deepEqual(mentionsIn('@a.ts and @b/c.ts, again @a.ts; me@x.org'), ['a.ts', 'b/c.ts']);
        assert.deepEqual(rankMentions('ma', ['src/main.ts', 'README.md'], ['lib/math.ts', 'src/main.ts']), ['src/main.ts', 'lib/math.ts']);
    });
});
