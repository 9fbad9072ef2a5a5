import type { ErrorInfo, PermissionAnswer } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { AgentChoice } from '../../common/chat-protocol';
import { QUICK_ACTIONS } from '../../common/refactor-protocol';
import { ChatErrorAction } from '../shared/error-affordance';
import { ErrorView } from '../shared/error-view';
import { PendingPermission } from '../shared/pending-permission';
import { PermissionPrompt } from '../shared/permission-prompt';

export type RefactorPhase = 'input' | 'running' | 'review' | 'failed' | 'closed';

export interface ToolStep {
    callId: string;
    name: string;
    state: 'running' | 'done' | 'failed';
}

/** What the panel shows: one refactor's state as it is now. */
export interface RefactorPanelState {
    phase: RefactorPhase;
    instruction: string;
    agent: string;
    tools: boolean;
    thinking: boolean;
    agentChoices: readonly AgentChoice[];
    answeringAgent: string | undefined;
    steps: readonly ToolStep[];
    permissions: readonly PendingPermission[];
    error: ErrorInfo | undefined;
    /** The instruction run last, for Repeat. */
    lastInstruction: string | undefined;
}

/** What the panel's controls do; the refactor re-renders the panel when its state changes. */
export interface RefactorPanelActions {
    /** The input element, so the refactor can focus it and put a picked instruction in. */
    inputRef(element: HTMLInputElement | null): void;
    instructionChanged(instruction: string): void;
    setTools(tools: boolean): void;
    setThinking(thinking: boolean): void;
    setAgent(agent: string): void;
    /** Runs the typed instruction. */
    run(): void;
    stop(): void;
    /** Puts an instruction into the input; `run` starts it right away. */
    useInstruction(instruction: string, run: boolean): void;
    pickInstruction(): void;
    saveInstruction(): void;
    accept(): void;
    reject(): void;
    answerPermission(pending: PendingPermission, answer: PermissionAnswer): void;
    errorAction(action: ChatErrorAction): void;
}

/** The inline refactor's panel: the instruction input with its options, progress, permission prompts, the error, Accept and Reject. */
export function RefactorPanel({ state, actions }: { state: RefactorPanelState; actions: RefactorPanelActions }): React.ReactElement {
    const running = state.phase === 'running';
    const last = state.lastInstruction;
    const onInputKey = (event: React.KeyboardEvent<HTMLInputElement>) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.metaKey && !running) {
            event.preventDefault();
            actions.run();
        }
    };
    return <div className='qa-refactor-panel' role='region' aria-label={nls.localize('qodeassist/refactor/title', 'QodeAssist Quick Refactor')}>
        <div className='qa-refactor-row'>
            <i className={codicon('sparkle')} aria-hidden='true' title={nls.localize('qodeassist/refactor/title', 'QodeAssist Quick Refactor')} />
            <input className='qa-refactor-input theia-input' placeholder={nls.localize('qodeassist/refactor/placeholder', 'What should change? Enter runs, Esc closes')}
                aria-label={nls.localize('qodeassist/refactor/instruction', 'Refactor instruction')}
                title={nls.localize('qodeassist/refactor/instructionHint', 'What should change in the selection; Enter runs, Esc closes')}
                ref={actions.inputRef} defaultValue={state.instruction} readOnly={running}
                onChange={event => actions.instructionChanged(event.target.value)}
                onKeyDown={onInputKey} />
            {running
                ? <button type='button' className='theia-button secondary' data-action='stop' title={nls.localize('qodeassist/refactor/stopTitle', 'Stop the request; the file stays as it was')}
                    onClick={() => actions.stop()}>{nls.localize('qodeassist/refactor/stop', 'Stop')}</button>
                : <button type='button' className='theia-button' data-action='run' title={nls.localize('qodeassist/refactor/runTitle', 'Run the instruction on the selection (Enter)')}
                    onClick={() => actions.run()}>{nls.localize('qodeassist/refactor/run', 'Refactor')}</button>}
            <button type='button' className='qa-icon-button' data-action='close' aria-label={nls.localize('qodeassist/refactor/closeName', 'Close')}
                title={nls.localize('qodeassist/refactor/close', 'Close (Esc); the file stays as it was')} onClick={() => actions.reject()}>
                <i className={codicon('close')} aria-hidden='true' />
            </button>
        </div>
        <div className='qa-refactor-row qa-refactor-options'>
            <button type='button' className='theia-button secondary' data-action='instructions' disabled={running}
                title={nls.localize('qodeassist/refactor/savedHint', 'Pick an instruction from your library')} onClick={() => actions.pickInstruction()}>
                <i className={codicon('library')} aria-hidden='true' /> {nls.localize('qodeassist/refactor/saved', 'Saved…')}
            </button>
            <button type='button' className='theia-button secondary' data-action='save-instruction' disabled={running}
                aria-label={nls.localize('qodeassist/refactor/saveName', 'Save instruction')}
                title={nls.localize('qodeassist/refactor/saveHint', 'Save the instruction above to your library')}
                onClick={() => actions.saveInstruction()}>
                <i className={codicon('save')} aria-hidden='true' />
            </button>
            <button type='button' className='theia-button secondary' data-action='repeat' disabled={running || !last}
                title={last ? nls.localize('qodeassist/refactor/repeatHint', 'Run again: {0}', last) : nls.localize('qodeassist/refactor/repeatNone', 'No instruction was run yet')} onClick={() => last && actions.useInstruction(last, true)}>
                {nls.localize('qodeassist/refactor/repeat', 'Repeat last')}
            </button>
            {QUICK_ACTIONS.map(action => <button key={action.id} type='button' className='theia-button secondary' data-action={action.id} disabled={running} title={action.instruction}
                onClick={() => actions.useInstruction(action.instruction, true)}>{action.label}</button>)}
            <label title={nls.localize('qodeassist/refactor/toolsHint', 'Let the agent use the project tools; writing or running anything asks you first')}>
                <input type='checkbox' data-option='tools' checked={state.tools} disabled={running} onChange={event => actions.setTools(event.target.checked)} /> {nls.localize('qodeassist/refactor/tools', 'Tools')}
            </label>
            <label title={nls.localize('qodeassist/refactor/thinkingHint', 'Ask the agent to think first (agents whose templates support it)')}>
                <input type='checkbox' data-option='thinking' checked={state.thinking} disabled={running} onChange={event => actions.setThinking(event.target.checked)} /> {nls.localize('qodeassist/refactor/thinking', 'Thinking')}
            </label>
            <select className='theia-select qa-refactor-agent' value={state.agent} disabled={running}
                aria-label={nls.localize('qodeassist/refactor/agent', 'Agent')}
                title={nls.localize('qodeassist/refactor/agentHint', 'The agent that rewrites the selection (the refactor roster picks one by default)')} onChange={event => actions.setAgent(event.target.value)}>
                <option value=''>{nls.localize('qodeassist/refactor/rosterAgent', 'Agent: refactor roster')}</option>
                {state.agentChoices.map(agent => <option key={agent.name} value={agent.name}>{agent.name} · {agent.model}</option>)}
            </select>
        </div>
        <RefactorStatus state={state} />
        {state.permissions.map(pending => <PermissionPrompt key={pending.id} pending={pending} onAnswer={actions.answerPermission} within='refactor' />)}
        {state.phase === 'failed' && state.error && <ErrorView error={state.error} onAction={actions.errorAction} except={['summarize']} />}
        {state.phase === 'review' && <div className='qa-refactor-row qa-refactor-review'>
            <button type='button' className='theia-button' data-action='accept' title={nls.localize('qodeassist/refactor/acceptTitle', 'Replace the lines with the proposal, as one undoable edit (Ctrl+Enter)')}
                onClick={() => actions.accept()}>
                <i className={codicon('check')} aria-hidden='true' /> {nls.localize('qodeassist/refactor/accept', 'Accept')} <kbd>Ctrl+Enter</kbd>
            </button>
            <button type='button' className='theia-button secondary' data-action='reject' title={nls.localize('qodeassist/refactor/rejectTitle', 'Close; the file stays as it was (Esc)')}
                onClick={() => actions.reject()}>
                <i className={codicon('discard')} aria-hidden='true' /> {nls.localize('qodeassist/refactor/reject', 'Reject')} <kbd>Esc</kbd>
            </button>
            <span className='qa-refactor-hint'>{nls.localize('qodeassist/refactor/editHint', 'You can edit the proposal before accepting.')}</span>
        </div>}
    </div>;
}

/** Who is answering and the tool calls so far; nothing before a run. */
function RefactorStatus({ state }: { state: RefactorPanelState }): React.ReactElement | null {
    if (state.phase !== 'running' && state.steps.length === 0) {
        return null;
    }
    return <div className='qa-refactor-row qa-refactor-status' role='status'>
        {state.phase === 'running' && <span className='qa-refactor-progress'><i className={codicon('loading') + ' codicon-modifier-spin'} aria-hidden='true' /> {state.answeringAgent
            ? nls.localize('qodeassist/refactor/answering', '{0} is rewriting the selection…', state.answeringAgent)
            : nls.localize('qodeassist/refactor/starting', 'Starting…')}</span>}
        {state.steps.map(step => <span key={step.callId} className='qa-refactor-tool' data-state={step.state}>
            <i className={codicon(step.state === 'running' ? 'loading' : step.state === 'done' ? 'check' : 'error')} role='img' aria-label={step.state} /> {step.name}
        </span>)}
    </div>;
}
