import { nls } from '@theia/core';
import * as React from '@theia/core/shared/react';
import type { McpFormField } from '../../common/mcp-features-protocol';
import { McpElicitations, PendingElicitation } from './mcp-elicitations';

/** Theia's codicon() class names, without loading the widget toolkit (which needs a DOM) for a form rendered in specs too. */
const codicon = (name: string) => `codicon codicon-${name}`;

/** The servers' questions for one chat, each as a form (or a page to open) with Accept, Decline and Cancel. */
export function McpElicitationForms({ elicitations, chatId }: { elicitations: McpElicitations; chatId: string | undefined }): React.ReactElement | null {
    const pending = elicitations.forChat(chatId);
    if (pending.length === 0) {
        return null;
    }
    return <>{pending.map(item => <ElicitationForm key={item.id} pending={item} elicitations={elicitations} />)}</>;
}

function ElicitationForm({ pending, elicitations }: { pending: PendingElicitation; elicitations: McpElicitations }): React.ReactElement {
    const { request } = pending;
    const secrets = request.mode === 'form' ? request.fields.filter(field => field.secretLike) : [];
    return <form className='qa-permission qa-mcp-elicitation' data-server={request.server} role='group'
        aria-label={nls.localize('qodeassist/mcp/elicitationFor', 'Question from the MCP server {0}', request.server)}
        onSubmit={event => { event.preventDefault(); void elicitations.accept(pending.id); }}>
        <div className='qa-permission-title'><i className={codicon('question')} aria-hidden='true' /> {nls.localize('qodeassist/mcp/elicitationTitle', 'The MCP server "{0}" asks:', request.server)}</div>
        <div className='qa-mcp-elicitation-message'>{request.message}</div>
        {secrets.length > 0 && <div className='qa-permission-protected' data-warning='secret'>
            <i className={codicon('warning')} aria-hidden='true' /> {nls.localize('qodeassist/mcp/elicitationSecret',
                'This asks for {0}, which reads like a key or password. Nothing is filled in for you: type it only if you mean to give it to "{1}".',
                secrets.map(field => `"${field.title}"`).join(', '), request.server)}
        </div>}
        {request.mode === 'url'
            ? <div className='qa-mcp-elicitation-url'>{nls.localize('qodeassist/mcp/elicitationUrl', 'It asks you to open a page of {0}:', request.origin)} <code>{request.url}</code></div>
            : request.fields.map(field => <FieldInput key={field.name} field={field} value={pending.raw[field.name]} onChange={value => elicitations.setRaw(pending.id, field.name, value)} />)}
        {pending.problem && <div className='qa-mcp-elicitation-problem' role='alert'>{pending.problem}</div>}
        <div className='qa-permission-actions'>
            <button type='submit' className='theia-button' data-answer='accept' onClick={request.mode === 'url' ? () => window.open(request.url, '_blank', 'noopener,noreferrer') : undefined}>
                {request.mode === 'url' ? nls.localize('qodeassist/mcp/openPage', 'Open the page') : nls.localize('qodeassist/mcp/accept', 'Accept')}
            </button>
            <button type='button' className='theia-button secondary' data-answer='decline' onClick={() => elicitations.decline(pending.id)}>{nls.localize('qodeassist/mcp/decline', 'Decline')}</button>
            <button type='button' className='theia-button secondary' data-answer='cancel' onClick={() => elicitations.cancel(pending.id)}>{nls.localize('qodeassist/mcp/cancel', 'Cancel')}</button>
        </div>
    </form>;
}

function FieldInput({ field, value, onChange }: { field: McpFormField; value: string | boolean | string[] | undefined; onChange(value: string | boolean | string[]): void }): React.ReactElement {
    const id = `qa-mcp-field-${field.name}`;
    const label = <label htmlFor={id}>{field.title}{field.required ? ' *' : ''}{field.description ? <span className='qa-mcp-field-description'> — {field.description}</span> : null}</label>;
    if (field.kind === 'boolean') {
        return <div className='qa-mcp-field' data-field={field.name}><input id={id} type='checkbox' checked={value === true} onChange={event => onChange(event.target.checked)} /> {label}</div>;
    }
    if (field.kind === 'enum') {
        return <div className='qa-mcp-field' data-field={field.name}>{label}
            <select id={id} className='theia-select' value={typeof value === 'string' ? value : ''} onChange={event => onChange(event.target.value)}>
                <option value=''>{nls.localize('qodeassist/mcp/choose', '(choose)')}</option>
                {field.options.map(option => <option key={option.value} value={option.value}>{option.label}</option>)}
            </select></div>;
    }
    if (field.kind === 'multi-enum') {
        const chosen = Array.isArray(value) ? value : [];
        return <fieldset className='qa-mcp-field' data-field={field.name}><legend>{field.title}{field.required ? ' *' : ''}</legend>
            {field.options.map(option => <label key={option.value}><input type='checkbox' checked={chosen.includes(option.value)}
                onChange={event => onChange(event.target.checked ? [...chosen, option.value] : chosen.filter(item => item !== option.value))} /> {option.label}</label>)}
        </fieldset>;
    }
    const type = field.kind === 'number' ? 'number' : field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : field.format === 'date' ? 'date' : field.format === 'date-time' ? 'datetime-local' : field.secretLike ? 'password' : 'text';
    return <div className='qa-mcp-field' data-field={field.name}>{label}
        <input id={id} className='theia-input' type={type} value={typeof value === 'string' ? value : ''} autoComplete='off'
            {...(field.kind === 'number' ? { min: field.minimum, max: field.maximum, step: field.integer ? 1 : 'any' } : { minLength: field.minLength, maxLength: field.maxLength })}
            onChange={event => onChange(event.target.value)} />
    </div>;
}
