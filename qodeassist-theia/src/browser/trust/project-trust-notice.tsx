import { codicon } from '@theia/core/lib/browser';
import { nls } from '@theia/core';
import * as React from '@theia/core/shared/react';
import { ProjectTrustState } from '../../common/config-protocol';

/** "project configuration not loaded: workspace not trusted", what was skipped, and the one click that restores it. */
export function ProjectTrustNotice(props: { state: ProjectTrustState | undefined; trust: () => void }): React.ReactElement | null {
    const { state } = props;
    if (!state || state.trusted || state.skipped.length === 0) {
        return null;
    }
    return <div className='qa-notice qa-trust-notice' role='status' data-trust='untrusted'>
        <i className={codicon('shield')} />
        <span>{nls.localize('qodeassist/trust/notice', 'project configuration not loaded: workspace not trusted')}
            <span className='qa-trust-skipped'> ({state.skipped.join(', ')})</span></span>
        <button className='theia-button secondary' data-action='trust-workspace' onClick={props.trust}>
            {nls.localize('qodeassist/trust/button', 'Trust workspace…')}
        </button>
    </div>;
}
