import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ConfigOverview, ProviderTest } from '../../common/config-protocol';
import { ConfigurationTarget, isFocusPlace } from '../shared/configuration-target';
import { displayPath, PathRoot } from './display-path';

export interface NewProviderForm {
    name: string;
    clientApi: string;
    url: string;
    keyRef: string;
}

/** A control the view was asked to bring into sight (an error's "Open Settings"): the place, and the ref that focuses it once. */
export interface FocusRequest {
    place: ConfigurationTarget;
    ref(element: HTMLElement | null): void;
}

/** The ref for a control: the focus request's when the control is the place it names. */
export function focusRef(focus: FocusRequest | undefined, control: ConfigurationTarget): ((element: HTMLElement | null) => void) | undefined {
    return focus && isFocusPlace(focus.place, control) ? focus.ref : undefined;
}

export interface ProvidersSectionProps {
    overview: ConfigOverview;
    tests: Readonly<Record<string, ProviderTest | 'testing'>>;
    form: NewProviderForm;
    roots: readonly PathRoot[];
    focus: FocusRequest | undefined;
    setForm(form: NewProviderForm): void;
    test(provider: string): void;
    setKey(ref: string, variable: string): void;
    clearKey(ref: string): void;
    addProvider(): void;
    openFile(file: string): void;
}

/**
 * The providers table (key state, live test with the model list, set or clear a key) and the form
 * that adds one. The columns have fixed widths: a test result or a Clear key button arriving in
 * one row does not move the others.
 */
export function ProvidersSection(props: ProvidersSectionProps): React.ReactElement {
    const { overview, tests, focus } = props;
    const highlighted = focus?.place.provider;
    return <section className='qa-config-section' data-section='providers' aria-labelledby='qa-config-providers'>
        <h2 id='qa-config-providers' tabIndex={-1} ref={focusRef(focus, { section: 'providers' })}>{nls.localize('qodeassist/config/providers', 'Providers')}</h2>
        <table className='qa-config-table qa-config-providers'>
            <colgroup>
                <col className='qa-col-name' /><col className='qa-col-api' /><col className='qa-col-url' /><col className='qa-col-key' /><col className='qa-col-status' /><col className='qa-col-actions' />
            </colgroup>
            <thead><tr><th>Name</th><th>API</th><th>URL</th><th>Key</th><th>Status</th><th><span className='qa-visually-hidden'>Actions</span></th></tr></thead>
            <tbody>{overview.providers.map(provider => {
                const test = tests[provider.name];
                const place = (field: 'key' | 'test') => focusRef(focus, { section: 'providers', provider: provider.name, field });
                return <tr key={provider.name} data-provider={provider.name} className={highlighted === provider.name ? 'qa-config-target' : undefined}>
                    <td className='qa-config-cell'>{provider.name}</td>
                    <td className='qa-config-cell'>{provider.clientApi}</td>
                    <td className='qa-config-url'>{provider.url}</td>
                    <td className='qa-config-cell' data-key-state={provider.keyState} title={provider.keyVariable}>
                        {provider.keyState === 'set' ? '✓ set' : provider.keyState === 'missing' ? `missing (${provider.keyVariable})` : '—'}
                    </td>
                    <td className='qa-config-status' data-status={test === undefined ? '' : test === 'testing' ? 'testing' : test.status} aria-live='polite'>
                        {test && test !== 'testing' && <i className={`qa-config-status-icon ${codicon(test.status === 'reachable' ? 'pass' : 'error')}`} data-status={test.status} aria-hidden='true' />}
                        {test === 'testing' ? nls.localize('qodeassist/config/testing', 'testing…') : test ? ` ${test.status}: ${test.message}` : ''}
                        {test && test !== 'testing' && test.models.length > 0 && <select className='theia-select qa-config-models'
                            aria-label={nls.localize('qodeassist/config/modelsOf', 'Models of {0}', provider.name)}
                            title={nls.localize('qodeassist/config/modelsHint', 'The models {0} lists (set an agent\'s model in the Agents table)', provider.name)}>
                            {test.models.map(model => <option key={model}>{model}</option>)}
                        </select>}
                    </td>
                    <td className='qa-config-actions'>
                        <button type='button' className='theia-button secondary' data-action='test' ref={place('test')}
                            aria-label={nls.localize('qodeassist/config/testOf', 'Test connection to {0}', provider.name)}
                            title={nls.localize('qodeassist/config/testHint', 'Ask {0} for its models with the key it would use', provider.name)}
                            onClick={() => props.test(provider.name)}>{nls.localize('qodeassist/config/test', 'Test connection')}</button>
                        <button type='button' className='theia-button secondary' data-action='set-key' ref={place('key')}
                            aria-label={nls.localize('qodeassist/config/setKeyOf', 'Set key of {0}', provider.name)}
                            title={nls.localize('qodeassist/config/setKeyHint', 'Store the key "{0}" on the machine running QodeAssist ({1} wins when set)', provider.keyRef, provider.keyVariable)}
                            onClick={() => props.setKey(provider.keyRef, provider.keyVariable)}>{nls.localize('qodeassist/config/setKey', 'Set key')}</button>
                        {provider.keyState === 'set' && <button type='button' className='theia-button secondary' data-action='clear-key'
                            aria-label={nls.localize('qodeassist/config/clearKeyOf', 'Clear key of {0}', provider.name)}
                            title={nls.localize('qodeassist/config/clearKeyHint', 'Remove the stored key "{0}"', provider.keyRef)}
                            onClick={() => props.clearKey(provider.keyRef)}>{nls.localize('qodeassist/config/clearKey', 'Clear key')}</button>}
                        <button type='button' className='qa-icon-button' data-action='open-provider-file'
                            aria-label={nls.localize('qodeassist/config/openFileOf', 'Open the file of {0}', provider.name)} title={displayPath(provider.file, props.roots)}
                            onClick={() => props.openFile(provider.file)}><i className={codicon('go-to-file')} aria-hidden='true' /></button>
                    </td>
                </tr>;
            })}</tbody>
        </table>
        <NewProviderFormView {...props} />
    </section>;
}

function NewProviderFormView({ overview, form, setForm, addProvider }: ProvidersSectionProps): React.ReactElement {
    const field = (name: 'name' | 'url' | 'keyRef', dataField: string, label: string, placeholder: string) => <input className='theia-input' data-field={dataField}
        placeholder={placeholder} aria-label={label} title={label} value={form[name]} onChange={event => setForm({ ...form, [name]: event.target.value })} />;
    return <div className='qa-config-form' data-form='provider' role='group' aria-label={nls.localize('qodeassist/config/newProvider', 'New provider')}>
        {field('name', 'name', nls.localize('qodeassist/config/newName', 'Name of the new provider'), 'name')}
        <select className='theia-select' data-field='client-api' value={form.clientApi} aria-label={nls.localize('qodeassist/config/newApi', 'Its API (client_api)')}
            title={nls.localize('qodeassist/config/newApi', 'Its API (client_api)')} onChange={event => setForm({ ...form, clientApi: event.target.value })}>
            {overview.clientApis.map(api => <option key={api} value={api}>{api}</option>)}
        </select>
        {field('url', 'url', nls.localize('qodeassist/config/newUrl', 'Its URL (empty: the API\'s default)'), 'url (empty: the API default)')}
        {field('keyRef', 'key-ref', nls.localize('qodeassist/config/newKeyRef', 'The name its key is stored under (api_key_ref)'), 'key name (api_key_ref)')}
        <button type='button' className='theia-button' data-action='add-provider' disabled={!form.name.trim()}
            title={nls.localize('qodeassist/config/addProviderHint', 'Write .qodeassist/providers/<name>.toml in the workspace')}
            onClick={() => addProvider()}>{nls.localize('qodeassist/config/addProvider', 'Add provider')}</button>
    </div>;
}
