import type { ContextManifest } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import URI from '@theia/core/lib/common/uri';
import * as React from '@theia/core/shared/react';
import { ChatComposer, mediaTypeOf } from './chat-composer';
import { manifestSummary } from './chat-message-view';

export interface ComposerViewProps {
    composer: ChatComposer;
    /** A request is in flight or a summary is being made. */
    busy: boolean;
    summarizing: boolean;
    send(): void;
    stop(): void;
    summarize(): void;
    /** Files are dragged over the chat (the whole view shows it). */
    setDragging(dragging: boolean): void;
}

function formatTokens(tokens: number): string {
    return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}k` : String(tokens);
}

/** The composer: linked files and attachments, suggestions, the text area, the pickers, the token counter, Send or Stop. */
export function ComposerView(props: ComposerViewProps): React.ReactElement {
    const { composer, busy, summarizing } = props;
    const linked = composer.linkedPaths();
    const suggestions = composer.suggestions;
    return <div className='qa-composer' onDragOver={event => { event.preventDefault(); event.stopPropagation(); props.setDragging(true); }}
        onDragLeave={() => props.setDragging(false)} onDrop={event => onDrop(event, props)}>
        {(linked.length > 0 || composer.attachments.length > 0) && <div className='qa-context-row'>
            {linked.map(path => <span key={path} className='qa-chip qa-linked' data-linked={composer.relativePath(path)} title={path}>
                <i className={codicon('link')} /> {composer.relativePath(path)}
                {composer.linked.includes(path) && <button className='qa-chip-remove' title='Unlink' onClick={() => composer.unlink(path)}><i className={codicon('close')} /></button>}
            </span>)}
            {composer.attachments.map((attachment, index) => <span key={`a${index}`} className='qa-chip qa-attachment' data-attachment={attachment.view.name}>
                <i className={codicon(attachment.view.mediaType.startsWith('image/') ? 'file-media' : 'file')} /> {attachment.view.name}
                <button className='qa-chip-remove' title='Remove' onClick={() => composer.removeAttachment(attachment)}><i className={codicon('close')} /></button>
            </span>)}
        </div>}
        {composer.error && <div className='qa-composer-error'><i className={codicon('error')} /> {composer.error}</div>}
        {suggestions && <div className='qa-suggestions' role='listbox'>
            {suggestions.items.map((item, index) => <div key={item.value} role='option' aria-selected={index === suggestions.index}
                className={`qa-suggestion${index === suggestions.index ? ' qa-selected' : ''}`} data-value={item.value}
                onMouseDown={event => { event.preventDefault(); composer.choose(item.value); }}>
                <i className={codicon(suggestions.trigger.kind === 'skill' ? 'book' : 'file')} /> <span>{item.value}</span>
                {item.detail && <span className='qa-suggestion-detail'>{item.detail}</span>}
            </div>)}
        </div>}
        <textarea
            className='theia-input qa-input'
            ref={element => { composer.inputElement = element; }}
            placeholder={nls.localize('qodeassist/chat/placeholder', 'Ask QodeAssist… (@ file, / skill)')}
            rows={3}
            defaultValue={composer.draft}
            onChange={event => composer.draftChanged(event.target.value)}
            onKeyDown={event => onInputKeyDown(event, props)}
            onPaste={event => onPaste(event, composer)}
            onBlur={() => composer.closeSuggestions()}
        />
        <div className='qa-composer-actions'>
            <button className='qa-icon-button' data-action='attach' title={nls.localize('qodeassist/chat/attach', 'Attach files or images')}
                onClick={() => void composer.attachFromDialog()}><i className={codicon('attach')} /></button>
            <button className='qa-icon-button' data-action='link-file' title={nls.localize('qodeassist/chat/linkFile', 'Link the current editor\'s file (sent with every message)')}
                onClick={() => composer.linkCurrentFile()}><i className={codicon('link')} /></button>
            <label className='qa-sync' title={nls.localize('qodeassist/chat/syncTitle', 'Link every open editor')}>
                <input type='checkbox' data-action='sync-editors' checked={composer.syncOpenEditors}
                    onChange={event => composer.setSyncOpenEditors(event.target.checked)} />
                {nls.localize('qodeassist/chat/syncEditors', 'Open editors')}
            </label>
            <select className='theia-select qa-agent-picker' value={composer.agent} title={nls.localize('qodeassist/chat/agentPicker', 'Agent')}
                onFocus={() => void composer.loadChoices()}
                onChange={event => composer.setAgent(event.target.value)}>
                <option value=''>{nls.localize('qodeassist/chat/rosterAgent', 'Auto (chat roster)')}</option>
                {composer.agents.map(agent => <option key={agent.name} value={agent.name}>{`${agent.name} · ${agent.model}`}</option>)}
                {composer.agent && !composer.agents.some(agent => agent.name === composer.agent) && <option value={composer.agent}>{composer.agent}</option>}
            </select>
            <select className='theia-select qa-role-picker' value={composer.role} title={nls.localize('qodeassist/chat/rolePicker', 'Role')}
                onChange={event => composer.setRole(event.target.value)}>
                <option value=''>{nls.localize('qodeassist/chat/noRole', 'No role')}</option>
                {composer.roles.map(role => <option key={role.id} value={role.id} title={role.description}>{role.name}</option>)}
                {composer.role && !composer.roles.some(role => role.id === composer.role) && <option value={composer.role}>{composer.role}</option>}
            </select>
            <span className='qa-flex' />
            {composer.estimate && <TokenCounter manifest={composer.estimate} toggle={() => composer.toggleManifest()} />}
            {busy && !summarizing
                ? <button className='theia-button qa-stop' onClick={props.stop}>
                    <i className={codicon('debug-stop')} /> {nls.localize('qodeassist/chat/stop', 'Stop')}
                </button>
                : <button className='theia-button qa-send' disabled={summarizing} onClick={props.send}>
                    <i className={codicon('send')} /> {nls.localize('qodeassist/chat/send', 'Send')}
                </button>}
        </div>
        {composer.showManifest && composer.estimate && <ManifestView manifest={composer.estimate} summarize={props.summarize} />}
    </div>;
}

function TokenCounter({ manifest, toggle }: { manifest: ContextManifest; toggle(): void }): React.ReactElement {
    const level = manifest.refusal ? 'refuse' : manifest.warning ? 'warn' : 'ok';
    return <button className='qa-token-counter' data-level={level} title={manifest.refusal ?? manifest.warning ?? manifestSummary(manifest)}
        onClick={toggle}>
        {level !== 'ok' && <i className={codicon('warning')} />} {`${formatTokens(manifest.estimate)} / ${formatTokens(manifest.limit)}`}
    </button>;
}

/** What the next request would hold, line by line, with what was left out to fit. */
function ManifestView({ manifest, summarize }: { manifest: ContextManifest; summarize(): void }): React.ReactElement {
    const rows: Array<[string, string]> = [
        ...manifest.layers.map((layer): [string, string] => [`system: ${layer.name}`, `~${layer.tokens}`]),
        [`history (${manifest.history.messages} messages, ${manifest.history.toolRounds} tool rounds)`, `~${manifest.history.tokens}`],
        ...manifest.pinned.map((pin): [string, string] => [pin.label, `~${pin.tokens}`]),
        ...(manifest.sections ?? []).map((section): [string, string] => [`${section.name} (at ${section.placement})`, `~${section.tokens}`]),
        [`this message${manifest.task.images ? ` (${manifest.task.images} image${manifest.task.images > 1 ? 's' : ''})` : ''}`, `~${manifest.task.tokens}`],
        [`tools (${manifest.tools.count})`, `~${manifest.tools.tokens}`],
        ...(manifest.budget?.protectedEvidence ? [[`protected evidence (latest build, problems, last writes)`, `~${manifest.budget.protectedEvidence}`] as [string, string]] : []),
        ...manifest.elisions.map((elision): [string, string] => [`elided ${elision.kind}${elision.reason ? ` (${elision.reason})` : ''}: ${elision.detail}`, `−${elision.tokens}`])
    ];
    const repairs = Object.entries(manifest.repairs ?? {});
    return <div className='qa-manifest' role='dialog'>
        <div className='qa-manifest-title'>{nls.localize('qodeassist/chat/manifest', 'Next request')}: {`~${manifest.estimate} of ${manifest.limit} tokens`}</div>
        <table><tbody>{rows.map(([label, tokens], index) => <tr key={index}><td>{label}</td><td>{tokens}</td></tr>)}</tbody></table>
        {manifest.filters.length > 0 && <div className='qa-manifest-note'>{manifest.filters.map(filter => `${filter.kind}: ${filter.detail}`).join('; ')}</div>}
        {repairs.length > 0 && <div className='qa-manifest-note' data-repairs>{nls.localize('qodeassist/chat/repairs', 'Tool-trace repairs')}: {repairs.map(([cause, count]) => `${cause} × ${count}`).join(', ')}</div>}
        {(manifest.refusal ?? manifest.warning) && <div className='qa-manifest-warning'>
            <i className={codicon('warning')} /> {manifest.refusal ?? manifest.warning}{' '}
            <button className='theia-button secondary' data-action='summarize-from-counter' onClick={summarize}>
                {nls.localize('qodeassist/chat/summarize', 'Summarize')}
            </button>
        </div>}
    </div>;
}

/** Files dropped on the chat are attachments, not files to open in an editor: the shell must not see the drop. */
function onDrop(event: React.DragEvent<HTMLDivElement>, { composer, setDragging }: ComposerViewProps): void {
    event.preventDefault();
    event.stopPropagation();
    setDragging(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) {
        void composer.addAttachments(files.map(file => ({ name: file.name, mediaType: mediaTypeOf(file.name, file.type), bytes: async () => new Uint8Array(await file.arrayBuffer()) })));
        return;
    }
    const uris = (event.dataTransfer.getData('text/uri-list') || event.dataTransfer.getData('text/plain'))
        .split(/\r?\n/).map(line => line.trim()).filter(line => line.startsWith('file:')).map(line => new URI(line));
    if (uris.length > 0) {
        void composer.attachUris(uris);
    }
}

function onPaste(event: React.ClipboardEvent<HTMLTextAreaElement>, composer: ChatComposer): void {
    const files = [...event.clipboardData.files];
    if (files.length === 0) {
        return;
    }
    event.preventDefault();
    void composer.addAttachments(files.map((file, index) => {
        const name = file.name && file.name !== 'image.png' ? file.name : `pasted-${Date.now()}-${index}.${(file.type.split('/')[1] || 'png')}`;
        return { name, mediaType: mediaTypeOf(name, file.type), bytes: async () => new Uint8Array(await file.arrayBuffer()) };
    }));
}

/** The arrows, Enter, Tab and Escape pick a suggestion while they show; Enter (or Ctrl+Enter, by the setting) sends. */
function onInputKeyDown(event: React.KeyboardEvent<HTMLTextAreaElement>, { composer, send }: ComposerViewProps): void {
    const suggestions = composer.suggestions;
    if (suggestions) {
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            composer.moveSuggestion(event.key === 'ArrowDown' ? 1 : -1);
            return;
        }
        if (event.key === 'Enter' || event.key === 'Tab') {
            event.preventDefault();
            composer.choose(suggestions.items[suggestions.index].value);
            return;
        }
        if (event.key === 'Escape') {
            event.preventDefault();
            composer.closeSuggestions();
            return;
        }
    }
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) {
        return;
    }
    const wantsSend = composer.sendOnEnter() ? !event.shiftKey : (event.ctrlKey || event.metaKey);
    if (wantsSend) {
        event.preventDefault();
        send();
    }
}
