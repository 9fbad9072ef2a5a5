import * as assert from 'node:assert/strict';
import { continuesShown, ShownSuggestion } from './suggestion-chain';

describe('a suggestion shown again is not a new suggestion', () => {
    const previous: ShownSuggestion = { uri: 'file:///w/a.ts', offset: 100, text: 'compute(1, 2);', chain: { language: 'typescript', agent: 'fim' } };
    const table: Array<[string, { uri: string; offset: number; text: string }, string | undefined, boolean]> = [
        ['typed through: the rest of it, further along', { uri: previous.uri, offset: 103, text: 'pute(1, 2);' }, 'com', true],
        ['re-shown where it was (after Esc, from the cache)', { uri: previous.uri, offset: 100, text: 'compute(1, 2);' }, '', true],
        ['a fresh answer that says more than the rest', { uri: previous.uri, offset: 103, text: 'pute(1, 2); // sum' }, 'com', true],
        ['typed something else', { uri: previous.uri, offset: 103, text: 'e(3);' }, 'mak', false],
        ['typed all of it: what comes next is new', { uri: previous.uri, offset: 114, text: ' // done' }, 'compute(1, 2);', false],
        ['another file', { uri: 'file:///w/b.ts', offset: 103, text: 'pute(1, 2);' }, 'com', false],
        ['before it', { uri: previous.uri, offset: 90, text: 'compute(1, 2);' }, undefined, false],
        ['a different answer at the same place', { uri: previous.uri, offset: 100, text: 'sum(items);' }, '', false]
    ];
    for (const [what, next, typed, expected] of table) {
        it(`${what} → ${expected ? 'the same' : 'new'}`, () => assert.equal(continuesShown(previous, next, typed), expected));
    }
    it('the first one shown is new', () => assert.equal(continuesShown(undefined, previous, ''), false));
});
