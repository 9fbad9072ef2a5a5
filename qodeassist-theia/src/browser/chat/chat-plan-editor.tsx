import { codicon } from '@theia/core/lib/browser';
import { nls } from '@theia/core/lib/common/nls';
import * as React from '@theia/core/shared/react';

export interface PlanEditorProps {
    /** The plan as it stands, editable. */
    draft: string;
    change(draft: string): void;
    /** Switch to Act and send, with this text pinned as the plan. */
    act(plan: string): void;
    cancel(): void;
}

/** The plan as an editable checklist: edit the steps, then Act carries them out with the plan pinned. */
export function PlanEditor({ draft, change, act, cancel }: PlanEditorProps): React.ReactElement {
    return <div className='qa-plan-editor' role='group' aria-label={nls.localize('qodeassist/chat/planEditor', 'The plan')}>
        <div className='qa-plan-editor-title'><i className={codicon('checklist')} aria-hidden='true' /> {nls.localize('qodeassist/chat/planEditorTitle', 'The plan: edit it, then Act')}</div>
        <textarea className='theia-input qa-plan-text' value={draft} rows={Math.min(14, Math.max(4, draft.split('\n').length + 1))}
            aria-label={nls.localize('qodeassist/chat/planText', 'Plan text')} onChange={event => change(event.target.value)} />
        <div className='qa-plan-editor-actions'>
            <button type='button' className='theia-button qa-plan-act' data-action='act' disabled={!draft.trim()}
                title={nls.localize('qodeassist/chat/actTitle', 'Switch to Act and carry out this plan (it stays pinned while the agent works)')}
                onClick={() => act(draft)}>
                <i className={codicon('play')} aria-hidden='true' /> {nls.localize('qodeassist/chat/act', 'Act')}
            </button>
            <button type='button' className='theia-button secondary' data-action='cancel-plan'
                title={nls.localize('qodeassist/chat/cancelPlanTitle', 'Close the plan without acting')} onClick={cancel}>
                {nls.localize('qodeassist/chat/cancel', 'Cancel')}
            </button>
        </div>
    </div>;
}
