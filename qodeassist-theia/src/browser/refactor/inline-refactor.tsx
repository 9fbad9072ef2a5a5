import type { ErrorInfo, PermissionAnswer } from '@qodeassist/core';
import { Disposable, DisposableCollection, nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { createRoot, Root } from '@theia/core/shared/react-dom/client';
import * as monaco from '@theia/monaco-editor-core';
import { AgentChoice } from '../../common/chat-protocol';
import { QUICK_ACTIONS, RefactorAnswer, RefactorProgress } from '../../common/refactor-protocol';
import { ChatErrorAction } from '../shared/error-affordance';
import { ErrorView } from '../shared/error-view';
import { PendingPermission } from '../shared/pending-permission';
import { PermissionPrompt } from '../shared/permission-prompt';
import { blockAround, changedLines, cursorLine, proposedBlock, RefactorBlock } from './refactor-block';

/** What an inline refactor needs from the IDE around it. */
export interface RefactorHost {
    /** Sends the refactor; progress comes through `subscribe`. */
    run(refactor: InlineRefactor, request: RefactorRun): Promise<RefactorAnswer>;
    cancel(refactor: InlineRefactor): Promise<void>;
    /** Progress and permission prompts for one refactor id. */
    subscribe(id: string, onProgress: (progress: RefactorProgress[]) => void, onPermission: (pending: PendingPermission) => void): Disposable;
    agents(): Promise<AgentChoice[]>;
    /** The saved-instructions picker; resolves to the chosen instruction's text. */
    pickInstruction(): Promise<string | undefined>;
    saveInstruction(body: string): Promise<void>;
    lastInstruction(): string | undefined;
    openSettings(): void;
    /** The refactor's phase changed (keybinding contexts follow it) or it closed. */
    changed(refactor: InlineRefactor): void;
}

export interface RefactorRun {
    id: string;
    instruction: string;
    agent?: string;
    tools: boolean;
    thinking: boolean;
    /** The document and the selection as they were when the refactor started. */
    text: string;
    selection: { start: number; end: number };
    cursor: number;
}

export type RefactorPhase = 'input' | 'running' | 'review' | 'failed' | 'closed';

export interface RefactorDefaults {
    agent: string;
    tools: boolean;
    thinking: boolean;
}

interface ToolStep {
    callId: string;
    name: string;
    state: 'running' | 'done' | 'failed';
}

let nextRefactor = 1;

/**
 * One quick refactor in a Monaco editor: an input at the selection, then the answer streaming
 * into an editable proposal under the original lines (removed lines marked in the editor, added
 * ones in the proposal). Accept replaces the lines in one undoable edit; Reject or Esc leaves the
 * file as it was — nothing is written before Accept.
 */
export class InlineRefactor implements Disposable {
    /** The refactor the user touched last: keys typed with the focus nowhere go to it. */
    static lastUsed: InlineRefactor | undefined;
    readonly id = `refactor-${Date.now()}-${nextRefactor++}`;
    phase: RefactorPhase = 'input';
    protected instruction = '';
    protected agent: string;
    protected tools: boolean;
    protected thinking: boolean;
    protected agentChoices: AgentChoice[] = [];
    protected answeringAgent: string | undefined;
    protected steps: ToolStep[] = [];
    protected permissions: PendingPermission[] = [];
    protected error: ErrorInfo | undefined;
    protected proposalText = '';

    protected readonly toDispose = new DisposableCollection();
    protected readonly original: string;
    protected readonly block: RefactorBlock;
    protected readonly text: string;
    protected readonly cursor: number;
    /** Follows the block's lines as the document changes around them. */
    protected readonly tracked: monaco.editor.IEditorDecorationsCollection;
    protected readonly removedLines: monaco.editor.IEditorDecorationsCollection;
    /** The view zone's node: it only keeps the lines apart, the panel floats over it (a zone does not get the mouse). */
    protected readonly spacerNode = document.createElement('div');
    /** The panel, an overlay widget kept at the zone's top. */
    protected readonly zoneNode = document.createElement('div');
    protected readonly content = document.createElement('div');
    protected readonly panelNode = document.createElement('div');
    protected readonly proposalNode = document.createElement('div');
    protected readonly root: Root;
    protected zoneId: string | undefined;
    protected zoneHeight = 0;
    protected proposal: monaco.editor.IStandaloneCodeEditor | undefined;
    protected addedLines: monaco.editor.IEditorDecorationsCollection | undefined;
    protected inputElement: HTMLInputElement | null = null;

    constructor(readonly editor: monaco.editor.ICodeEditor, protected readonly host: RefactorHost, defaults: RefactorDefaults) {
        const model = editor.getModel()!;
        this.text = model.getValue();
        const selection = editor.getSelection()!;
        const start = model.getOffsetAt(selection.getStartPosition());
        const end = model.getOffsetAt(selection.getEndPosition());
        this.cursor = model.getOffsetAt(selection.getPosition());
        this.block = blockAround(this.text, start === end ? cursorLine(this.text, start) : { start, end });
        this.original = this.text.slice(this.block.start, this.block.end);
        this.agent = defaults.agent;
        this.tools = defaults.tools;
        this.thinking = defaults.thinking;
        this.tracked = editor.createDecorationsCollection([{ range: this.rangeOf(model, this.block.start, this.block.end), options: { stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges } }]);
        this.removedLines = editor.createDecorationsCollection();
        this.toDispose.push(Disposable.create(() => {
            this.tracked.clear();
            this.removedLines.clear();
        }));

        this.zoneNode.className = 'qa-refactor-zone';
        this.content.className = 'qa-refactor';
        this.content.dataset.refactor = this.id;
        this.proposalNode.className = 'qa-refactor-proposal';
        this.content.append(this.panelNode, this.proposalNode);
        this.zoneNode.append(this.content);
        // Keys typed here are the refactor's, not the editor's underneath.
        for (const type of ['keydown', 'keypress', 'keyup'] as const) {
            this.zoneNode.addEventListener(type, event => event.stopPropagation());
        }
        // Ctrl+Enter and Esc belong to the refactor while the focus is in its editor or in the proposal,
        // before any editor binding (the proposal editor's own Ctrl+Enter inserts a line).
        const onKey = (event: KeyboardEvent) => this.onEditorKey(event);
        window.addEventListener('keydown', onKey, true);
        this.toDispose.push(Disposable.create(() => window.removeEventListener('keydown', onKey, true)));
        InlineRefactor.lastUsed = this;
        this.zoneNode.addEventListener('pointerdown', () => { InlineRefactor.lastUsed = this; });
        this.zoneNode.addEventListener('focusin', () => { InlineRefactor.lastUsed = this; });
        this.root = createRoot(this.panelNode);
        this.toDispose.push(Disposable.create(() => this.root.unmount()));

        const resize = new ResizeObserver(() => this.layoutZone());
        resize.observe(this.content);
        this.toDispose.push(Disposable.create(() => resize.disconnect()));
        this.toDispose.push(editor.onDidLayoutChange(() => this.layoutZone()));
        this.toDispose.push(this.host.subscribe(this.id, progress => this.onProgress(progress), pending => {
            this.permissions = [...this.permissions, pending];
            this.render();
        }));
        this.addZone();
        this.render();
        void host.agents().then(agents => {
            this.agentChoices = agents;
            this.render();
        }, () => undefined);
    }

    get model(): monaco.editor.ITextModel {
        return this.editor.getModel()!;
    }

    focusInput(): void {
        this.inputElement?.focus();
    }

    /** Runs the instruction (the typed one unless given). */
    async start(instruction = this.instruction): Promise<void> {
        if (this.phase === 'running' || !instruction.trim()) {
            return;
        }
        this.instruction = instruction;
        this.setPhase('running');
        // A quick action's button disables itself: keep the focus here, where Esc and Ctrl+Enter reach the refactor.
        this.focusInput();
        this.error = undefined;
        this.steps = [];
        this.answeringAgent = undefined;
        this.showProposal('');
        const answer = await this.host.run(this, {
            id: this.id, instruction, agent: this.agent || undefined, tools: this.tools, thinking: this.thinking,
            text: this.text, selection: this.block.selection, cursor: this.cursor
        }).catch((error): RefactorAnswer => ({ error: { category: 'Network', message: `The QodeAssist backend did not answer: ${error instanceof Error ? error.message : String(error)}` } }));
        if (!this.isRunning()) {
            return; // Closed meanwhile.
        }
        this.answerPending('deny');
        if (answer.cancelled) {
            this.showProposal(undefined);
            this.setPhase('input');
        } else if (answer.error || answer.text === undefined) {
            this.error = answer.error ?? { category: 'Provider', message: 'The refactor ended without a result.' };
            this.showProposal(undefined);
            this.setPhase('failed');
        } else {
            this.showProposal(proposedBlock(this.text, this.block, answer.text));
            this.proposal?.updateOptions({ readOnly: false });
            this.setPhase('review');
        }
    }

    /** Stops the request under way; the input stays, the file is untouched. */
    async stop(): Promise<void> {
        if (this.phase === 'running') {
            this.answerPending('deny');
            await this.host.cancel(this);
        }
    }

    /** Replaces the block's lines with the proposal as it reads now (edits included), as one undoable edit. */
    accept(): boolean {
        const range = this.tracked.getRange(0);
        if (this.phase !== 'review' || !this.proposal || !range) {
            return false;
        }
        let replacement = this.proposal.getValue();
        let target: monaco.IRange = range;
        if (replacement === '' && this.block.selection.end > this.block.end && range.endLineNumber < this.model.getLineCount()) {
            // Whole lines deleted: their line break goes too.
            target = { ...range, endLineNumber: range.endLineNumber + 1, endColumn: 1 };
        } else if (this.model.getEOL() !== '\n') {
            replacement = replacement.split('\n').join(this.model.getEOL());
        }
        this.editor.pushUndoStop();
        this.editor.executeEdits('qodeassist.refactor', [{ range: target, text: replacement, forceMoveMarkers: true }]);
        this.editor.pushUndoStop();
        this.dispose();
        this.editor.focus();
        return true;
    }

    /** Closes without touching the file; a request under way is cancelled. */
    reject(): void {
        void this.stop();
        this.dispose();
        this.editor.focus();
    }

    dispose(): void {
        if (this.phase === 'closed') {
            return;
        }
        this.answerPending('deny');
        this.phase = 'closed';
        if (this.zoneId) {
            const id = this.zoneId;
            this.editor.changeViewZones(accessor => accessor.removeZone(id));
        }
        this.editor.removeOverlayWidget(this.overlay);
        this.proposal?.getModel()?.dispose();
        this.proposal?.dispose();
        this.toDispose.dispose();
        if (InlineRefactor.lastUsed === this) {
            InlineRefactor.lastUsed = undefined;
        }
        this.host.changed(this);
    }

    protected isRunning(): boolean {
        return this.phase === 'running';
    }

    protected setPhase(phase: RefactorPhase): void {
        this.phase = phase;
        this.render();
        this.host.changed(this);
    }

    protected onProgress(progress: readonly RefactorProgress[]): void {
        if (this.phase !== 'running') {
            return;
        }
        for (const item of progress) {
            if (item.kind === 'started') {
                this.answeringAgent = item.agent;
            } else if (item.kind === 'tool') {
                this.steps = [...this.steps.filter(step => step.callId !== item.callId), { callId: item.callId, name: item.name, state: item.state }];
            } else {
                this.showProposal(proposedBlock(this.text, this.block, item.text));
            }
        }
        this.render();
    }

    // ---- the proposal and the diff decorations ----

    /** Shows the proposal (undefined: hides it) and marks what changed on both sides. */
    protected showProposal(text: string | undefined): void {
        if (text === undefined) {
            this.proposal?.getModel()?.dispose();
            this.proposal?.dispose();
            this.proposal = undefined;
            this.proposalText = '';
            this.removedLines.clear();
            this.layoutZone();
            return;
        }
        if (!this.proposal) {
            this.proposal = this.createProposalEditor();
        }
        if (this.proposal.getValue() !== text) {
            this.proposal.setValue(text);
        }
        this.markChanges();
    }

    protected createProposalEditor(): monaco.editor.IStandaloneCodeEditor {
        const proposal = monaco.editor.create(this.proposalNode, {
            model: monaco.editor.createModel('', this.model.getLanguageId()),
            readOnly: true, lineNumbers: 'off', glyphMargin: false, folding: false, minimap: { enabled: false },
            scrollBeyondLastLine: false, renderLineHighlight: 'none', overviewRulerLanes: 0, lineDecorationsWidth: 8,
            scrollbar: { vertical: 'hidden', horizontal: 'auto', alwaysConsumeMouseWheel: false }, wordWrap: 'off',
            fontSize: this.editor.getOption(monaco.editor.EditorOption.fontSize), tabSize: this.model.getOptions().tabSize,
            insertSpaces: this.model.getOptions().insertSpaces, automaticLayout: false, contextmenu: false
        });
        proposal.onDidChangeModelContent(() => {
            this.markChanges();
            this.layoutZone();
        });
        this.addedLines = proposal.createDecorationsCollection();
        return proposal;
    }

    protected markChanges(): void {
        if (!this.proposal) {
            return;
        }
        const text = this.proposal.getValue();
        if (text === this.proposalText && this.addedLines?.length) {
            return;
        }
        this.proposalText = text;
        const { removed, added } = changedLines(this.original, text);
        const range = this.tracked.getRange(0);
        const first = range?.startLineNumber ?? this.model.getPositionAt(this.block.start).lineNumber;
        this.removedLines.set(removed.map(line => ({
            range: new monaco.Range(first + line, 1, first + line, 1),
            options: { isWholeLine: true, className: 'qa-refactor-removed-line', linesDecorationsClassName: 'qa-refactor-removed-gutter' }
        })));
        this.addedLines?.set(added.map(line => ({
            range: new monaco.Range(line + 1, 1, line + 1, 1),
            options: { isWholeLine: true, className: 'qa-refactor-added-line', linesDecorationsClassName: 'qa-refactor-added-gutter' }
        })));
        this.layoutZone();
    }

    // ---- the view zone ----

    protected readonly overlay: monaco.editor.IOverlayWidget = {
        getId: () => `qodeassist.refactor.${this.id}`,
        getDomNode: () => this.zoneNode,
        getPosition: () => null
    };

    protected addZone(): void {
        this.editor.addOverlayWidget(this.overlay);
        this.placeZone(80);
    }

    /** (Re)places the spacer zone under the block's last line with this height; the panel follows its top. */
    protected placeZone(height: number): void {
        const previous = this.zoneId;
        this.editor.changeViewZones(accessor => {
            if (previous) {
                accessor.removeZone(previous);
            }
            this.zoneId = accessor.addZone({
                afterLineNumber: (this.tracked.getRange(0)?.endLineNumber ?? this.model.getPositionAt(this.block.end).lineNumber),
                heightInPx: height, domNode: this.spacerNode,
                onDomNodeTop: top => { this.zoneNode.style.top = `${top}px`; }
            });
        });
        this.zoneHeight = height;
    }

    /** Sizes the proposal editor to its lines (up to 25), the panel to the editor's width, and the zone to the panel. */
    protected layoutZone(): void {
        if (this.phase === 'closed' || !this.zoneId) {
            return;
        }
        const layout = this.editor.getLayoutInfo();
        const width = Math.max(200, layout.contentWidth - layout.verticalScrollbarWidth - 16);
        this.zoneNode.style.left = `${layout.contentLeft}px`;
        this.content.style.width = `${width}px`;
        if (this.proposal) {
            const lineHeight = this.proposal.getOption(monaco.editor.EditorOption.lineHeight);
            const lines = Math.min(25, Math.max(1, this.proposal.getModel()?.getLineCount() ?? 1));
            this.proposalNode.style.height = `${lines * lineHeight + 4}px`;
            this.proposal.layout({ width: width - 18, height: lines * lineHeight + 4 });
        } else {
            this.proposalNode.style.height = '0';
        }
        const height = Math.ceil(this.content.getBoundingClientRect().height) + 6;
        if (height !== this.zoneHeight) {
            this.placeZone(height);
        }
    }

    protected rangeOf(model: monaco.editor.ITextModel, start: number, end: number): monaco.Range {
        return monaco.Range.fromPositions(model.getPositionAt(start), model.getPositionAt(end));
    }

    // ---- the panel ----

    protected answerPending(answer: PermissionAnswer): void {
        for (const pending of this.permissions) {
            pending.answer(answer);
        }
        this.permissions = [];
    }

    protected readonly answerPermission = (pending: PendingPermission, answer: PermissionAnswer) => {
        this.permissions = this.permissions.filter(candidate => candidate !== pending);
        pending.answer(answer);
        this.render();
    };

    protected readonly runErrorAction = (action: ChatErrorAction) => {
        if (action === 'open-settings') {
            this.host.openSettings();
        } else {
            void this.start();
        }
    };

    protected render(): void {
        if (this.phase === 'closed') {
            return;
        }
        this.content.dataset.phase = this.phase;
        this.root.render(this.renderPanel());
        requestAnimationFrame(() => this.layoutZone());
    }

    protected renderPanel(): React.ReactElement {
        const running = this.phase === 'running';
        const last = this.host.lastInstruction();
        return <div className='qa-refactor-panel'>
            <div className='qa-refactor-row'>
                <i className={codicon('sparkle')} title='QodeAssist Quick Refactor' />
                <input className='qa-refactor-input theia-input' placeholder={nls.localize('qodeassist/refactor/placeholder', 'What should change? Enter runs, Esc closes')}
                    ref={element => { this.inputElement = element; }} defaultValue={this.instruction} readOnly={running}
                    onChange={event => { this.instruction = event.target.value; }}
                    onKeyDown={event => this.onInputKey(event)} />
                {running
                    ? <button className='theia-button secondary' data-action='stop' onClick={() => void this.stop()}>{nls.localize('qodeassist/refactor/stop', 'Stop')}</button>
                    : <button className='theia-button' data-action='run' onClick={() => void this.start()}>{nls.localize('qodeassist/refactor/run', 'Refactor')}</button>}
                <button className='qa-icon-button' data-action='close' title={nls.localize('qodeassist/refactor/close', 'Close (Esc); the file stays as it was')} onClick={() => this.reject()}>
                    <i className={codicon('close')} />
                </button>
            </div>
            <div className='qa-refactor-row qa-refactor-options'>
                <button className='theia-button secondary' data-action='instructions' disabled={running} onClick={() => void this.pick()}>
                    <i className={codicon('library')} /> {nls.localize('qodeassist/refactor/saved', 'Saved…')}
                </button>
                <button className='theia-button secondary' data-action='save-instruction' disabled={running} title={nls.localize('qodeassist/refactor/saveHint', 'Save the instruction above to your library')}
                    onClick={() => void this.host.saveInstruction(this.instruction)}>
                    <i className={codicon('save')} />
                </button>
                <button className='theia-button secondary' data-action='repeat' disabled={running || !last} title={last} onClick={() => last && this.useInstruction(last, true)}>
                    {nls.localize('qodeassist/refactor/repeat', 'Repeat last')}
                </button>
                {QUICK_ACTIONS.map(action => <button key={action.id} className='theia-button secondary' data-action={action.id} disabled={running} title={action.instruction}
                    onClick={() => this.useInstruction(action.instruction, true)}>{action.label}</button>)}
                <label title={nls.localize('qodeassist/refactor/toolsHint', 'Let the agent use the project tools; writing or running anything asks you first')}>
                    <input type='checkbox' data-option='tools' checked={this.tools} disabled={running} onChange={event => { this.tools = event.target.checked; this.render(); }} /> {nls.localize('qodeassist/refactor/tools', 'Tools')}
                </label>
                <label title={nls.localize('qodeassist/refactor/thinkingHint', 'Ask the agent to think first (agents whose templates support it)')}>
                    <input type='checkbox' data-option='thinking' checked={this.thinking} disabled={running} onChange={event => { this.thinking = event.target.checked; this.render(); }} /> {nls.localize('qodeassist/refactor/thinking', 'Thinking')}
                </label>
                <select className='theia-select qa-refactor-agent' value={this.agent} disabled={running} onChange={event => { this.agent = event.target.value; this.render(); }}>
                    <option value=''>{nls.localize('qodeassist/refactor/rosterAgent', 'Agent: refactor roster')}</option>
                    {this.agentChoices.map(agent => <option key={agent.name} value={agent.name}>{agent.name} · {agent.model}</option>)}
                </select>
            </div>
            {this.renderStatus()}
            {this.permissions.map(pending => <PermissionPrompt key={pending.id} pending={pending} onAnswer={this.answerPermission} within='refactor' />)}
            {this.phase === 'failed' && this.error && <ErrorView error={this.error} onAction={this.runErrorAction} except={['summarize']} />}
            {this.phase === 'review' && <div className='qa-refactor-row qa-refactor-review'>
                <button className='theia-button' data-action='accept' onClick={() => this.accept()}>
                    <i className={codicon('check')} /> {nls.localize('qodeassist/refactor/accept', 'Accept')} <kbd>Ctrl+Enter</kbd>
                </button>
                <button className='theia-button secondary' data-action='reject' onClick={() => this.reject()}>
                    <i className={codicon('discard')} /> {nls.localize('qodeassist/refactor/reject', 'Reject')} <kbd>Esc</kbd>
                </button>
                <span className='qa-refactor-hint'>{nls.localize('qodeassist/refactor/editHint', 'You can edit the proposal before accepting.')}</span>
            </div>}
        </div>;
    }

    protected renderStatus(): React.ReactElement | undefined {
        if (this.phase !== 'running' && this.steps.length === 0) {
            return undefined;
        }
        return <div className='qa-refactor-row qa-refactor-status'>
            {this.phase === 'running' && <span className='qa-refactor-progress'><i className={codicon('loading') + ' codicon-modifier-spin'} /> {this.answeringAgent
                ? nls.localize('qodeassist/refactor/answering', '{0} is rewriting the selection…', this.answeringAgent)
                : nls.localize('qodeassist/refactor/starting', 'Starting…')}</span>}
            {this.steps.map(step => <span key={step.callId} className='qa-refactor-tool' data-state={step.state}>
                <i className={codicon(step.state === 'running' ? 'loading' : step.state === 'done' ? 'check' : 'error')} /> {step.name}
            </span>)}
        </div>;
    }

    protected onEditorKey(event: KeyboardEvent): void {
        const target = event.target instanceof Node ? event.target : undefined;
        // The refactor's editor (its panel included), or nowhere at all when this refactor was the last one used.
        const ours = target && (this.editor.getDomNode()?.contains(target) || (target === document.body && InlineRefactor.lastUsed === this));
        if (!ours) {
            return;
        }
        const accept = event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey;
        const reject = event.key === 'Escape' && !event.ctrlKey && !event.metaKey && !event.altKey && !event.shiftKey;
        if (accept && this.phase === 'review') {
            this.consume(event);
            this.accept();
        } else if (reject) {
            this.consume(event);
            this.reject();
        }
    }

    protected consume(event: KeyboardEvent): void {
        event.preventDefault();
        event.stopImmediatePropagation();
    }

    protected onInputKey(event: React.KeyboardEvent<HTMLInputElement>): void {
        if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.metaKey && this.phase !== 'running') {
            event.preventDefault();
            void this.start();
        }
    }

    protected async pick(): Promise<void> {
        const picked = await this.host.pickInstruction();
        if (picked !== undefined) {
            this.useInstruction(picked, false);
        }
    }

    /** Puts an instruction into the input; `run` starts it right away. */
    protected useInstruction(instruction: string, run: boolean): void {
        this.instruction = instruction;
        if (this.inputElement) {
            this.inputElement.value = instruction;
        }
        if (run) {
            void this.start(instruction);
        } else {
            this.focusInput();
        }
    }
}
