import * as assert from 'node:assert/strict';
import { configurationTargetOf, focusPlaceOf, isFocusPlace } from './configuration-target';

describe('configurationTargetOf', () => {
    it('keeps a section, a provider and a known field', () => {
        assert.deepEqual(configurationTargetOf({ section: 'providers', provider: 'anthropic', field: 'key' }), { section: 'providers', provider: 'anthropic', field: 'key' });
    });

    it('drops an empty provider and an unknown field', () => {
        assert.deepEqual(configurationTargetOf({ section: 'providers', provider: '', field: 'url' }), { section: 'providers' });
    });

    it('takes nothing, a string or an unknown section as no target (the view opens as it is)', () => {
        assert.equal(configurationTargetOf(undefined), undefined);
        assert.equal(configurationTargetOf('qodeassist'), undefined);
        assert.equal(configurationTargetOf({ section: 'preferences' }), undefined);
    });
});

describe('focusPlaceOf', () => {
    const listed = ['anthropic', 'ollama'];

    it('focuses the key of a listed provider', () => {
        assert.deepEqual(focusPlaceOf({ section: 'providers', provider: 'anthropic', field: 'key' }, listed), { section: 'providers', provider: 'anthropic', field: 'key' });
    });

    it('focuses the connection test of a listed provider when no field is asked for', () => {
        assert.deepEqual(focusPlaceOf({ section: 'providers', provider: 'ollama' }, listed), { section: 'providers', provider: 'ollama', field: 'test' });
    });

    it('falls back to the section for a provider the view does not list, and for other sections', () => {
        assert.deepEqual(focusPlaceOf({ section: 'providers', provider: 'gone', field: 'key' }, listed), { section: 'providers' });
        assert.deepEqual(focusPlaceOf({ section: 'issues', provider: 'anthropic' }, listed), { section: 'issues' });
    });
});

describe('isFocusPlace', () => {
    it('matches section, provider and field exactly', () => {
        const place = { section: 'providers' as const, provider: 'anthropic', field: 'key' as const };
        assert.equal(isFocusPlace(place, { section: 'providers', provider: 'anthropic', field: 'key' }), true);
        assert.equal(isFocusPlace(place, { section: 'providers', provider: 'anthropic', field: 'test' }), false);
        assert.equal(isFocusPlace(place, { section: 'providers' }), false);
        assert.equal(isFocusPlace(undefined, { section: 'providers' }), false);
    });
});
