import * as assert from 'node:assert/strict';
import type { ErrorCategory } from '@qodeassist/core';
import { actionText, affordanceFor, settingsTargetFor } from './error-affordance';

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
            // A failed answer can always be asked for again (after fixing what the error names).
            assert.ok(affordance.actions.includes('retry'), category);
        });
    }
});

describe('settingsTargetFor', () => {
    it('leads an Auth error to the key field of the provider it names', () => {
        assert.deepEqual(settingsTargetFor({ category: 'Auth', message: 'm', provider: 'anthropic' }), { section: 'providers', provider: 'anthropic', field: 'key' });
    });

    it('leads an Auth error without a provider to the providers, with the key field asked for', () => {
        assert.deepEqual(settingsTargetFor({ category: 'Auth', message: 'm' }), { section: 'providers', field: 'key' });
    });

    const expected: Array<[ErrorCategory, object]> = [
        ['Network', { section: 'providers', provider: 'local', field: 'test' }],
        ['Provider', { section: 'providers', provider: 'local' }],
        ['Validation', { section: 'agents' }],
        ['Config', { section: 'issues' }],
        ['Tool', { section: 'issues' }]
    ];
    for (const [category, target] of expected) {
        it(`leads a ${category} error to ${JSON.stringify(target)}`, () => {
            assert.deepEqual(settingsTargetFor({ category, message: 'm', provider: 'local' }), target);
        });
    }
});

describe('actionText', () => {
    it('names the Auth error\'s settings button for the key it sets, with the provider in its tooltip', () => {
        assert.deepEqual(actionText('open-settings', { category: 'Auth', message: 'm', provider: 'anthropic' }),
            { label: 'Set API Key', tooltip: 'Open the QodeAssist configuration at the key of provider "anthropic"' });
        assert.equal(actionText('open-settings', { category: 'Auth', message: 'm' }).tooltip, 'Open the QodeAssist configuration at the providers\' keys');
    });

    it('calls it Open Configuration for the other categories, and gives Retry and Summarize a tooltip of their own', () => {
        assert.deepEqual(actionText('open-settings', { category: 'Config', message: 'm' }), { label: 'Open Configuration', tooltip: 'Open the QodeAssist configuration' });
        assert.equal(actionText('retry', { category: 'Network', message: 'm' }).tooltip, 'Ask for this answer again');
        assert.match(actionText('summarize', { category: 'Validation', message: 'm' }).tooltip, /^Summarize this chat into a new one/);
    });
});
