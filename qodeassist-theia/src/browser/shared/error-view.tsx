import type { ErrorInfo } from '@qodeassist/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { actionText, affordanceFor, ChatErrorAction } from './error-affordance';

/** An error with what to do about it: its category decides the title and the buttons (`except` leaves some out). */
export function ErrorView({ error, onAction, except = [] }: { error: ErrorInfo; onAction(action: ChatErrorAction): void; except?: readonly ChatErrorAction[] }): React.ReactElement {
    const affordance = affordanceFor(error);
    return <div className='qa-error' data-category={error.category} role='alert'>
        <div className='qa-error-title'><i className={codicon('error')} aria-hidden='true' /> {affordance.title}</div>
        <div className='qa-error-message'>{error.message}</div>
        {error.providerDetail && <div className='qa-error-detail'>{error.providerDetail}</div>}
        <div className='qa-error-hint'>{affordance.hint}</div>
        <div className='qa-error-actions'>
            {affordance.actions.filter(action => !except.includes(action)).map(action => {
                const { label, tooltip } = actionText(action, error);
                return <button key={action} type='button' className='theia-button secondary' data-action={action} aria-label={label} title={tooltip}
                    onClick={() => onAction(action)}>{label}</button>;
            })}
        </div>
    </div>;
}
