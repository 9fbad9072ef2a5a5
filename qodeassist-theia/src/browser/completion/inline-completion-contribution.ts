import { Command, CommandContribution, CommandRegistry, DisposableCollection, PreferenceService } from '@theia/core';
import { FrontendApplicationContribution, KeybindingContribution, KeybindingRegistry } from '@theia/core/lib/browser';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable } from '@theia/core/shared/inversify';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import * as monaco from '@theia/monaco-editor-core';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { CompletionAnswer, CompletionQuery, QodeAssistCompletionService } from '../../common/completion-protocol';
import { openEditorFiles } from '../open-editors';
import { QodeAssistPreferences } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { placeOf } from '../workspace-paths';
import { CompletionStatus, SHOW_COMPLETION_LOG } from './completion-status';
import { triggerDecision } from './completion-trigger';

export namespace QodeAssistCompletionCommands {
    export const TRIGGER: Command = Command.toLocalizedCommand({ id: 'qodeassist.completion.trigger', category: 'QodeAssist', label: 'Suggest Completion Now' }, 'qodeassist/completion/trigger');
    export const TOGGLE: Command = Command.toLocalizedCommand({ id: 'qodeassist.completion.toggle', category: 'QodeAssist', label: 'Toggle Code Completion' }, 'qodeassist/completion/toggle');
    export const SHOW_LOG: Command = Command.toLocalizedCommand({ id: SHOW_COMPLETION_LOG, category: 'QodeAssist', label: 'Show Completion Log' }, 'qodeassist/completion/showLog');
}

/** Once the user stopped typing for a moment, or abandoned the position (Monaco cancelled), the backend request goes too. */
const CANCEL_GRACE_MS = 100;

/**
 * Ghost-text completion in every Monaco editor: the trigger policy and the editor facts
 * (selections, open files, the language) live here; the pipeline itself runs on the backend.
 */
@injectable()
export class InlineCompletionContribution implements FrontendApplicationContribution, CommandContribution, KeybindingContribution {
    @inject(QodeAssistCompletionService) protected readonly service: QodeAssistCompletionService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(PreferenceService) protected readonly preferenceService: PreferenceService;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(EditorManager) protected readonly editors: EditorManager;
    @inject(CompletionStatus) protected readonly status: CompletionStatus;

    protected readonly toDispose = new DisposableCollection();
    protected nextId = 1;
    protected latestSent = 0;
    /** Characters typed per model since its last request, for the typed-character threshold. */
    protected readonly typed = new Map<string, number>();
    /** When each model was last edited: the debounce is quiet time since the last keystroke, not since Monaco asked. */
    protected readonly editedAt = new Map<string, number>();

    onStart(): void {
        this.toDispose.push(monaco.languages.registerInlineCompletionsProvider('*', {
            displayName: 'QodeAssist',
            provideInlineCompletions: (model, position, context, token) => this.provide(model, position, context, token),
            disposeInlineCompletions: () => undefined
        }));
        const watch = (model: monaco.editor.ITextModel) => {
            const key = model.uri.toString();
            const listening = this.toDispose.push(model.onDidChangeContent(event => {
                const inserted = event.changes.reduce((sum, change) => sum + change.text.length, 0);
                this.typed.set(key, (this.typed.get(key) ?? 0) + inserted);
                this.editedAt.set(key, performance.now());
            }));
            // Models come and go with editors: forget each one when it goes.
            const closing = model.onWillDispose(() => {
                listening.dispose();
                closing.dispose();
                this.typed.delete(key);
                this.editedAt.delete(key);
            });
        };
        monaco.editor.getModels().forEach(watch);
        this.toDispose.push(monaco.editor.onDidCreateModel(watch));
        this.status.setEnabled(this.preferences['qodeassist.completion.enabled']);
        this.toDispose.push(this.preferences.onPreferenceChanged(change => {
            if (change.preferenceName === 'qodeassist.completion.enabled') {
                this.status.setEnabled(this.preferences['qodeassist.completion.enabled']);
            }
        }));
    }

    onStop(): void {
        this.toDispose.dispose();
    }

    registerCommands(commands: CommandRegistry): void {
        commands.registerCommand(QodeAssistCompletionCommands.TRIGGER, {
            execute: () => commands.executeCommand('editor.action.inlineSuggest.trigger')
        });
        commands.registerCommand(QodeAssistCompletionCommands.TOGGLE, {
            execute: () => this.preferenceService.updateValue('qodeassist.completion.enabled', !this.preferences['qodeassist.completion.enabled'])
        });
        commands.registerCommand(QodeAssistCompletionCommands.SHOW_LOG, {
            execute: () => this.status.channel.show({ preserveFocus: true })
        });
    }

    registerKeybindings(keybindings: KeybindingRegistry): void {
        keybindings.registerKeybinding({ command: 'editor.action.inlineSuggest.trigger', keybinding: 'alt+\\', when: 'editorTextFocus && !editorReadonly' });
        keybindings.registerKeybinding({ command: 'editor.action.inlineSuggest.acceptNextLine', keybinding: 'ctrlcmd+alt+right', when: 'inlineSuggestionVisible && editorTextFocus' });
    }

    protected async provide(
        model: monaco.editor.ITextModel, position: monaco.Position, context: monaco.languages.InlineCompletionContext, token: monaco.CancellationToken
    ): Promise<monaco.languages.InlineCompletions> {
        const none = { items: [] };
        const explicit = context.triggerKind === monaco.languages.InlineCompletionTriggerKind.Explicit;
        if (!this.wanted(model, explicit)) {
            return none;
        }
        const line = model.getLineContent(position.lineNumber);
        const decision = triggerDecision(line.slice(0, position.column - 1), line.slice(position.column - 1));
        const key = model.uri.toString();
        if (!explicit) {
            if (decision === 'suppress') {
                return none;
            }
            if (decision === 'normal' && (this.typed.get(key) ?? 0) < this.preferences['qodeassist.completion.minTypedChars']) {
                return none;
            }
            // Monaco asks only after its own short debounce: wait just what is left of ours since the last keystroke.
            const quiet = performance.now() - (this.editedAt.get(key) ?? 0);
            await delay(Math.max(0, this.preferences['qodeassist.completion.debounceMs'] - quiet));
            if (token.isCancellationRequested) {
                return none;
            }
        }
        const query = this.query(model, position);
        this.typed.set(key, 0);
        this.latestSent = query.id;
        const cancel = token.onCancellationRequested(() => setTimeout(() => {
            if (this.latestSent === query.id) {
                void this.service.cancel(query.id);
            }
        }, CANCEL_GRACE_MS));
        this.status.started();
        let answer: CompletionAnswer;
        try {
            answer = await this.service.complete(query);
        } catch (error) {
            answer = { text: '', error: { category: 'Network', message: `The QodeAssist backend did not answer: ${error instanceof Error ? error.message : String(error)}` }, elapsedMs: 0 };
        } finally {
            cancel.dispose();
        }
        this.status.finished(describe(query, answer), answer.error);
        const version = model.getVersionId();
        if (!answer.text || token.isCancellationRequested || model.isDisposed() || version !== query.version) {
            return none;
        }
        return {
            items: [{
                insertText: answer.text,
                range: new monaco.Range(position.lineNumber, position.column, position.lineNumber, position.column)
            }]
        };
    }

    /** No request for a disabled language or feature, an ignored scheme, several cursors or a selection, or AI turned off in the IDE. */
    protected wanted(model: monaco.editor.ITextModel, explicit: boolean): boolean {
        if (!explicit && !this.preferences['qodeassist.completion.enabled']) {
            return false;
        }
        if (this.qodeAssistSwitch.offReason) {
            return false;
        }
        if (model.uri.scheme !== 'file' || this.preferences['qodeassist.completion.disabledLanguages'].includes(model.getLanguageId())) {
            return false;
        }
        const editor = monaco.editor.getEditors().find(candidate => candidate.getModel() === model && candidate.hasTextFocus());
        const selections = editor?.getSelections() ?? [];
        return selections.length <= 1 && !(selections[0] && !selections[0].isEmpty());
    }

    protected query(model: monaco.editor.ITextModel, position: monaco.Position): CompletionQuery & { version: number } {
        const path = new URI(model.uri.toString()).path.fsPath();
        const { workspacePath, project, relativePath } = placeOf(this.workspace, path);
        const budget = this.preferences['qodeassist.completion.openFilesTokens'];
        return {
            id: this.nextId++,
            version: model.getVersionId(),
            workspacePath,
            project,
            file: path,
            relativePath,
            language: model.getLanguageId(),
            text: model.getValue(),
            offset: model.getOffsetAt(position),
            openFiles: budget > 0 ? openEditorFiles(this.editors, model.uri.toString(), budget) : undefined,
            settings: {
                linesBefore: this.preferences['qodeassist.completion.linesBefore'],
                linesAfter: this.preferences['qodeassist.completion.linesAfter'],
                wholeFile: this.preferences['qodeassist.completion.wholeFile'],
                prose: this.preferences['qodeassist.completion.prose'],
                lines: this.preferences['qodeassist.completion.lines'],
                openFilesBudget: budget,
                useGitignore: this.preferences['qodeassist.tools.useGitignore']
            }
        };
    }
}

function describe(query: CompletionQuery, answer: CompletionAnswer): string {
    const what = answer.cancelled ? 'cancelled' : answer.skipped ? `skipped: ${answer.skipped}` : `${answer.text.length} chars from ${answer.source}${answer.agent ? ` (${answer.agent})` : ''}`;
    return `#${query.id} ${query.relativePath}:${query.offset} ${what} in ${answer.elapsedMs} ms`;
}

function delay(ms: number): Promise<void> {
    return new Promise(resolve => setTimeout(resolve, ms));
}
