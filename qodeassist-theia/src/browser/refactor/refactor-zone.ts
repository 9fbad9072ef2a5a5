import { Disposable, DisposableCollection } from '@theia/core';
import * as monaco from '@theia/monaco-editor-core';
import { changedLines, RefactorBlock } from './refactor-block';

/**
 * Where an inline refactor sits in its editor: a view zone under the block's lines, the panel
 * floating over it, the proposal editor below the panel, and the diff marks (removed lines in the
 * editor, added ones in the proposal). The zone follows the block as the document changes.
 */
export class RefactorZone implements Disposable {
    /** The panel's React root goes here. */
    readonly panelNode = document.createElement('div');
    /** The panel, an overlay widget kept at the zone's top. */
    readonly node = document.createElement('div');
    protected readonly content = document.createElement('div');
    protected readonly proposalNode = document.createElement('div');
    /** The view zone's node: it only keeps the lines apart, the panel floats over it (a zone does not get the mouse). */
    protected readonly spacerNode = document.createElement('div');
    protected readonly original: string;
    /** Follows the block's lines as the document changes around them. */
    protected readonly tracked: monaco.editor.IEditorDecorationsCollection;
    protected readonly removedLines: monaco.editor.IEditorDecorationsCollection;
    protected readonly toDispose = new DisposableCollection();
    protected disposed = false;
    protected zoneId: string | undefined;
    protected zoneHeight = 0;
    protected proposal: monaco.editor.IStandaloneCodeEditor | undefined;
    protected proposalText = '';
    protected addedLines: monaco.editor.IEditorDecorationsCollection | undefined;

    protected readonly overlay: monaco.editor.IOverlayWidget = {
        getId: () => `qodeassist.refactor.${this.id}`,
        getDomNode: () => this.node,
        getPosition: () => null
    };

    constructor(protected readonly editor: monaco.editor.ICodeEditor, protected readonly id: string, text: string, protected readonly block: RefactorBlock) {
        this.original = text.slice(block.start, block.end);
        this.tracked = editor.createDecorationsCollection([{ range: rangeOf(this.model, block.start, block.end), options: { stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges } }]);
        this.removedLines = editor.createDecorationsCollection();
        this.toDispose.push(Disposable.create(() => {
            this.tracked.clear();
            this.removedLines.clear();
        }));

        this.node.className = 'qa-refactor-zone';
        this.content.className = 'qa-refactor';
        this.content.dataset.refactor = id;
        this.proposalNode.className = 'qa-refactor-proposal';
        this.content.append(this.panelNode, this.proposalNode);
        this.node.append(this.content);
        // Keys typed here are the refactor's, not the editor's underneath.
        for (const type of ['keydown', 'keypress', 'keyup'] as const) {
            this.node.addEventListener(type, event => event.stopPropagation());
        }
        const resize = new ResizeObserver(() => this.layout());
        resize.observe(this.content);
        this.toDispose.push(Disposable.create(() => resize.disconnect()));
        this.toDispose.push(editor.onDidLayoutChange(() => this.layout()));
        this.editor.addOverlayWidget(this.overlay);
        this.placeZone(80);
    }

    protected get model(): monaco.editor.ITextModel {
        return this.editor.getModel()!;
    }

    /** The refactor's phase as `data-phase`, which the styles and the tests read. */
    markPhase(phase: string): void {
        this.content.dataset.phase = phase;
    }

    /** The block's lines where they are now, if the document still has them. */
    blockRange(): monaco.Range | null {
        return this.tracked.getRange(0);
    }

    /** The proposal as it reads now, the user's edits included; undefined when none is shown. */
    proposalValue(): string | undefined {
        return this.proposal?.getValue();
    }

    /** Lets the user edit the proposal before accepting it. */
    makeProposalEditable(): void {
        this.proposal?.updateOptions({ readOnly: false });
    }

    /** Shows the proposal (undefined: hides it) and marks what changed on both sides. */
    showProposal(text: string | undefined): void {
        if (text === undefined) {
            this.proposal?.getModel()?.dispose();
            this.proposal?.dispose();
            this.proposal = undefined;
            this.proposalText = '';
            this.removedLines.clear();
            this.layout();
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

    /** Sizes the proposal editor to its lines (up to 25), the panel to the editor's width, and the zone to the panel. */
    layout(): void {
        if (this.disposed || !this.zoneId) {
            return;
        }
        const layout = this.editor.getLayoutInfo();
        const width = Math.max(200, layout.contentWidth - layout.verticalScrollbarWidth - 16);
        this.node.style.left = `${layout.contentLeft}px`;
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

    dispose(): void {
        if (this.disposed) {
            return;
        }
        this.disposed = true;
        if (this.zoneId) {
            const id = this.zoneId;
            this.editor.changeViewZones(accessor => accessor.removeZone(id));
        }
        this.editor.removeOverlayWidget(this.overlay);
        this.proposal?.getModel()?.dispose();
        this.proposal?.dispose();
        this.toDispose.dispose();
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
            this.layout();
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
        this.layout();
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
                onDomNodeTop: top => { this.node.style.top = `${top}px`; }
            });
        });
        this.zoneHeight = height;
    }
}

function rangeOf(model: monaco.editor.ITextModel, start: number, end: number): monaco.Range {
    return monaco.Range.fromPositions(model.getPositionAt(start), model.getPositionAt(end));
}
