import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import type { ComposerSuggestions } from './chat-composer-suggestions';
import { valueOf } from './chat-prompt-arguments';

/** Focuses the form's field `index`, if it is there. */
function focusField(form: Element | null, index: number | undefined): void {
    if (form && index !== undefined && index >= 0) {
        form.querySelectorAll<HTMLInputElement>('input[data-argument]')[index]?.focus();
    }
}

/**
 * An MCP prompt's arguments, in the composer above the text area: one labelled field per argument
 * (its description, a mark on the required ones, the server's completions as the field's list). Tab and
 * Shift+Tab go around the fields, Enter runs the prompt, Escape cancels; a required argument left empty is named in an alert.
 */
export function PromptFormView({ suggest }: { suggest: ComposerSuggestions }): React.ReactElement | null {
    const form = suggest.promptForm;
    if (!form) {
        return null;
    }
    const command = `/${form.command}`;
    const completions = form.completions;
    const missing = form.problem ? form.offer.arguments.find(argument => argument.required && !valueOf(form.values, argument.name).trim())?.name : undefined;
    const run = (group: Element | null) => void suggest.runPrompt().then(() => focusField(group, suggest.promptForm?.problem ? suggest.promptForm.field : undefined));
    const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
        const group = event.currentTarget.closest('.qa-prompt-form');
        if (event.key === 'Tab') {
            event.preventDefault();
            suggest.moveArgument(event.shiftKey ? -1 : 1);
            focusField(group, suggest.promptForm?.field);
        } else if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
            event.preventDefault();
            run(group);
        } else if (event.key === 'Escape') {
            event.preventDefault();
            suggest.cancelPrompt();
        }
    };
    return <div className='qa-prompt-form' role='group' data-prompt={form.command} aria-busy={form.running === true}
        aria-label={nls.localize('qodeassist/chat/promptArguments', 'Arguments of {0}', command)}>
        <div className='qa-prompt-form-title'>
            <i className={codicon('symbol-method')} aria-hidden='true' /> <code>{command}</code> <span className='qa-prompt-form-label'>{form.offer.label}</span>
        </div>
        {form.offer.arguments.map((argument, index) => <label key={argument.name} className='qa-prompt-argument'>
            <span className='qa-prompt-argument-name'>
                {argument.name}
                {argument.required && <span className='qa-prompt-required' aria-hidden='true' title={nls.localize('qodeassist/chat/required', 'required')}> *</span>}
            </span>
            <input type='text' className='theia-input' data-argument={argument.name} value={valueOf(form.values, argument.name)}
                autoFocus={index === form.field} aria-required={argument.required} aria-invalid={missing === argument.name}
                aria-describedby={argument.description ? `qa-prompt-argument-${index}` : undefined}
                placeholder={argument.required ? nls.localize('qodeassist/chat/required', 'required') : nls.localize('qodeassist/mcp/optional', 'optional')}
                list={completions?.argument === argument.name && completions.values.length > 0 ? `qa-prompt-completions-${index}` : undefined}
                onFocus={() => void suggest.completeArgument(argument.name)}
                onChange={event => suggest.setArgument(argument.name, event.target.value)} onKeyDown={onKeyDown} />
            {argument.description && <span id={`qa-prompt-argument-${index}`} className='qa-prompt-argument-description'>{argument.description}</span>}
            {completions?.argument === argument.name && <datalist id={`qa-prompt-completions-${index}`}>
                {completions.values.map(value => <option key={value} value={value} />)}
            </datalist>}
        </label>)}
        {form.problem && <div className='qa-prompt-problem' role='alert'><i className={codicon('error')} aria-hidden='true' /> {form.problem}</div>}
        <div className='qa-prompt-form-actions'>
            <button type='button' className='theia-button' data-action='run-prompt' disabled={form.running === true}
                title={nls.localize('qodeassist/chat/runPromptTitle', 'Put the prompt\'s text in the message (Enter)')}
                onClick={event => run(event.currentTarget.closest('.qa-prompt-form'))}>{nls.localize('qodeassist/chat/runPrompt', 'Use prompt')}</button>
            <button type='button' className='theia-button secondary' data-action='cancel-prompt'
                title={nls.localize('qodeassist/chat/cancelPromptTitle', 'Close without running (Escape)')}
                onClick={() => suggest.cancelPrompt()}>{nls.localize('qodeassist/chat/cancelPrompt', 'Cancel')}</button>
        </div>
    </div>;
}
