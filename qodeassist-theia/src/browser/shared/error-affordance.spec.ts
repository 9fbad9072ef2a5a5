import * as assert from 'node:assert/strict';
import type { ErrorCategory } from '@qodeassist/core';
import { affordanceFor } from './error-affordance';

describe('affordanceFor', () => {
    const expected: Array<[ErrorCategory, string]> = [
        ['Auth', 'open-settings'], ['Network', 'retry'], ['Provider', 'retry'],
        ['Validation', 'summarize'], ['Config', 'open-settings'], ['Tool', 'retry']
    ];
    for (const [category, firstAction] of expected) {
        it(`offers ${firstAction} first for ${category} errors`, () => {
            const affordance = affordanceFor({ category, message: 'm' });
            assert.equal(affordance.actions[0], firstAction);
            assert.ok(affordance.hint.length > 20);
        });
    }
});
