import type { ErrorInfo } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { affordanceFor, ChatErrorAction } from './error-affordance';

/** An error with what to do about it: its category decides the title and the buttons (`except` leaves some out). */
export function ErrorView({ error, onAction, except = [] }: { error: ErrorInfo; onAction(action: ChatErrorAction): void; except?: readonly ChatErrorAction[] }): React.ReactElement {
    const affordance = affordanceFor(error);
    return <div className='qa-error' data-category={error.category}>
        <div className='qa-error-title'><i className={codicon('error')} /> {affordance.title}</div>
        <div className='qa-error-message'>{error.message}</div>
        {error.providerDetail && <div className='qa-error-detail'>{error.providerDetail}</div>}
        <div className='qa-error-hint'>{affordance.hint}</div>
        <div className='qa-error-actions'>
            {affordance.actions.filter(action => !except.includes(action)).map(action => <button key={action} className='theia-button secondary' data-action={action}
                onClick={() => onAction(action)}>{actionLabel(action)}</button>)}
        </div>
    </div>;
}

function actionLabel(action: ChatErrorAction): string {
    switch (action) {
        case 'retry': return nls.localize('qodeassist/chat/retry', 'Retry');
        case 'summarize': return nls.localize('qodeassist/chat/summarize', 'Summarize');
        case 'open-settings': return nls.localize('qodeassist/chat/openSettings', 'Open Settings');
    }
}
