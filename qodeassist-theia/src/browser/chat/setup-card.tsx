import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ProviderTest, SetupChoice, SetupPreset, SetupState } from '../../common/config-protocol';
import { preselectedPreset, presetBadge } from './setup-choice';

export interface SetupCardProps {
    state: SetupState;
    /** Tests the choice and, when it answers, makes it the chat's agent. */
    apply(choice: SetupChoice): Promise<ProviderTest>;
    done(test: ProviderTest): void;
    /** What the card is headed with and where it sends for help; a product that embeds QodeAssist names itself and its own guide. */
    branding?: SetupCardBranding;
}

export interface SetupCardBranding {
    title: string;
    /** A guide to setting up a provider, opened in a new tab. */
    help?: { label: string; url: string };
}

/** What a preset's button says on hover: what it is and what the check found. */
function presetTitle(preset: SetupPreset): string {
    if (preset.failed) {
        return nls.localize('qodeassist/setup/presetFailed', '{0}: the chat\'s agent just failed on it (see above)', preset.label);
    }
    switch (preset.probe) {
        case 'answered': return nls.localize('qodeassist/setup/presetAnswered', '{0}: answered just now', preset.label);
        case 'no-answer': return nls.localize('qodeassist/setup/presetNoAnswer', '{0}: did not answer just now', preset.label);
    }
    return preset.keyFound
        ? nls.localize('qodeassist/setup/presetKeyFound', '{0}: its key is set', preset.label)
        : preset.local ? nls.localize('qodeassist/setup/presetLocal', '{0}: a server on your machine', preset.label) : nls.localize('qodeassist/setup/presetNeedsKey', '{0}: needs an API key', preset.label);
}

/**
 * The Quick Setup the chat shows while it has no agent it can reach: pick a preset (the first that
 * answered is selected), give the key (or use one found in the environment) or a local server's
 * URL, test, done.
 */
export function SetupCard({ state, apply, done, branding }: SetupCardProps): React.ReactElement {
    const [selected, setSelected] = React.useState(() => preselectedPreset(state.presets));
    const [url, setUrl] = React.useState<Record<string, string>>({});
    const [key, setKey] = React.useState('');
    const [result, setResult] = React.useState<ProviderTest | 'testing' | undefined>(undefined);
    const preset = state.presets.find(candidate => candidate.id === selected);
    const run = async () => {
        if (!preset) {
            return;
        }
        setResult('testing');
        const test = await apply({ preset: preset.id, url: url[preset.id], key: key || undefined });
        setResult(test);
        if (test.status === 'reachable') {
            done(test);
        }
    };
    return <div className='qa-setup' data-setup='card' role='region' aria-labelledby='qa-setup-title'>
        <div className='qa-setup-title' id='qa-setup-title'><i className={codicon('rocket')} aria-hidden='true' /> {branding?.title ?? nls.localize('qodeassist/setup/title', 'Set up QodeAssist')}</div>
        {branding?.help && <a className='qa-setup-help' data-link='setup-help' href={branding.help.url} target='_blank' rel='noopener noreferrer'>{branding.help.label}</a>}
        {state.reason && <div className='qa-setup-reason'>
            {nls.localize('qodeassist/setup/reason', 'The chat has no agent it can reach.')} <span className='qa-setup-why'>{state.reason}</span>
        </div>}
        <div className='qa-setup-pick' id='qa-setup-pick'>{nls.localize('qodeassist/setup/pick', 'Choose a provider:')}</div>
        <div className='qa-setup-presets' role='group' aria-labelledby='qa-setup-pick'>{state.presets.map(candidate => {
            const badge = presetBadge(candidate);
            return <button key={candidate.id} type='button' data-preset={candidate.id} data-probe={candidate.probe} aria-pressed={candidate.id === selected} title={presetTitle(candidate)}
                className={`theia-button ${candidate.id === selected ? '' : 'secondary'}`} onClick={() => { setSelected(candidate.id); setResult(undefined); setKey(''); }}>
                {candidate.label}{badge && <span className='qa-setup-badge' data-badge={badge}> · {badge}</span>}
            </button>;
        })}</div>
        {preset && <div className='qa-setup-details'>
            {preset.local && <label>{nls.localize('qodeassist/setup/url', 'Server URL')}
                <input className='theia-input' data-field='url' value={url[preset.id] ?? preset.url} title={nls.localize('qodeassist/setup/urlHint', 'Where the {0} server listens', preset.label)}
                    onChange={event => setUrl({ ...url, [preset.id]: event.target.value })} />
            </label>}
            {!preset.local && preset.keyVariable && (preset.keyFound
                ? <div className='qa-setup-key-found'>{nls.localize('qodeassist/setup/keyFound', 'The key is set ({0}).', preset.keyVariable)}</div>
                : <label>{nls.localize('qodeassist/setup/key', 'API key')}
                    <input className='theia-input' type='password' data-field='key' value={key} aria-describedby='qa-setup-key-hint'
                        title={nls.localize('qodeassist/setup/keyTitle', 'The {0} API key', preset.label)} onChange={event => setKey(event.target.value)} />
                    <span className='qa-setup-hint' id='qa-setup-key-hint'>
                        {nls.localize('qodeassist/setup/keyHint', 'Kept for your user on the machine running QodeAssist, never in the browser. Or set {0} there instead.', preset.keyVariable)}
                    </span>
                </label>)}
            <button type='button' className='theia-button' data-action='apply-setup' disabled={result === 'testing'}
                title={nls.localize('qodeassist/setup/applyHint', 'Ask {0} for its models; when it answers, its agents come first for you', preset.label)} onClick={() => void run()}>
                {result === 'testing' ? nls.localize('qodeassist/setup/testing', 'Testing…') : nls.localize('qodeassist/setup/apply', 'Test and use')}
            </button>
            {result && result !== 'testing' && <div className='qa-setup-result' data-status={result.status} role='status'>{result.message}</div>}
        </div>}
    </div>;
}
