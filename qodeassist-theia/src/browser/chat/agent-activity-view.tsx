import type { AcpPermissionRequest, AcpPlanEntry, AcpToolCallState } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { DiffView } from '../shared/permission-prompt';
import { diffText, statusLabel } from './agent-activity';

const KIND_ICONS: Record<AcpToolCallState['kind'], string> = {
    read: 'file', edit: 'edit', delete: 'trash', move: 'arrow-swap', search: 'search', execute: 'terminal', think: 'lightbulb', fetch: 'globe', switch_mode: 'settings', other: 'tools'
};

/** The files a tool call or a permission prompt names, each opening at its line. */
export function AgentLocations({ call, openFile }: { call: AcpToolCallState; openFile(path: string, line?: number): void }): React.ReactElement | null {
    if (call.locations.length === 0) {
        return null;
    }
    return <div className='qa-agent-locations'>{call.locations.map((location, index) => <a key={index} href='#' className='qa-agent-location'
        title={nls.localize('qodeassist/chat/openLocation', 'Open {0}', location.path)}
        onClick={event => { event.preventDefault(); openFile(location.path, location.line); }}>
        {location.path}{location.line ? `:${location.line}` : ''}
    </a>)}</div>;
}

/** What a tool call shows besides its title: its diffs, its text output, and that it ran in a terminal. */
export function AgentCallContent({ call }: { call: AcpToolCallState }): React.ReactElement {
    return <>{call.content.map((item, index) => {
        if (item.type === 'diff') {
            return <DiffView key={index} diff={diffText(item)} />;
        }
        if (item.type === 'terminal') {
            return <div key={index} className='qa-agent-terminal'><i className={codicon('terminal')} /> {nls.localize('qodeassist/chat/ranInTerminal', 'Ran in a terminal')}</div>;
        }
        const content = item.content;
        return content.type === 'text'
            ? <pre key={index} className='qa-agent-output' tabIndex={0}>{content.text}</pre>
            : <div key={index} className='qa-agent-output'>{content.type === 'resource' ? content.name ?? content.uri : `[${content.type}]`}</div>;
    })}</>;
}

/** One of an external agent's tool calls: kind, title, status, the files it touches (click to open), diffs and output. */
export function AgentCallView({ call, openFile }: { call: AcpToolCallState; openFile(path: string, line?: number): void }): React.ReactElement {
    const running = call.status === 'pending' || call.status === 'in_progress';
    return <details className='qa-agent-call' data-kind={call.kind} data-status={call.status} open={call.content.some(item => item.type === 'diff')}>
        <summary title={`${call.kind}: ${call.title} (${statusLabel(call.status)})`}>
            <i className={codicon(KIND_ICONS[call.kind] ?? 'tools')} aria-hidden='true' /> <span className='qa-agent-call-title'>{call.title}</span>
            {' '}<span className='qa-agent-call-status'>{running ? <i className={`${codicon('loading')} theia-animation-spin`} aria-label={statusLabel(call.status)} /> : statusLabel(call.status)}</span>
        </summary>
        <AgentLocations call={call} openFile={openFile} />
        <AgentCallContent call={call} />
    </details>;
}

const PLAN_ICONS: Record<AcpPlanEntry['status'], string> = { pending: 'circle-large-outline', in_progress: 'arrow-circle-right', completed: 'pass-filled' };

/** The agent's plan: each entry with its status and priority. */
export function PlanView({ entries }: { entries: readonly AcpPlanEntry[] }): React.ReactElement {
    const done = entries.filter(entry => entry.status === 'completed').length;
    return <div className='qa-agent-plan' role='group' aria-label={nls.localize('qodeassist/chat/plan', 'Plan')}>
        <div className='qa-agent-plan-title'><i className={codicon('checklist')} aria-hidden='true' /> {nls.localize('qodeassist/chat/planProgress', 'Plan ({0} of {1} done)', done, entries.length)}</div>
        <ul>{entries.map((entry, index) => <li key={index} data-status={entry.status} data-priority={entry.priority} title={`${entry.status.replace('_', ' ')}, ${entry.priority} priority`}>
            <i className={codicon(PLAN_ICONS[entry.status])} aria-hidden='true' /> {entry.content}
        </li>)}</ul>
    </div>;
}

/**
 * An external agent asks before a tool call: what it wants to do (kind, title, files, diff) and one
 * button per option it offers, named as it names them. A write to a protected place says so (and the
 * agent's "always" options are not among those offered then).
 */
export function AgentPermissionPrompt({ pending, agent, onChoose, openFile }: {
    pending: { id: number }; agent: AcpPermissionRequest; onChoose(optionId: string): void; openFile(path: string, line?: number): void
}): React.ReactElement {
    const call = agent.toolCall;
    return <div className='qa-permission qa-agent-permission' data-prompt={pending.id} role='group' aria-label={nls.localize('qodeassist/chat/agentPermissionFor', '{0} asks to: {1}', agent.agent, call.title)}>
        <div className='qa-permission-title'>
            <i className={codicon(KIND_ICONS[call.kind] ?? 'tools')} aria-hidden='true' /> {nls.localize('qodeassist/chat/agentAsks', '{0} asks to: {1}', agent.agent, call.title)}
        </div>
        {agent.protectedPath !== undefined && <div className='qa-permission-protected'>
            {nls.localize('qodeassist/chat/agentProtectedPath', '{0} holds configuration or ignore rules, so QodeAssist asks every time.', agent.protectedPath)}
        </div>}
        <AgentLocations call={call} openFile={openFile} />
        <AgentCallContent call={call} />
        <div className='qa-permission-actions'>
            {agent.options.map((option, index) => <button key={option.optionId} type='button' data-option-kind={option.kind}
                className={`theia-button${index === 0 && option.kind.startsWith('allow') ? '' : ' secondary'}`}
                title={`${option.name} (${option.kind.replace('_', ' ')})`} onClick={() => onChoose(option.optionId)}>{option.name}</button>)}
        </div>
    </div>;
}
