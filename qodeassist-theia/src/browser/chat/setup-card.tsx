import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ProviderTest, SetupChoice, SetupState } from '../../common/config-protocol';

export interface SetupCardProps {
    state: SetupState;
    /** Tests the choice and, when it answers, makes it the chat's agent. */
    apply(choice: SetupChoice): Promise<ProviderTest>;
    done(test: ProviderTest): void;
}

/**
 * The Quick Setup the chat shows while it has no agent it can reach: pick a preset, give the
 * key (or use one found in the environment) or a local server's URL, test, done.
 */
export function SetupCard({ state, apply, done }: SetupCardProps): React.ReactElement {
    const [selected, setSelected] = React.useState(state.presets.find(preset => preset.keyFound)?.id ?? state.presets[0]?.id);
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
    return <div className='qa-setup' data-setup='card'>
        <div className='qa-setup-title'><i className={codicon('rocket')} /> {nls.localize('qodeassist/setup/title', 'Set up QodeAssist')}</div>
        {state.reason && <div className='qa-setup-reason'>{nls.localize('qodeassist/setup/reason', 'The chat has no agent it can reach ({0}). Pick a provider:', state.reason)}</div>}
        <div className='qa-setup-presets'>{state.presets.map(candidate => <button key={candidate.id} data-preset={candidate.id}
            className={`theia-button ${candidate.id === selected ? '' : 'secondary'}`} onClick={() => { setSelected(candidate.id); setResult(undefined); setKey(''); }}>
            {candidate.label}{candidate.keyFound ? ' ✓' : ''}
        </button>)}</div>
        {preset && <div className='qa-setup-details'>
            {preset.local && <label>{nls.localize('qodeassist/setup/url', 'Server URL')}
                <input className='theia-input' data-field='url' value={url[preset.id] ?? preset.url} onChange={event => setUrl({ ...url, [preset.id]: event.target.value })} />
            </label>}
            {!preset.local && preset.keyVariable && (preset.keyFound
                ? <div className='qa-setup-key-found'>{nls.localize('qodeassist/setup/keyFound', 'Key found in {0}.', preset.keyVariable)}</div>
                : <label>{nls.localize('qodeassist/setup/key', 'API key (stored for your user on the machine running QodeAssist; or set {0})', preset.keyVariable)}
                    <input className='theia-input' type='password' data-field='key' value={key} onChange={event => setKey(event.target.value)} />
                </label>)}
            <button className='theia-button' data-action='apply-setup' disabled={result === 'testing'} onClick={() => void run()}>
                {result === 'testing' ? nls.localize('qodeassist/setup/testing', 'Testing…') : nls.localize('qodeassist/setup/apply', 'Test and use')}
            </button>
            {result && result !== 'testing' && <div className='qa-setup-result' data-status={result.status}>{result.message}</div>}
        </div>}
    </div>;
}
