import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { McpServerState } from '../../common/mcp-protocol';

export interface McpServersListProps {
    servers: readonly McpServerState[];
    reconnect(name: string): void;
    signIn(name: string): void;
    signOut(name: string): void;
}

/** "3 tools · 2 prompts · 5 resources" for a ready server (prompts and resources once the hub reports them). */
function offers(state: McpServerState): string {
    if (state.status !== 'ready') {
        return '';
    }
    return [`${state.tools.length} tools`, state.prompts !== undefined && `${state.prompts} prompts`, state.resources !== undefined && `${state.resources} resources`]
        .filter(Boolean).join(' · ');
}

/** Signed in or not, at which authorization server, with the button that changes it; nothing for a server that never asked. */
function SignIn({ state, signIn, signOut }: { state: McpServerState } & Pick<McpServersListProps, 'signIn' | 'signOut'>): React.ReactElement | null {
    const auth = state.auth;
    if (!auth || auth.signedIn === undefined) {
        return null;
    }
    const where = auth.authorizationServer ? ` (${auth.authorizationServer})` : '';
    return <span className='qa-config-detail' data-signed-in={auth.signedIn ? 'yes' : 'no'}>
        {auth.signedIn
            ? <><i className={codicon('pass')} aria-hidden='true' /> {nls.localize('qodeassist/config/mcpSignedIn', 'signed in{0}', where)} </>
            : <><i className={codicon('account')} aria-hidden='true' /> {nls.localize('qodeassist/config/mcpSignedOut', 'not signed in{0}', where)} </>}
        {auth.signedIn
            ? <button type='button' className='theia-button secondary' data-action='mcp-sign-out' aria-label={nls.localize('qodeassist/config/mcpSignOutOf', 'Sign out of {0}', state.name)}
                title={nls.localize('qodeassist/config/mcpSignOutHint', 'Remove the stored tokens and client of {0}', state.name)} onClick={() => signOut(state.name)}>
                {nls.localize('qodeassist/config/mcpSignOut', 'Sign out')}</button>
            : <button type='button' className='theia-button' data-action='mcp-sign-in' aria-label={nls.localize('qodeassist/config/mcpSignInOf', 'Sign in to {0}', state.name)}
                title={nls.localize('qodeassist/config/mcpSignInHint', 'Open the sign-in page of {0} in a browser tab', state.name)} onClick={() => signIn(state.name)}>
                {nls.localize('qodeassist/config/mcpSignIn', 'Sign in')}</button>}
        {auth.failure && <div className='qa-config-detail' data-sign-in-failure={auth.failure.step}>
            {nls.localize('qodeassist/config/mcpSignInFailed', 'Last sign-in failed at {0}: {1}', auth.failure.step, auth.failure.message)}</div>}
    </span>;
}

/** The MCP client hub's servers: transport, state, sign-in, what each offers, and the last error. */
export function McpServersList({ servers, reconnect, signIn, signOut }: McpServersListProps): React.ReactElement {
    return <table className='qa-config-table qa-config-mcp-servers'>
        <thead><tr><th>Server</th><th>Transport</th><th>State</th><th>Offers</th><th>Last error</th><th><span className='qa-visually-hidden'>Actions</span></th></tr></thead>
        <tbody>{servers.map(state => <tr key={state.name} data-mcp-server={state.name} data-status={state.status}>
            <td className='qa-config-cell' title={state.source}><span className='qa-config-name'>{state.name}</span></td>
            <td className='qa-config-cell' data-transport={state.transport}>{state.transport}</td>
            <td className='qa-config-cell'>{state.status} <SignIn state={state} signIn={signIn} signOut={signOut} /></td>
            <td className='qa-config-cell' data-offers>{offers(state)}</td>
            <td className='qa-config-cell' data-last-error>{state.error ?? ''}</td>
            <td className='qa-config-cell'>
                <button type='button' className='theia-button secondary' data-action='mcp-reconnect' aria-label={nls.localize('qodeassist/config/reconnectOf', 'Reconnect {0}', state.name)}
                    title={nls.localize('qodeassist/config/reconnectHint', 'Stop and start the MCP server {0} again', state.name)} onClick={() => reconnect(state.name)}>
                    {nls.localize('qodeassist/config/reconnect', 'Reconnect')}</button>
            </td>
        </tr>)}</tbody>
    </table>;
}
