import * as assert from 'node:assert/strict';
import { asksAhead, HINT_PAUSE_MS, leftBehind, triggerDecision, TriggerDecision, TriggerInput, triggerModeFor, triggerPlan, TriggerPlan } from './completion-trigger';

describe('completion trigger', () => {
    const cases: Array<[string, string, TriggerDecision]> = [
        ['    ', '', 'eager'],
        ['', '', 'eager'],
        ['function f(', ')', 'eager'],
        ['const x =', '', 'eager'],
        ['const x = ', '', 'eager'],
        ['if (a) {', '', 'eager'],
        ['call(a,', ')', 'eager'],
        ['items[', ']', 'eager'],
        ['case 1:', '', 'eager'],
        ['x = 1;', '', 'eager'],
        ['const total', '', 'normal'],
        ['return a +', '', 'normal'],
        ['const tot', 'al = 1', 'suppress'],
        ['user.', '', 'suppress'],
        ['user.na', '', 'suppress'],
        ['ptr->', '', 'suppress'],
        ['std::', '', 'suppress'],
        ['std::vec', '', 'suppress']
    ];
    for (const [before, after, expected] of cases) {
        it(`"${before}|${after}" → ${expected}`, () => assert.equal(triggerDecision(before, after), expected));
    }
});

describe('asking ahead inside a burst: where the typist goes on from the same position', () => {
    const cases: Array<[string, string, boolean]> = [
        ['    ', '', true],
        ['', '', true],
        ['function f(', ')', true],
        ['call(a,', ')', true],
        ['call(a, ', ')', true],
        ['const x =', '', true],
        ['items[', ']', true],
        // The next key is usually Enter: the fresh line asks ahead itself.
        ['x = 1;', '', false],
        ['if (a) {', '', false],
        ['case 1:', '', false],
        ['const total', '', false],
        ['user.', '', false]
    ];
    for (const [before, after, expected] of cases) {
        it(`"${before}|${after}" → ${expected ? 'asks ahead' : 'waits for the pause'}`, () => assert.equal(asksAhead(before, after), expected));
    }
});

describe('a fresh line asking ahead replaces the request under way from the line the typist left', () => {
    const cases: Array<[string, number, number, string, boolean]> = [
        ['Enter after a line\'s `;`: the fresh line below', 3, 4, '    ', true],
        ['a fresh line opened above the request\'s line', 5, 4, '', true],
        ['the same line, typing on after `(`: typing ahead uses it', 4, 4, 'call(', false],
        ['the same line, still blank: the request asked there is this position\'s', 4, 4, '    ', false],
        ['another line, not a fresh one (the cursor moved into code)', 3, 4, '    const x =', false]
    ];
    for (const [what, askedLine, line, before, expected] of cases) {
        it(`${what} → ${expected ? 'replaced' : 'kept'}`, () => assert.equal(leftBehind(askedLine, line, before), expected));
    }
});

describe('the trigger plan: what a keystroke leads to', () => {
    const base: TriggerInput = { mode: 'automatic', explicit: false, context: 'normal', typed: 3, minTyped: 1, debounceMs: 180, eagerFloorMs: 90, speculate: false };
    const plan = (input: Partial<TriggerInput>): Omit<TriggerPlan, 'why'> => {
        const { why, ...rest } = triggerPlan({ ...base, ...input });
        assert.ok(why.length > 0, 'says why');
        return rest;
    };
    const table: Array<[string, Partial<TriggerInput>, Omit<TriggerPlan, 'why'>]> = [
        ['automatic, a pause in ordinary text: reuse at once, ask after the debounce', {}, { reuse: true, request: true, quietMs: 180 }],
        ['automatic, eager context: reuse at once, ask once the burst paused', { context: 'eager' }, { reuse: true, request: true, quietMs: 90 }],
        ['automatic, eager context with a debounce set to 0: ask at once', { context: 'eager', eagerFloorMs: 0 }, { reuse: true, request: true, quietMs: 0 }],
        ['automatic, eager context with room in the request budget: ask at the keystroke, inside the burst', { context: 'eager', speculate: true }, { reuse: true, request: true, quietMs: 0, ahead: true }],
        ['automatic, ordinary text with room in the request budget: still wait for the debounce', { speculate: true }, { reuse: true, request: true, quietMs: 180 }],
        ['automatic, after a dot with room in the request budget: still never ask', { context: 'suppress', speculate: true }, { reuse: true, request: false, quietMs: 0 }],
        ['hint, eager context with room in the request budget: still a real pause', { mode: 'hint', context: 'eager', speculate: true }, { reuse: true, request: true, quietMs: HINT_PAUSE_MS }],
        ['automatic, inside a word or after a dot: reuse only, never ask', { context: 'suppress' }, { reuse: true, request: false, quietMs: 0 }],
        ['automatic, too little typed since the last request: reuse only', { typed: 1, minTyped: 3 }, { reuse: true, request: false, quietMs: 0 }],
        ['automatic, too little typed matters not at an eager context', { context: 'eager', typed: 0, minTyped: 3 }, { reuse: true, request: true, quietMs: 90 }],
        ['hint, ordinary text: reuse only, never ask', { mode: 'hint' }, { reuse: true, request: false, quietMs: 0 }],
        ['hint, after a dot: reuse only', { mode: 'hint', context: 'suppress' }, { reuse: true, request: false, quietMs: 0 }],
        ['hint, eager context: ask after a real pause (600 ms at least)', { mode: 'hint', context: 'eager' }, { reuse: true, request: true, quietMs: HINT_PAUSE_MS }],
        ['hint, eager context, a slow typist\'s longer debounce wins', { mode: 'hint', context: 'eager', debounceMs: 700 }, { reuse: true, request: true, quietMs: 700 }],
        ['hint, the Suggest Completion key: ask now', { mode: 'hint', explicit: true, context: 'suppress' }, { reuse: false, request: true, quietMs: 0 }],
        ['automatic, the key inside a word: ask now', { explicit: true, context: 'suppress' }, { reuse: false, request: true, quietMs: 0 }],
        ['off: nothing, not even on the key', { mode: 'off', explicit: true, context: 'eager' }, { reuse: false, request: false, quietMs: 0 }]
    ];
    for (const [what, input, expected] of table) {
        it(what, () => assert.deepEqual(plan(input), expected));
    }
});

describe('the trigger mode of a language', () => {
    const settings = { trigger: 'automatic' as const, languages: { markdown: false, python: 'hint', go: 'automatic', rust: 'off', json: 'sometimes' }, disabledLanguages: ['plaintext', 'go'] };
    const table: Array<[string, string]> = [
        ['typescript', 'automatic'],
        ['markdown', 'off'],
        ['python', 'hint'],
        ['rust', 'off'],
        ['plaintext', 'off'],
        // Its own entry wins over the exclude list.
        ['go', 'automatic'],
        // A value that is no mode is left out.
        ['json', 'automatic']
    ];
    for (const [language, expected] of table) {
        it(`${language} → ${expected}`, () => assert.equal(triggerModeFor(language, settings), expected));
    }

    it('hint for every language without an entry when the global trigger is hint', () => {
        assert.equal(triggerModeFor('typescript', { ...settings, trigger: 'hint' }), 'hint');
        assert.equal(triggerModeFor('go', { ...settings, trigger: 'hint' }), 'automatic');
    });
});
