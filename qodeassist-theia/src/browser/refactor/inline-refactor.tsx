import type { ErrorInfo, PermissionAnswer } from '@qodeassist/core';
import { Disposable, DisposableCollection } from '@theia/core';
import * as React from '@theia/core/shared/react';
import { createRoot, Root } from '@theia/core/shared/react-dom/client';
import * as monaco from '@theia/monaco-editor-core';
import { AgentChoice } from '../../common/chat-protocol';
import { RefactorAnswer, RefactorProgress } from '../../common/refactor-protocol';
import { PendingPermission } from '../shared/pending-permission';
import { blockAround, cursorLine, proposedBlock, RefactorBlock } from './refactor-block';
import { RefactorPanel, RefactorPanelActions, RefactorPhase, ToolStep } from './refactor-panel';
import { RefactorZone } from './refactor-zone';

export type { RefactorPhase } from './refactor-panel';

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
    /** Opens the configuration where the error can be fixed (an Auth error: the provider's key). */
    openSettings(error: ErrorInfo | undefined): void;
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

export interface RefactorDefaults {
    agent: string;
    tools: boolean;
    thinking: boolean;
}

let nextRefactor = 1;

/**
 * One quick refactor in a Monaco editor: an input at the selection, then the answer streaming
 * into an editable proposal under the original lines (removed lines marked in the editor, added
 * ones in the proposal). Accept replaces the lines in one undoable edit; Reject or Esc leaves the
 * file as it was — nothing is written before Accept. The refactor holds the state and the
 * request; RefactorZone places it in the editor and RefactorPanel draws its controls.
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

    protected readonly toDispose = new DisposableCollection();
    protected readonly block: RefactorBlock;
    protected readonly text: string;
    protected readonly cursor: number;
    protected readonly zone: RefactorZone;
    protected readonly root: Root;
    protected inputElement: HTMLInputElement | null = null;

    constructor(readonly editor: monaco.editor.ICodeEditor, protected readonly host: RefactorHost, defaults: RefactorDefaults) {
        const model = editor.getModel()!;
        this.text = model.getValue();
        const selection = editor.getSelection()!;
        const start = model.getOffsetAt(selection.getStartPosition());
        const end = model.getOffsetAt(selection.getEndPosition());
        this.cursor = model.getOffsetAt(selection.getPosition());
        this.block = blockAround(this.text, start === end ? cursorLine(this.text, start) : { start, end });
        this.agent = defaults.agent;
        this.tools = defaults.tools;
        this.thinking = defaults.thinking;
        this.zone = new RefactorZone(editor, this.id, this.text, this.block);

        // Ctrl+Enter and Esc belong to the refactor while the focus is in its editor or in the proposal,
        // before any editor binding (the proposal editor's own Ctrl+Enter inserts a line).
        const onKey = (event: KeyboardEvent) => this.onEditorKey(event);
        window.addEventListener('keydown', onKey, true);
        this.toDispose.push(Disposable.create(() => window.removeEventListener('keydown', onKey, true)));
        InlineRefactor.lastUsed = this;
        this.zone.node.addEventListener('pointerdown', () => { InlineRefactor.lastUsed = this; });
        this.zone.node.addEventListener('focusin', () => { InlineRefactor.lastUsed = this; });
        this.root = createRoot(this.zone.panelNode);
        this.toDispose.push(Disposable.create(() => this.root.unmount()));

        this.toDispose.push(this.host.subscribe(this.id, progress => this.onProgress(progress), pending => {
            this.permissions = [...this.permissions, pending];
            this.render();
        }));
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
        this.zone.showProposal('');
        const answer = await this.host.run(this, {
            id: this.id, instruction, agent: this.agent || undefined, tools: this.tools, thinking: this.thinking,
            text: this.text, selection: this.block.selection, cursor: this.cursor
        }).catch((error): RefactorAnswer => ({ error: { category: 'Network', message: `The QodeAssist backend did not answer: ${error instanceof Error ? error.message : String(error)}` } }));
        if (!this.isRunning()) {
            return; // Closed meanwhile.
        }
        this.answerPending('deny');
        if (answer.cancelled) {
            this.zone.showProposal(undefined);
            this.setPhase('input');
        } else if (answer.error || answer.text === undefined) {
            this.error = answer.error ?? { category: 'Provider', message: 'The refactor ended without a result.' };
            this.zone.showProposal(undefined);
            this.setPhase('failed');
        } else {
            this.zone.showProposal(proposedBlock(this.text, this.block, answer.text));
            this.zone.makeProposalEditable();
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
        const range = this.zone.blockRange();
        let replacement = this.zone.proposalValue();
        if (this.phase !== 'review' || replacement === undefined || !range) {
            return false;
        }
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
        this.zone.dispose();
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
                this.zone.showProposal(proposedBlock(this.text, this.block, item.text));
            }
        }
        this.render();
    }

    protected answerPending(answer: PermissionAnswer): void {
        for (const pending of this.permissions) {
            pending.answer(answer);
        }
        this.permissions = [];
    }

    protected readonly actions: RefactorPanelActions = {
        inputRef: element => { this.inputElement = element; },
        instructionChanged: instruction => { this.instruction = instruction; },
        setTools: tools => { this.tools = tools; this.render(); },
        setThinking: thinking => { this.thinking = thinking; this.render(); },
        setAgent: agent => { this.agent = agent; this.render(); },
        run: () => void this.start(),
        stop: () => void this.stop(),
        useInstruction: (instruction, run) => this.useInstruction(instruction, run),
        pickInstruction: () => void this.pick(),
        saveInstruction: () => void this.host.saveInstruction(this.instruction),
        accept: () => { this.accept(); },
        reject: () => this.reject(),
        answerPermission: (pending, answer) => {
            this.permissions = this.permissions.filter(candidate => candidate !== pending);
            pending.answer(answer);
            this.render();
        },
        errorAction: action => {
            if (action === 'open-settings') {
                this.host.openSettings(this.error);
            } else {
                void this.start();
            }
        }
    };

    protected render(): void {
        if (this.phase === 'closed') {
            return;
        }
        this.zone.markPhase(this.phase);
        this.root.render(<RefactorPanel actions={this.actions} state={{
            phase: this.phase, instruction: this.instruction, agent: this.agent, tools: this.tools, thinking: this.thinking,
            agentChoices: this.agentChoices, answeringAgent: this.answeringAgent, steps: this.steps, permissions: this.permissions,
            error: this.error, lastInstruction: this.host.lastInstruction()
        }} />);
        requestAnimationFrame(() => this.zone.layout());
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
