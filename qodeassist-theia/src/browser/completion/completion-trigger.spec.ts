import * as assert from 'node:assert/strict';
import { triggerDecision, TriggerDecision } from './completion-trigger';

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
