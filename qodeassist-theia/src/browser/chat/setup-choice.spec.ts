import * as assert from 'node:assert/strict';
import { SetupPreset } from '../../common/config-protocol';
import { preselectedPreset, presetBadge } from './setup-choice';

function preset(id: string, fields: Partial<SetupPreset> = {}): SetupPreset {
    return { id, label: id, provider: id, url: '', local: false, keyFound: false, agents: {}, ...fields };
}

describe('preselectedPreset', () => {
    it('selects the first preset that answered, not the one the chat just failed on', () => {
        const presets = [
            preset('ollama', { local: true, failed: true, probe: 'no-answer' }),
            preset('llamacpp', { local: true, probe: 'no-answer' }),
            preset('lmstudio', { local: true, probe: 'answered' }),
            preset('claude', { keyFound: true, probe: 'answered' })
        ];
        assert.equal(preselectedPreset(presets), 'lmstudio');
    });

    it('selects a preset whose key is found when none answered, skipping one found silent', () => {
        const presets = [
            preset('ollama', { local: true, failed: true, probe: 'no-answer' }),
            preset('claude', { keyFound: true, probe: 'no-answer' }),
            preset('openai', { keyFound: true, probe: 'not-tried' })
        ];
        assert.equal(preselectedPreset(presets), 'openai');
    });

    it('selects the first preset not found silent (one that takes a key) when nothing answered and no key is found', () => {
        const presets = [
            preset('ollama', { local: true, failed: true, probe: 'no-answer' }),
            preset('llamacpp', { local: true, probe: 'no-answer' }),
            preset('claude', { probe: 'not-tried' })
        ];
        assert.equal(preselectedPreset(presets), 'claude');
    });

    it('selects the first preset when nothing was checked, and nothing when there are none', () => {
        assert.equal(preselectedPreset([preset('ollama', { local: true }), preset('claude')]), 'ollama');
        assert.equal(preselectedPreset([]), undefined);
    });
});

describe('presetBadge', () => {
    it('says what the check found', () => {
        assert.deepEqual([
            preset('a', { failed: true, probe: 'no-answer' }), preset('b', { probe: 'answered' }), preset('c', { probe: 'no-answer' }),
            preset('d', { keyFound: true, probe: 'not-tried' }), preset('e')
        ].map(presetBadge), ['failed', 'answers', 'no answer', 'key found', undefined]);
    });
});
