import type { ContextManifest } from '@qodeassist/core';
import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import URI from '@theia/core/lib/common/uri';
import * as React from '@theia/core/shared/react';
import { ACP_AGENT_PREFIX } from '../../common/chat-protocol';
import { PlanEditor } from './chat-plan-editor';
import { PromptFormView } from './chat-prompt-form-view';
import { mediaTypeOf } from './chat-composer';
import { ChatComposerService } from './chat-composer-service';
import { manifestSummary } from './chat-message-view';
import { ChatCosts } from './chat-usage';
import { CostRows, ImageNoticeView } from './chat-usage-view';
import { projectOriginText } from './agent-origin';

export interface ComposerViewProps {
    composer: ChatComposerService;
    /** A request is in flight or a summary is being made. */
    busy: boolean;
    summarizing: boolean;
    send(): void;
    stop(): void;
    summarize(): void;
    /** Files are dragged over the chat (the whole view shows it). */
    setDragging(dragging: boolean): void;
    /** The plan the conversation holds now (the last answer and its todo checklist), to edit before Act. */
    planText(): string;
    /** Sends the message that starts Act. */
    sendAct(): void;
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
                <i className={codicon('link')} aria-hidden='true' /> {composer.relativePath(path)}
                {composer.linked.includes(path) && <button type='button' className='qa-chip-remove' data-action='unlink'
                    aria-label={nls.localize('qodeassist/chat/unlinkFile', 'Unlink {0}', composer.relativePath(path))}
                    title={nls.localize('qodeassist/chat/unlinkTitle', 'Unlink {0} (no longer sent with every message)', composer.relativePath(path))}
                    onClick={() => composer.unlink(path)}><i className={codicon('close')} aria-hidden='true' /></button>}
            </span>)}
            {composer.attachments.map((attachment, index) => <span key={`a${index}`} className='qa-chip qa-attachment' data-attachment={attachment.view.name}>
                <i className={codicon(attachment.view.mediaType.startsWith('image/') ? 'file-media' : 'file')} aria-hidden='true' /> {attachment.view.name}
                <button type='button' className='qa-chip-remove' data-action='remove-attachment'
                    aria-label={nls.localize('qodeassist/chat/removeAttachment', 'Remove {0}', attachment.view.name)}
                    title={nls.localize('qodeassist/chat/removeAttachmentTitle', 'Remove {0} from this message', attachment.view.name)}
                    onClick={() => composer.removeAttachment(attachment)}><i className={codicon('close')} aria-hidden='true' /></button>
            </span>)}
        </div>}
        {composer.error && <div className='qa-composer-error' role='alert'><i className={codicon('error')} aria-hidden='true' /> {composer.error}</div>}
        {composer.imageNotice && <ImageNoticeView notice={composer.imageNotice} switchTo={agent => composer.setAgent(agent)} dismiss={() => composer.dismissImageNotice()} />}
        {suggestions && <div className='qa-suggestions' role='listbox' id='qa-suggestions' aria-label={nls.localize('qodeassist/chat/suggestions', 'Suggestions')}>
            {suggestions.items.map((item, index) => <div key={item.value} role='option' aria-selected={index === suggestions.index} id={`qa-suggestion-${index}`}
                className={`qa-suggestion${index === suggestions.index ? ' qa-selected' : ''}`} data-value={item.value}
                onMouseDown={event => { event.preventDefault(); composer.suggest.choose(item.value); }}>
                <i className={codicon(suggestions.trigger.kind === 'skill' ? 'book' : 'file')} aria-hidden='true' /> <span>{item.value}</span>
                {item.detail && <span className='qa-suggestion-detail'>{item.detail}</span>}
            </div>)}
        </div>}
        <PromptFormView suggest={composer.suggest} />
        {composer.planDraft !== undefined && <PlanEditor draft={composer.planDraft} change={draft => composer.editPlan(draft)}
            act={plan => { composer.actOn(plan); props.sendAct(); }} cancel={() => composer.editPlan(undefined)} />}
        <textarea
            className='theia-input qa-input'
            ref={element => { composer.inputElement = element; }}
            placeholder={nls.localize('qodeassist/chat/placeholder', 'Ask QodeAssist… (@ file, / skill)')}
            aria-label={nls.localize('qodeassist/chat/message', 'Message to QodeAssist')}
            title={composer.sendOnEnter()
                ? nls.localize('qodeassist/chat/inputHintEnter', 'Enter sends, Shift+Enter starts a new line; @ mentions a file, / a skill')
                : nls.localize('qodeassist/chat/inputHintCtrl', 'Ctrl+Enter sends; @ mentions a file, / a skill')}
            aria-autocomplete='list'
            aria-controls={suggestions ? 'qa-suggestions' : undefined}
            aria-activedescendant={suggestions ? `qa-suggestion-${suggestions.index}` : undefined}
            rows={3}
            defaultValue={composer.draft}
            onChange={event => composer.draftChanged(event.target.value)}
            onKeyDown={event => onInputKeyDown(event, props)}
            onPaste={event => onPaste(event, composer)}
            onBlur={() => composer.suggest.close()}
        />
        <div className='qa-composer-actions'>
            <button type='button' className='qa-icon-button' data-action='attach' aria-label={nls.localize('qodeassist/chat/attach', 'Attach files or images')}
                title={nls.localize('qodeassist/chat/attach', 'Attach files or images')}
                onClick={() => void composer.attachFromDialog()}><i className={codicon('attach')} aria-hidden='true' /></button>
            <button type='button' className='qa-icon-button' data-action='link-file' aria-label={nls.localize('qodeassist/chat/linkFileName', 'Link the current file')}
                title={nls.localize('qodeassist/chat/linkFile', 'Link the current editor\'s file (sent with every message)')}
                onClick={() => composer.linkCurrentFile()}><i className={codicon('link')} aria-hidden='true' /></button>
            <label className='qa-sync' title={nls.localize('qodeassist/chat/syncTitle', 'Link every open editor')}>
                <input type='checkbox' data-action='sync-editors' checked={composer.syncOpenEditors}
                    onChange={event => composer.setSyncOpenEditors(event.target.checked)} />
                {nls.localize('qodeassist/chat/syncEditors', 'Open editors')}
            </label>
            <Pickers composer={composer} />
            {composer.mode === 'plan' && !composer.externalAgent() && <button type='button' className='theia-button secondary qa-plan-open' data-action='edit-plan' disabled={busy}
                title={nls.localize('qodeassist/chat/editPlanTitle', 'See and edit the plan as a checklist, then Act on it')}
                onClick={() => composer.editPlan(props.planText())}>
                <i className={codicon('checklist')} aria-hidden='true' /> {nls.localize('qodeassist/chat/editPlan', 'Plan…')}
            </button>}
            <AgentModes composer={composer} />
            <span className='qa-flex' />
            {composer.externalAgent()
                ? <AgentUsage usage={composer.agentUsage} />
                : composer.estimate && <TokenCounter manifest={composer.estimate} expanded={composer.showManifest} toggle={() => composer.toggleManifest()} />}
            {busy && !summarizing
                ? <button type='button' className='theia-button qa-stop' aria-label={nls.localize('qodeassist/chat/stop', 'Stop')}
                    title={nls.localize('qodeassist/chat/stopTitle', 'Stop the answer (what arrived stays)')} onClick={props.stop}>
                    <i className={codicon('debug-stop')} aria-hidden='true' /> {nls.localize('qodeassist/chat/stop', 'Stop')}
                </button>
                : <button type='button' className='theia-button qa-send' disabled={summarizing} aria-label={nls.localize('qodeassist/chat/send', 'Send')}
                    title={composer.sendOnEnter() ? nls.localize('qodeassist/chat/sendTitleEnter', 'Send (Enter)') : nls.localize('qodeassist/chat/sendTitleCtrl', 'Send (Ctrl+Enter)')}
                    onClick={() => composer.suggest.expandTyped() || props.send()}>
                    <i className={codicon('send')} aria-hidden='true' /> {nls.localize('qodeassist/chat/send', 'Send')}
                </button>}
        </div>
        {composer.showManifest && composer.estimate && <ManifestView manifest={composer.estimate} summarize={props.summarize} costs={composer.costs()} />}
    </div>;
}

/**
 * The agent and role pickers, together: in a narrow sidebar they take a line of their own
 * rather than being cut to a few letters; each shows its whole choice on hover.
 */
function Pickers({ composer }: { composer: ChatComposerService }): React.ReactElement {
    const agent = composer.agents.find(candidate => candidate.name === composer.agent);
    const origin = projectOriginText(agent);
    const agentText = composer.agent ? (agent ? `${agent.name} · ${agent.model}${origin ? `\n${origin}` : ''}` : composer.agent) : nls.localize('qodeassist/chat/rosterAgent', 'Auto (chat roster)');
    const role = composer.roles.find(candidate => candidate.id === composer.role);
    const roleText = composer.role ? (role?.name ?? composer.role) : nls.localize('qodeassist/chat/noRole', 'No role');
    return <span className='qa-pickers'>
        <select className='theia-select qa-agent-picker' value={composer.agent} aria-label={nls.localize('qodeassist/chat/agentPicker', 'Agent')}
            title={nls.localize('qodeassist/chat/agentPickerTitle', 'Agent: {0}', agentText)}
            onFocus={() => void composer.loadChoices()}
            onChange={event => composer.setAgent(event.target.value)}>
            <option value=''>{nls.localize('qodeassist/chat/rosterAgent', 'Auto (chat roster)')}</option>
            {composer.agents.filter(choice => choice.kind !== 'acp').map(choice => <option key={choice.name} value={choice.name} title={projectOriginText(choice)}
                data-project-origin={choice.projectOrigin ? 'yes' : undefined}>{`${choice.name} · ${choice.model}${choice.projectOrigin ? ` (${nls.localize('qodeassist/chat/project', 'project')})` : ''}`}</option>)}
            {composer.agents.some(choice => choice.kind === 'acp') && <optgroup label={nls.localize('qodeassist/chat/externalAgents', 'External agents')}>
                {composer.agents.filter(choice => choice.kind === 'acp').map(choice => <option key={choice.name} value={choice.name} disabled={choice.unavailable !== undefined}
                    title={[choice.unavailable ?? choice.description, projectOriginText(choice)].filter(Boolean).join('\n')}>{`${choice.name.slice(ACP_AGENT_PREFIX.length)}${choice.description ? ` · ${choice.description}` : ''}`}</option>)}
            </optgroup>}
            {composer.agent && !agent && <option value={composer.agent}>{composer.agent}</option>}
        </select>
        <select className='theia-select qa-role-picker' value={composer.role} aria-label={nls.localize('qodeassist/chat/rolePicker', 'Role')}
            title={nls.localize('qodeassist/chat/rolePickerTitle', 'Role: {0}', roleText)}
            onChange={event => composer.setRole(event.target.value)}>
            <option value=''>{nls.localize('qodeassist/chat/noRole', 'No role')}</option>
            {composer.roles.map(choice => <option key={choice.id} value={choice.id} title={choice.description}>{choice.name}</option>)}
            {composer.role && !role && <option value={composer.role}>{composer.role}</option>}
        </select>
        {!composer.externalAgent() && <select className='theia-select qa-mode-picker' value={composer.mode} aria-label={nls.localize('qodeassist/chat/modePicker', 'Mode')}
            title={composer.mode === 'plan'
                ? nls.localize('qodeassist/chat/planModeTitle', 'Plan: the agent reads and proposes a plan; nothing is changed or run. Switch to Act to carry it out.')
                : nls.localize('qodeassist/chat/actModeTitle', 'Act: the agent works with its tools (writes and commands ask); a plan made before is pinned.')}
            onChange={event => composer.setMode(event.target.value === 'plan' ? 'plan' : 'act')}>
            <option value='act'>{nls.localize('qodeassist/chat/actMode', 'Act')}</option>
            <option value='plan'>{nls.localize('qodeassist/chat/planMode', 'Plan')}</option>
        </select>}
    </span>;
}

/** An external agent's own figure: what it reported of its context window, or that it reports nothing (QodeAssist cannot know what it sends). */
function AgentUsage({ usage }: { usage: { used: number; size: number; cost?: { amount: number; currency: string } } | undefined }): React.ReactElement {
    const figure = usage ? `${formatTokens(usage.used)} / ${formatTokens(usage.size)}${usage.cost ? ` · ${usage.cost.amount.toFixed(2)} ${usage.cost.currency}` : ''}` : nls.localize('qodeassist/chat/agentNoUsage', 'no token counts');
    const title = usage
        ? nls.localize('qodeassist/chat/agentUsageTitle', 'The agent reports {0} tokens in its context of {1}', usage.used, usage.size)
        : nls.localize('qodeassist/chat/agentNoUsageTitle', 'This agent assembles its own requests and reports no token counts');
    return <span className='qa-token-counter' data-level='ok' data-agent-usage={usage ? 'reported' : 'none'} role='status' title={title} aria-label={title}>{figure}</span>;
}

/** The modes the external agent offers, when it announced any: switching asks the agent. */
function AgentModes({ composer }: { composer: ChatComposerService }): React.ReactElement | null {
    const modes = composer.externalAgent() ? composer.agentSession?.modes : undefined;
    if (!modes) {
        return null;
    }
    return <select className='theia-select qa-agent-mode' value={modes.currentModeId} aria-label={nls.localize('qodeassist/chat/agentMode', 'Agent mode')}
        title={modes.availableModes.find(mode => mode.id === modes.currentModeId)?.description ?? nls.localize('qodeassist/chat/agentMode', 'Agent mode')}
        onChange={event => void composer.setAgentMode(event.target.value)}>
        {modes.availableModes.map(mode => <option key={mode.id} value={mode.id} title={mode.description}>{mode.name}</option>)}
    </select>;
}

function TokenCounter({ manifest, expanded, toggle }: { manifest: ContextManifest; expanded: boolean; toggle(): void }): React.ReactElement {
    const level = manifest.refusal ? 'refuse' : manifest.warning ? 'warn' : 'ok';
    const figure = `${formatTokens(manifest.estimate)} / ${formatTokens(manifest.limit)}`;
    return <button type='button' className='qa-token-counter' data-level={level} aria-expanded={expanded}
        aria-label={nls.localize('qodeassist/chat/tokenCounter', '{0} tokens: what the next request holds', figure)}
        title={manifest.refusal ?? manifest.warning ?? manifestSummary(manifest)}
        onClick={toggle}>
        {level !== 'ok' && <i className={codicon('warning')} aria-hidden='true' />} {figure}
    </button>;
}

/** What the next request would hold, line by line, with what was left out to fit. */
function ManifestView({ manifest, summarize, costs }: { manifest: ContextManifest; summarize(): void; costs: ChatCosts }): React.ReactElement {
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
    return <div className='qa-manifest' role='region' aria-label={nls.localize('qodeassist/chat/manifest', 'Next request')}>
        <div className='qa-manifest-title'>{nls.localize('qodeassist/chat/manifest', 'Next request')}: {`~${manifest.estimate} of ${manifest.limit} tokens`}</div>
        <table><tbody>{rows.map(([label, tokens], index) => <tr key={index}><td>{label}</td><td>{tokens}</td></tr>)}</tbody></table>
        {manifest.filters.length > 0 && <div className='qa-manifest-note'>{manifest.filters.map(filter => `${filter.kind}: ${filter.detail}`).join('; ')}</div>}
        <CostRows costs={costs} />
        {repairs.length > 0 && <div className='qa-manifest-note' data-repairs>{nls.localize('qodeassist/chat/repairs', 'Tool-trace repairs')}: {repairs.map(([cause, count]) => `${cause} × ${count}`).join(', ')}</div>}
        {(manifest.refusal ?? manifest.warning) && <div className='qa-manifest-warning'>
            <i className={codicon('warning')} aria-hidden='true' /> {manifest.refusal ?? manifest.warning}{' '}
            <button type='button' className='theia-button secondary' data-action='summarize-from-counter'
                title={nls.localize('qodeassist/chat/summarizeTitle', 'Summarize this chat into a new one (the original is kept)')} onClick={summarize}>
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

function onPaste(event: React.ClipboardEvent<HTMLTextAreaElement>, composer: ChatComposerService): void {
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
            composer.suggest.move(event.key === 'ArrowDown' ? 1 : -1);
            return;
        }
        if (event.key === 'Enter' || event.key === 'Tab') {
            event.preventDefault();
            composer.suggest.choose(suggestions.items[suggestions.index].value);
            return;
        }
        if (event.key === 'Escape') {
            event.preventDefault();
            composer.suggest.close();
            return;
        }
    }
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) {
        return;
    }
    const wantsSend = composer.sendOnEnter() ? !event.shiftKey : (event.ctrlKey || event.metaKey);
    if (wantsSend) {
        event.preventDefault();
        // A typed `/mcp.<server>.<prompt> name=value…` runs the prompt into the draft rather than going to the model.
        if (!composer.suggest.expandTyped()) {
            send();
        }
    }
}
