import { nls } from '@theia/core';
import * as React from '@theia/core/shared/react';
import { RegistryAgentsState, RegistryAgentSummary } from '../../common/config-protocol';

/** Theia's codicon classes (as `codicon()` of @theia/core/lib/browser spells them), without importing the browser layer: this view renders in Node for its spec. */
const codicon = (name: string): string => `codicon codicon-${name}`;

export interface AcpRegistryListProps {
    /** The registry's agents not yet configured; `refresh` asks the registry again now. */
    load(refresh: boolean): Promise<RegistryAgentsState>;
    /** Writes the user's `acp/<id>.toml`; resolves to the file. */
    add(id: string): Promise<string>;
    /** The configured agents' names: the list is read again when they change (an Add shows up there after the live reload). */
    configured: readonly string[];
    openFile(file: string): void;
}

export type AddOutcome = { status: 'adding' } | { status: 'added'; file: string } | { status: 'error'; message: string };

/** The command to run (or the archive to download), with a button that copies it. */
function InstallMethod({ agent }: { agent: RegistryAgentSummary }): React.ReactElement {
    const [copied, setCopied] = React.useState(false);
    const copy = () => void navigator.clipboard?.writeText(agent.installCommand).then(() => setCopied(true), () => setCopied(false));
    return <div className='qa-config-install' data-distribution={agent.distribution}>
        {agent.installCommand && <>
            <code className='qa-config-install-command'>{agent.installCommand}</code>{' '}
            <button type='button' className='theia-button secondary' data-action='copy-install' onClick={copy}
                title={nls.localize('qodeassist/config/registryCopyTitle', 'Copy this to the clipboard')}>
                <i className={codicon(copied ? 'check' : 'copy')} aria-hidden='true' /> {nls.localize('qodeassist/config/registryCopy', 'Copy')}
            </button>
        </>}
        <div className='qa-config-detail'>{agent.installNote}</div>
    </div>;
}

function AddCell({ agent, outcome, cannotAdd, add, openFile }: {
    agent: RegistryAgentSummary; outcome: AddOutcome | undefined; cannotAdd: string | undefined; add(): void; openFile(file: string): void;
}): React.ReactElement {
    if (agent.notOffered) {
        return <span className='qa-config-status' data-state='not-offered'><i className={codicon('circle-slash')} aria-hidden='true' /> {agent.notOffered}</span>;
    }
    if (outcome?.status === 'added') {
        return <span className='qa-config-status' data-status='ok' role='status'><i className={codicon('pass')} aria-hidden='true' />{' '}
            <a href='#' onClick={event => { event.preventDefault(); openFile(outcome.file); }}>{nls.localize('qodeassist/config/registryAdded', 'Added')}</a></span>;
    }
    return <>
        <button type='button' className='theia-button' data-action='add-registry-agent' disabled={!!cannotAdd || outcome?.status === 'adding'} onClick={add}
            title={cannotAdd ?? nls.localize('qodeassist/config/registryAddTitle', 'Write ~/.qodeassist/acp/{0}.toml with this command; it is yours to edit then', agent.id)}>
            {nls.localize('qodeassist/config/registryAdd', 'Add')}
        </button>
        {outcome?.status === 'error' && <span className='qa-config-status' data-status='error' role='status'><i className={codicon('error')} aria-hidden='true' /> {outcome.message}</span>}
    </>;
}

export interface AcpRegistryViewProps {
    /** Undefined while it is read. */
    state: RegistryAgentsState | { error: string } | undefined;
    outcomes: Readonly<Record<string, AddOutcome>>;
    refresh(): void;
    add(id: string): void;
    openFile(file: string): void;
}

/** What the list shows for a state: where it comes from (offline: the snapshot and its date), each agent with its install method and Add, the skipped entries. */
export function AcpRegistryView({ state, outcomes, refresh, add, openFile }: AcpRegistryViewProps): React.ReactElement {
    const heading = <h3 id='qa-config-acp-registry'>{nls.localize('qodeassist/config/registryTitle', 'From the ACP registry')}{' '}
        <button type='button' className='theia-button secondary' data-action='refresh-registry' onClick={refresh}
            title={nls.localize('qodeassist/config/registryRefreshTitle', 'Ask the registry again now')}
            aria-label={nls.localize('qodeassist/config/registryRefreshTitle', 'Ask the registry again now')}><i className={codicon('refresh')} aria-hidden='true' /></button></h3>;
    if (!state) {
        return <div className='qa-config-registry' aria-labelledby='qa-config-acp-registry'>{heading}
            <span className='qa-config-status'><i className={`${codicon('loading')} theia-animation-spin`} aria-hidden='true' /> {nls.localize('qodeassist/config/registryLoading', 'Reading the registry…')}</span></div>;
    }
    if ('error' in state) {
        return <div className='qa-config-registry' aria-labelledby='qa-config-acp-registry'>{heading}<p className='qa-config-status' data-status='error' role='status'>{state.error}</p></div>;
    }
    return <div className='qa-config-registry' data-registry-source={state.source} aria-labelledby='qa-config-acp-registry'>
        {heading}
        <p className='qa-config-note' data-registry-notice={state.notice ? 'offline' : 'none'}>
            {state.notice ?? nls.localize('qodeassist/config/registryFetched', 'The registry\'s index as fetched {0}.', state.date.replace('T', ' ').slice(0, 16))}
            {state.cannotAdd && <span className='qa-config-detail'> {state.cannotAdd}</span>}
        </p>
        {state.agents.length === 0
            ? <p className='qa-config-note'>{nls.localize('qodeassist/config/registryNone', 'Every agent it lists is configured already.')}</p>
            : <table className='qa-config-table qa-config-registry-agents'>
                <thead><tr><th>Name</th><th>Install</th><th><span className='qa-visually-hidden'>Add</span></th></tr></thead>
                <tbody>{state.agents.map(agent => <tr key={agent.id} data-registry-agent={agent.id} data-offered={agent.notOffered ? 'no' : 'yes'}>
                    <td className='qa-config-cell' title={agent.repository}>{agent.name}{agent.version && ` ${agent.version}`}
                        <div className='qa-config-detail'>{agent.id}{agent.description && ` · ${agent.description}`}</div></td>
                    <td className='qa-config-cell'><InstallMethod agent={agent} /></td>
                    <td className='qa-config-cell'><AddCell agent={agent} outcome={outcomes[agent.id]} cannotAdd={state.cannotAdd} add={() => add(agent.id)} openFile={openFile} /></td>
                </tr>)}</tbody>
            </table>}
        {state.problems.length > 0 && <details className='qa-config-detail' data-registry-problems={state.problems.length}>
            <summary>{nls.localize('qodeassist/config/registryProblems', '{0} entries of the index were skipped', state.problems.length)}</summary>
            <ul>{state.problems.map((problem, index) => <li key={index}>{problem.id ? `${problem.id}: ` : ''}{problem.message}</li>)}</ul>
        </details>}
    </div>;
}

/**
 * The ACP registry's agents not yet configured (the registry's own index, the last one fetched,
 * or the snapshot bundled with QodeAssist, saying which): each with what it is, how it is
 * installed (copyable), and Add, which writes the user's `acp/<id>.toml`.
 */
export function AcpRegistryList({ load, add, configured, openFile }: AcpRegistryListProps): React.ReactElement {
    const [state, setState] = React.useState<RegistryAgentsState | { error: string } | undefined>(undefined);
    const [outcomes, setOutcomes] = React.useState<Record<string, AddOutcome>>({});
    const loader = React.useRef(load);
    loader.current = load;
    const read = React.useCallback((refresh: boolean) => {
        setState(undefined);
        loader.current(refresh).then(setState, (error: Error) => setState({ error: error.message }));
    }, []);
    const configuredKey = configured.join('\n');
    React.useEffect(() => read(false), [configuredKey, read]);
    const addAgent = (id: string) => {
        setOutcomes(current => ({ ...current, [id]: { status: 'adding' } }));
        add(id).then(
            file => setOutcomes(current => ({ ...current, [id]: { status: 'added', file } })),
            (error: Error) => setOutcomes(current => ({ ...current, [id]: { status: 'error', message: error.message } })));
    };
    return <AcpRegistryView state={state} outcomes={outcomes} refresh={() => read(true)} add={addAgent} openFile={openFile} />;
}
