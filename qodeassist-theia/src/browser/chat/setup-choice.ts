import { SetupPreset } from '../../common/config-protocol';

/**
 * The preset the setup card selects first: one that answered just now; else one whose key is
 * found; else the first that was not found silent — never the provider the chat just failed on.
 */
export function preselectedPreset(presets: readonly SetupPreset[]): string | undefined {
    const candidates = presets.filter(preset => !preset.failed);
    return (candidates.find(preset => preset.probe === 'answered')
        ?? candidates.find(preset => preset.keyFound && preset.probe !== 'no-answer')
        ?? candidates.find(preset => preset.probe !== 'no-answer')
        ?? candidates[0]
        ?? presets[0])?.id;
}

/** A few words on a preset's button about what the check found. */
export function presetBadge(preset: SetupPreset): string | undefined {
    if (preset.failed) {
        return 'failed';
    }
    if (preset.probe === 'answered') {
        return 'answers';
    }
    if (preset.probe === 'no-answer') {
        return 'no answer';
    }
    return preset.keyFound ? 'key found' : undefined;
}
