import { codicon } from '@theia/core/lib/browser';
import { nls } from '@theia/core';
import * as React from '@theia/core/shared/react';
import { ProjectTrustState } from '../../common/config-protocol';

/**
 * "project configuration not loaded: workspace not trusted", what was skipped, and the one click
 * that restores it; in a trusted workspace, what the project's files replace of the user's.
 */
export function ProjectTrustNotice(props: { state: ProjectTrustState | undefined; trust: () => void }): React.ReactElement | null {
    const { state } = props;
    if (state?.trusted && state.overrides?.length) {
        // Its own class: the "not trusted" notice (.qa-trust-notice) is gone once the workspace is trusted.
        // One line until opened: in a narrow sidebar the whole list would push the conversation out of view.
        return <div className='qa-project-overrides' role='status' data-trust='overrides'><details>
            <summary><i className={codicon('shield')} aria-hidden='true' /> {nls.localize('qodeassist/trust/overridesCount',
                'This project\'s configuration replaces yours ({0}): details', state.overrides.length)}</summary>
            <ul className='qa-trust-overrides'>{state.overrides.map(override => <li key={override}>{override}</li>)}</ul>
        </details></div>;
    }
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
