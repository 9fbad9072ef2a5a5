import { Command, CommandContribution, CommandRegistry, DisposableCollection, PreferenceService } from '@theia/core';
import { FrontendApplicationContribution, KeybindingContribution, KeybindingRegistry } from '@theia/core/lib/browser';
import { ContextKey, ContextKeyService } from '@theia/core/lib/browser/context-key-service';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import * as monaco from '@theia/monaco-editor-core';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { NextEditAnswer, QodeAssistCompletionService } from '../../common/completion-protocol';
import { QodeAssistPreferences } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { placeOf } from '../workspace-paths';
import { CompletionStatus } from './completion-status';
import { effectOfChange, SuggestionChain } from './next-edit-flow';
import { NextEditHistory } from './next-edit-history';
import { editDecorations, nextEditOn, offScreenHint, SuggestedEdit, tabAction } from './next-edit-view';

export namespace QodeAssistNextEditCommands {
    export const ACCEPT: Command = Command.toLocalizedCommand({ id: 'qodeassist.nextEdit.accept', category: 'QodeAssist', label: 'Jump to or Apply Next Edit' }, 'qodeassist/nextEdit/accept');
    export const DISMISS: Command = Command.toLocalizedCommand({ id: 'qodeassist.nextEdit.dismiss', category: 'QodeAssist', label: 'Dismiss Next Edit' }, 'qodeassist/nextEdit/dismiss');
    export const TOGGLE: Command = Command.toLocalizedCommand({ id: 'qodeassist.nextEdit.toggle', category: 'QodeAssist', label: 'Toggle Next Edit Suggestions' }, 'qodeassist/nextEdit/toggle');
}

/** True while a next edit is shown in the focused editor: Tab and Esc are ours then. */
export const NEXT_EDIT_VISIBLE = 'qodeassistNextEditVisible';

interface Shown {
    editor: monaco.editor.ICodeEditor;
    model: monaco.editor.ITextModel;
    version: number;
    edits: SuggestedEdit[];
    decorations: monaco.editor.IEditorDecorationsCollection;
    hint: monaco.editor.IOverlayWidget | undefined;
    listeners: DisposableCollection;
}

/**
 * Next edit suggestions in Monaco: after an edit pauses, the file's recent edits (its diff to the
 * text before them), the other files' recent edits and the cursor go to the backend; the answer is
 * drawn where it applies (struck text, ghost text, a gutter marker, a hint when out of view). Tab
 * jumps there, Tab again applies and asks for the next one at once (a bounded chain), Esc dismisses
 * and ends the chain; any other change to the file drops it. No request for a read-only editor, a
 * selection or several cursors; the backend refuses ignored and oversized files, and drops other
 * files' edits the model may not see.
 */
@injectable()
export class NextEditContribution implements FrontendApplicationContribution, CommandContribution, KeybindingContribution {
    @inject(QodeAssistCompletionService) protected readonly service: QodeAssistCompletionService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(PreferenceService) protected readonly preferenceService: PreferenceService;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(CompletionStatus) protected readonly status: CompletionStatus;
    @inject(ContextKeyService) protected readonly contextKeys: ContextKeyService;

    protected readonly toDispose = new DisposableCollection();
    protected visibleKey: ContextKey<boolean>;
    protected nextId = 1;
    /** Per model: the text before its recent edits, and when and where it was last edited. */
    protected readonly history = new NextEditHistory();
    protected readonly chain = new SuggestionChain();
    protected readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
    protected asking: { id: number; key: string } | undefined;
    protected shown: Shown | undefined;
    protected applying = false;

    @postConstruct()
    protected init(): void {
        this.visibleKey = this.contextKeys.createKey<boolean>(NEXT_EDIT_VISIBLE, false);
    }

    onStart(): void {
        const watch = (model: monaco.editor.ITextModel) => {
            // Only files: an output channel's or a diff view's model changes on its own, and is no edit of the user's.
            if (model.uri.scheme !== 'file') {
                return;
            }
            const key = model.uri.toString();
            this.history.opened(key, new URI(key).path.fsPath(), model.getValue());
            const listening = this.toDispose.push(model.onDidChangeContent(event => {
                const line = Math.min(...event.changes.map(change => change.range.startLineNumber)) - 1;
                this.history.changed(key, model.getValue(), Number.isFinite(line) ? line : 0, Date.now(), event.isFlush);
                this.changed(model, event.isFlush);
            }));
            const closing = model.onWillDispose(() => {
                listening.dispose();
                closing.dispose();
                this.history.closed(key);
                clearTimeout(this.timers.get(key));
                this.timers.delete(key);
                if (this.shown?.model === model) {
                    this.dismiss();
                }
            });
        };
        monaco.editor.getModels().forEach(watch);
        this.toDispose.push(monaco.editor.onDidCreateModel(watch));
        this.status.describeNextEdit(() => {
            const model = monaco.editor.getEditors().find(editor => editor.hasTextFocus() || editor.hasWidgetFocus())?.getModel();
            return model ? { language: model.getLanguageId(), on: nextEditOn(model.getLanguageId(), this.settings()) } : undefined;
        });
    }

    onStop(): void {
        this.dismiss();
        this.timers.forEach(timer => clearTimeout(timer));
        this.toDispose.dispose();
    }

    registerCommands(commands: CommandRegistry): void {
        commands.registerCommand(QodeAssistNextEditCommands.ACCEPT, { execute: () => this.accept(), isEnabled: () => this.shown !== undefined });
        commands.registerCommand(QodeAssistNextEditCommands.DISMISS, { execute: () => this.userDismiss(), isEnabled: () => this.shown !== undefined });
        commands.registerCommand(QodeAssistNextEditCommands.TOGGLE, {
            execute: () => this.preferenceService.updateValue('qodeassist.nextEdit.enabled', !this.preferences['qodeassist.nextEdit.enabled'])
        });
    }

    registerKeybindings(keybindings: KeybindingRegistry): void {
        // Registered after Monaco's: while a next edit is shown, Tab and Esc are its own; a completion's ghost text keeps Tab.
        keybindings.registerKeybinding({ command: QodeAssistNextEditCommands.ACCEPT.id, keybinding: 'tab', when: `${NEXT_EDIT_VISIBLE} && editorTextFocus && !inlineSuggestionVisible && !suggestWidgetVisible` });
        keybindings.registerKeybinding({ command: QodeAssistNextEditCommands.DISMISS.id, keybinding: 'esc', when: `${NEXT_EDIT_VISIBLE} && editorTextFocus` });
    }

    protected settings(): { enabled: boolean; disabledLanguages: string[] } {
        return { enabled: this.preferences['qodeassist.nextEdit.enabled'], disabledLanguages: this.preferences['qodeassist.nextEdit.disabledLanguages'] };
    }

    /**
     * A change to a file: what is shown or asked for it is stale now (unless it is our own apply), by
     * typing or anything else (a chat agent's write, a formatter, a reload), and the pause starts again.
     */
    protected changed(model: monaco.editor.ITextModel, reload: boolean): void {
        const effect = effectOfChange({ own: this.applying, reload });
        if (!effect.drop) {
            return;
        }
        this.chain.typed();
        if (this.shown?.model === model) {
            this.status.channel.appendLine(`${new Date().toISOString()} next edit dropped: the file changed under it`);
            this.dismiss();
        }
        const key = model.uri.toString();
        if (effect.cancel && this.asking?.key === key) {
            void this.service.cancelNextEdit(this.asking.id);
            this.asking = undefined;
        }
        clearTimeout(this.timers.get(key));
        if (!effect.ask || !nextEditOn(model.getLanguageId(), this.settings())) {
            return;
        }
        this.timers.set(key, setTimeout(() => {
            this.timers.delete(key);
            void this.ask(model);
        }, this.preferences['qodeassist.nextEdit.debounceMs']));
    }

    protected async ask(model: monaco.editor.ITextModel, chained = false): Promise<void> {
        const editor = monaco.editor.getEditors().find(candidate => candidate.getModel() === model && candidate.hasTextFocus());
        if (!editor || !this.wanted(editor, model)) {
            return;
        }
        const position = editor.getPosition()!;
        const path = new URI(model.uri.toString()).path.fsPath();
        const { workspacePath, project, relativePath } = placeOf(this.workspace, path);
        const key = model.uri.toString();
        const id = this.nextId++;
        const version = model.getVersionId();
        this.asking = { id, key };
        this.status.started();
        let answer: NextEditAnswer;
        try {
            answer = await this.service.nextEdit({
                id, workspacePath, project, file: path, relativePath, language: model.getLanguageId(), text: model.getValue(), offset: model.getOffsetAt(position),
                previous: this.history.baseline(key) ?? model.getValue(), version, useGitignore: this.preferences['qodeassist.tools.useGitignore'],
                otherEdits: this.history.otherEdits(key, Date.now())
            });
        } catch (error) {
            answer = { edits: [], version, elapsedMs: 0, error: { category: 'Network', message: `The QodeAssist backend did not answer: ${error instanceof Error ? error.message : String(error)}` } };
        }
        if (this.asking?.id === id) {
            this.asking = undefined;
        }
        const stale = !answer.cancelled && !model.isDisposed() && model.getVersionId() !== answer.version;
        const link = chained ? ` (chained ${this.chain.length})` : '';
        this.status.finished(`next edit #${id}${link} ${relativePath}: ${describe(answer)}${stale ? ' (stale: dropped)' : ''}`, answer.error);
        if (stale || answer.edits.length === 0 || model.isDisposed() || editor.getModel() !== model) {
            return;
        }
        this.show(editor, model, answer);
    }

    /** Only where the user could type the edit: a focused, writable editor with one cursor and no selection, QodeAssist on. */
    protected wanted(editor: monaco.editor.ICodeEditor, model: monaco.editor.ITextModel): boolean {
        if (this.qodeAssistSwitch.offReason || model.uri.scheme !== 'file' || editor.getOption(monaco.editor.EditorOption.readOnly)) {
            return false;
        }
        const selections = editor.getSelections() ?? [];
        return selections.length === 1 && selections[0].isEmpty();
    }

    protected show(editor: monaco.editor.ICodeEditor, model: monaco.editor.ITextModel, answer: NextEditAnswer): void {
        this.dismiss();
        const firstLine = model.getPositionAt(answer.edits[0].offset).lineNumber;
        const decorations = editor.createDecorationsCollection([
            ...editDecorations(answer.edits).map(drawn => ({
                range: monaco.Range.fromPositions(model.getPositionAt(drawn.start), model.getPositionAt(drawn.end)),
                options: {
                    ...drawn.end > drawn.start ? { inlineClassName: 'qa-next-edit-removed' } : {},
                    ...drawn.added ? { after: { content: drawn.added, inlineClassName: 'qa-next-edit-added' } } : {}
                }
            })),
            {
                range: new monaco.Range(firstLine, 1, firstLine, 1),
                options: { isWholeLine: true, linesDecorationsClassName: 'qa-next-edit-gutter', className: 'qa-next-edit-line' }
            }
        ]);
        const shown: Shown = { editor, model, version: answer.version, edits: answer.edits, decorations, hint: undefined, listeners: new DisposableCollection() };
        this.shown = shown;
        this.visibleKey.set(true);
        shown.listeners.push(editor.onDidScrollChange(() => this.updateHint()));
        shown.listeners.push(editor.onDidChangeModel(() => this.dismiss()));
        this.updateHint();
    }

    protected updateHint(): void {
        const shown = this.shown;
        if (!shown) {
            return;
        }
        const line = shown.model.getPositionAt(shown.edits[0].offset).lineNumber;
        const text = offScreenHint(line, shown.editor.getVisibleRanges().map(range => ({ start: range.startLineNumber, end: range.endLineNumber })));
        if (shown.hint) {
            shown.editor.removeOverlayWidget(shown.hint);
            shown.hint = undefined;
        }
        if (text) {
            const node = document.createElement('div');
            node.className = 'qa-next-edit-hint';
            node.textContent = text;
            shown.hint = { getId: () => 'qodeassist.nextEdit.hint', getDomNode: () => node, getPosition: () => ({ preference: monaco.editor.OverlayWidgetPositionPreference.BOTTOM_RIGHT_CORNER }) };
            shown.editor.addOverlayWidget(shown.hint);
        }
    }

    /** Tab: jump to the edit when the cursor is elsewhere, apply it when the cursor is on it. */
    protected accept(): void {
        const shown = this.shown;
        if (!shown || shown.model.isDisposed() || shown.model.getVersionId() !== shown.version) {
            this.dismiss();
            return;
        }
        const lines = shown.edits.map(edit => shown.model.getPositionAt(edit.offset).lineNumber);
        const action = tabAction(shown.editor.getPosition()?.lineNumber ?? 0, lines);
        if (action.kind === 'jump') {
            const target = shown.model.getPositionAt(shown.edits[lines.indexOf(action.line)].offset);
            shown.editor.setPosition(target);
            shown.editor.revealLineInCenterIfOutsideViewport(target.lineNumber);
            this.updateHint();
            return;
        }
        const operations = shown.edits.map(edit => ({
            range: monaco.Range.fromPositions(shown.model.getPositionAt(edit.offset), shown.model.getPositionAt(edit.offset + edit.length)), text: edit.text
        }));
        const last = shown.edits[shown.edits.length - 1];
        const end = last.offset + last.text.length + shown.edits.slice(0, -1).reduce((sum, edit) => sum + edit.text.length - edit.length, 0);
        this.applying = true;
        try {
            shown.editor.pushUndoStop();
            shown.editor.executeEdits('qodeassist.nextEdit', operations);
            shown.editor.pushUndoStop();
        } finally {
            this.applying = false;
        }
        this.dismiss();
        shown.editor.setPosition(shown.model.getPositionAt(end));
        // The edit just applied is the newest recent edit: the next one (a rename's next use) is asked for at once.
        if (this.chain.applied()) {
            clearTimeout(this.timers.get(shown.model.uri.toString()));
            void this.ask(shown.model, true);
        }
    }

    /** Esc: the suggestion goes, and so does the chain (and a chained ask under way for the file). */
    protected userDismiss(): void {
        this.chain.dismissed();
        const key = this.shown?.model.uri.toString();
        if (key && this.asking?.key === key) {
            void this.service.cancelNextEdit(this.asking.id);
            this.asking = undefined;
        }
        this.dismiss();
    }

    protected dismiss(): void {
        const shown = this.shown;
        if (!shown) {
            return;
        }
        this.shown = undefined;
        this.visibleKey.set(false);
        shown.decorations.clear();
        if (shown.hint) {
            shown.editor.removeOverlayWidget(shown.hint);
        }
        shown.listeners.dispose();
    }
}

function describe(answer: NextEditAnswer): string {
    const what = answer.cancelled ? 'cancelled' : answer.skipped ? `skipped: ${answer.skipped}` : answer.error ? 'failed'
        : `${answer.edits.length} edit${answer.edits.length === 1 ? '' : 's'}${answer.agent ? ` (${answer.agent})` : ''}`;
    return `${what} in ${answer.elapsedMs} ms`;
}
