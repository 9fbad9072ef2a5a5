import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { AcpAgentTest, ConsentDetails, ExternalAgentSummary } from '../../common/config-protocol';
import { AcpRegistryList, AcpRegistryListProps } from './acp-registry-list';
import { displayPath, PathRoot } from './display-path';

export interface ExternalAgentsSectionProps {
    agents: readonly ExternalAgentSummary[];
    tests: Readonly<Record<string, AcpAgentTest | 'testing'>>;
    roots: readonly PathRoot[];
    test(name: string): void;
    openFile(file: string): void;
    /** Opens the consent dialog of a project's agent waiting for it. */
    consent(details: ConsentDetails): void;
    /** The ACP registry's agents to add (absent: not offered). */
    registry?: Pick<AcpRegistryListProps, 'load' | 'add'>;
}

/** What a Test found: the agent's name, version, protocol and what it takes, or the error with its output. */
function TestResult({ result }: { result: AcpAgentTest | 'testing' | undefined }): React.ReactElement | null {
    if (result === undefined) {
        return null;
    }
    if (result === 'testing') {
        return <span className='qa-config-status'><i className={`${codicon('loading')} theia-animation-spin`} aria-hidden='true' /> {nls.localize('qodeassist/config/acpTesting', 'Starting…')}</span>;
    }
    if (result.status === 'error') {
        return <span className='qa-config-status' data-status='error' role='status'><i className={codicon('error')} aria-hidden='true' /> {result.message}</span>;
    }
    const takes = [result.prompt.image && 'images', result.prompt.embeddedContext && 'embedded files', result.loadSession && 'loading sessions'].filter(Boolean).join(', ');
    return <span className='qa-config-status' data-status='ok' role='status'>
        <i className={codicon('pass')} aria-hidden='true' /> {`${result.title ?? result.name ?? 'agent'}${result.version ? ` ${result.version}` : ''} · ACP v${result.protocolVersion}`}
        {takes && ` · ${nls.localize('qodeassist/config/acpTakes', 'takes {0}', takes)}`}
        {result.authMethods.length > 0 && ` · ${nls.localize('qodeassist/config/acpSignIn', 'sign-in: {0}', result.authMethods.join(', '))}`}
    </span>;
}

/**
 * External coding agents (`acp/*.toml`): each with where it comes from, whether its program is
 * installed (and how to install it when not), the command it runs, and a Test that starts it for the
 * initialize handshake only; below them, the ACP registry's agents not yet configured, to add.
 */
export function ExternalAgentsSection({ agents, tests, roots, test, openFile, consent, registry }: ExternalAgentsSectionProps): React.ReactElement {
    return <section className='qa-config-section' data-section='external-agents' aria-labelledby='qa-config-external-agents'>
        <h2 id='qa-config-external-agents'>{nls.localize('qodeassist/config/externalAgents', 'External agents (ACP)')}</h2>
        <p className='qa-config-note'>{nls.localize('qodeassist/config/externalAgentsNote',
            'Coding agents with their own model and tools, picked in the chat. They run only in a trusted workspace. Add or change one in ~/.qodeassist/acp/<name>.toml.')}</p>
        <table className='qa-config-table qa-config-external-agents'>
            <thead><tr><th>Name</th><th>Installed</th><th>Command</th><th>File</th><th><span className='qa-visually-hidden'>Test</span></th></tr></thead>
            <tbody>{agents.map(agent => <tr key={agent.name} data-external-agent={agent.name} data-installed={agent.installedAt ? 'yes' : 'no'}>
                <td className='qa-config-cell' title={agent.description}>{agent.name}{!agent.enabled && ` (${nls.localize('qodeassist/config/disabled', 'disabled')})`}
                    {agent.description && <div className='qa-config-detail'>{agent.description}</div>}</td>
                <td className='qa-config-cell' title={agent.installedAt ?? agent.problem}>{agent.installedAt
                    ? <span data-state='installed'><i className={codicon('check')} aria-hidden='true' /> {agent.installedAt}</span>
                    : <span data-state={agent.unavailableInGateway ? 'gateway-unavailable' : 'not-found'}><i className={codicon('circle-slash')} aria-hidden='true' /> {agent.unavailableInGateway
                        ? nls.localize('qodeassist/config/gatewayUnavailable', 'unavailable in gateway mode') : nls.localize('qodeassist/config/notFound', 'not found')}
                        {agent.problem && <div className='qa-config-detail'>{agent.problem}</div>}</span>}</td>
                <td className='qa-config-cell'><code>{agent.commandLine}</code></td>
                <td className='qa-config-cell'><a href='#' title={agent.file} onClick={event => { event.preventDefault(); openFile(agent.file); }}>{displayPath(agent.file, roots)}</a></td>
                <td className='qa-config-cell'>
                    {agent.consent && <button type='button' className='theia-button' data-action='consent-external-agent' onClick={() => consent(agent.consent!)}
                        title={nls.localize('qodeassist/config/acpConsentTitle', 'See what {0} runs and the variables it gets, then allow it', agent.name)}>
                        {nls.localize('qodeassist/config/acpConsent', 'Review and allow…')}
                    </button>}
                    <button type='button' className='theia-button secondary' data-action='test-external-agent' disabled={!agent.installedAt || tests[agent.name] === 'testing'}
                        title={nls.localize('qodeassist/config/acpTestTitle', 'Start {0} for the initialize handshake only, then stop it', agent.name)} onClick={() => test(agent.name)}>
                        {nls.localize('qodeassist/config/test', 'Test')}
                    </button>
                    <TestResult result={tests[agent.name]} />
                </td>
            </tr>)}</tbody>
        </table>
        {registry && <AcpRegistryList load={registry.load} add={registry.add} configured={agents.map(agent => agent.name)} openFile={openFile} />}
    </section>;
}
