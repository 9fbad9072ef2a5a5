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
import { CompletionContextCollector } from './completion-context-collector';
import { describeContext } from './completion-context-facts';
import { CompletionFiguresRecorder } from './completion-figures-recorder';
import { CompletionStatus, RESET_COMPLETION_FIGURES, SHOW_COMPLETION_LOG } from './completion-status';
import { TriggerSummary } from './completion-status-view';
import { asksAhead, leftBehind, triggerDecision, TriggerMode, triggerModeFor, triggerPlan } from './completion-trigger';
import { RequestBudget } from './request-budget';
import { isKeystroke, TypingRhythm } from './typing-rhythm';

export namespace QodeAssistCompletionCommands {
    export const TRIGGER: Command = Command.toLocalizedCommand({ id: 'qodeassist.completion.trigger', category: 'QodeAssist', label: 'Suggest Completion' }, 'qodeassist/completion/trigger');
    export const TOGGLE: Command = Command.toLocalizedCommand({ id: 'qodeassist.completion.toggle', category: 'QodeAssist', label: 'Toggle Code Completion' }, 'qodeassist/completion/toggle');
    export const SHOW_LOG: Command = Command.toLocalizedCommand({ id: SHOW_COMPLETION_LOG, category: 'QodeAssist', label: 'Show Completion Log' }, 'qodeassist/completion/showLog');
    export const RESET_FIGURES: Command = Command.toLocalizedCommand({ id: RESET_COMPLETION_FIGURES, category: 'QodeAssist', label: 'Reset Completion Figures' }, 'qodeassist/completion/resetFigures');
}

/** Once the user stopped typing for a moment, or abandoned the position (Monaco cancelled), the backend request goes too. */
const CANCEL_GRACE_MS = 100;
/** Larger files are not sent at every keystroke to look for a reusable answer; their requests still reuse one. */
const REUSE_PROBE_MAX_CHARS = 200_000;
const SUGGEST_KEY = 'Alt+\\';

/**
 * Ghost-text completion in every Monaco editor: the trigger policy (eager contexts, a debounce that
 * follows the typing rhythm, hint mode) and the editor facts (selections, open files, the language)
 * live here; the pipeline itself runs on the backend. At every keystroke the backend is first asked
 * for what costs no model request — the cache, or the request under way when the user types what it
 * will answer — and only then, after the plan's quiet time, for a new request.
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
    @inject(CompletionFiguresRecorder) protected readonly figures: CompletionFiguresRecorder;
    @inject(CompletionContextCollector) protected readonly completionContext: CompletionContextCollector;

    protected readonly toDispose = new DisposableCollection();
    protected readonly rhythm = new TypingRhythm();
    /** No more automatic requests than a debounce trigger at the configured debounce would send. */
    protected readonly budget = new RequestBudget();
    protected nextId = 1;
    /** Characters typed per model since its last request, for the typed-character threshold. */
    protected readonly typed = new Map<string, number>();
    /** When each model was last edited: the debounce is quiet time since the last keystroke, not since Monaco asked. */
    protected readonly editedAt = new Map<string, number>();
    /** The language the backend took each plaintext model for (by its file name). */
    protected readonly languages = new Map<string, string>();
    /** Per model, the automatic model request under way (its query id) and the line it was asked on. */
    protected readonly underWay = new Map<string, { id: number; line: number }>();

    onStart(): void {
        this.toDispose.push(monaco.languages.registerInlineCompletionsProvider('*', {
            displayName: 'QodeAssist',
            // Monaco's own debounce (50 ms) would come on top of ours: the reuse check runs at the keystroke, the plan waits.
            debounceDelayMs: 0,
            provideInlineCompletions: (model, position, context, token) => this.provide(model, position, context, token),
            handleItemDidShow: (_completions, item) => this.figures.didShow(item),
            handlePartialAccept: (_completions, item) => this.figures.didAccept(item),
            handleEndOfLifetime: (_completions, item, reason) => {
                if (reason.kind === monaco.languages.InlineCompletionEndOfLifeReasonKind.Accepted) {
                    this.figures.didAccept(item);
                }
            },
            disposeInlineCompletions: () => undefined
        }));
        const watch = (model: monaco.editor.ITextModel) => {
            const key = model.uri.toString();
            const listening = this.toDispose.push(model.onDidChangeContent(event => {
                const inserted = event.changes.reduce((sum, change) => sum + change.text.length, 0);
                this.typed.set(key, (this.typed.get(key) ?? 0) + inserted);
                const now = performance.now();
                this.editedAt.set(key, now);
                const typedInto = this.typedInto(model);
                if (typedInto) {
                    this.budget.edited(now, this.configuredDebounceMs());
                }
                this.completionContext.edited(model, event);
                if (isKeystroke(event, typedInto)) {
                    this.rhythm.keystroke(now);
                }
            }));
            // Models come and go with editors: forget each one when it goes.
            const closing = model.onWillDispose(() => {
                listening.dispose();
                closing.dispose();
                this.typed.delete(key);
                this.editedAt.delete(key);
                this.languages.delete(key);
            });
        };
        monaco.editor.getModels().forEach(watch);
        this.toDispose.push(monaco.editor.onDidCreateModel(watch));
        this.status.setEnabled(this.preferences['qodeassist.completion.enabled']);
        this.status.describeTrigger(() => this.triggerSummary());
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
        commands.registerCommand(QodeAssistCompletionCommands.RESET_FIGURES, {
            execute: () => this.figures.reset()
        });
    }

    registerKeybindings(keybindings: KeybindingRegistry): void {
        keybindings.registerKeybinding({ command: QodeAssistCompletionCommands.TRIGGER.id, keybinding: 'alt+\\', when: 'editorTextFocus && !editorReadonly' });
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
        const key = model.uri.toString();
        const lineBefore = line.slice(0, position.column - 1);
        const lineAfter = line.slice(position.column - 1);
        const planNow = () => {
            const timings = this.timings();
            return triggerPlan({
                mode: this.modeFor(this.languageOf(model)), explicit,
                context: triggerDecision(lineBefore, lineAfter),
                typed: this.typed.get(key) ?? 0, minTyped: this.preferences['qodeassist.completion.minTypedChars'],
                debounceMs: timings.debounceMs, eagerFloorMs: timings.eagerFloorMs,
                speculate: asksAhead(lineBefore, lineAfter) && this.budget.allows(performance.now(), this.configuredDebounceMs())
            });
        };
        let plan = planNow();
        // Asked ahead: this keystroke's text and position, for a request that goes even if the next key comes during the reuse check.
        const ahead = plan.ahead ? this.query(model, position) : undefined;
        if (plan.ahead) {
            this.replaceLeftBehind(key, position.lineNumber, lineBefore);
        }
        // An editor without a language extension says plaintext: the first answer for the file names its language, and its mode.
        const languageKnown = model.getLanguageId() !== 'plaintext' || this.languages.has(key);
        if ((plan.reuse || !languageKnown) && model.getValueLength() <= REUSE_PROBE_MAX_CHARS) {
            const probe = this.query(model, position, true);
            const answer = await this.send(model, probe, token);
            if (token.isCancellationRequested) {
                // The next key came first. A request asked ahead goes all the same unless the check found something to
                // reuse: the next keys type ahead into it, and it ends when none of them waits for it any more.
                if (ahead && plan.ahead && !answer.text && languageKnown) {
                    this.askAhead(model, ahead, token);
                }
                return none;
            }
            if (!languageKnown) {
                plan = planNow();
            }
            const reused = this.shown(model, probe, answer, token);
            if (reused && plan.reuse) {
                return reused;
            }
        }
        if (!plan.request) {
            return none;
        }
        // The language servers' definitions of the identifiers near the cursor, looked up while the quiet time runs.
        const definitions = this.completionContext.definitionsAt(model, position, token);
        const wait = plan.quietMs - (performance.now() - (this.editedAt.get(key) ?? 0));
        if (wait > 0 && !await quiet(wait, token)) {
            return none;
        }
        if (!explicit && !await this.spendBudget(token)) {
            return none;
        }
        this.typed.set(key, 0);
        const query = { ...ahead && model.getVersionId() === ahead.version ? ahead : this.query(model, position), definitions: await definitions.collect() };
        return await this.ask(model, query, token, !explicit) ?? none;
    }

    /** Sends a request asked ahead whose keystroke the editor already left (no ghost text of its own: the next keys reuse it). */
    protected askAhead(model: monaco.editor.ITextModel, query: CompletionQuery & { version: number }, token: monaco.CancellationToken): void {
        if (!this.budget.spend(performance.now(), this.configuredDebounceMs())) {
            return;
        }
        this.typed.set(model.uri.toString(), 0);
        void this.ask(model, query, token, true);
    }

    /**
     * A fresh line asks ahead: a request under way from the line the typist left gives way now (leftBehind), instead of
     * holding the fresh line's reuse check and request until it answers.
     */
    protected replaceLeftBehind(key: string, line: number, lineBefore: string): void {
        const running = this.underWay.get(key);
        if (running && leftBehind(running.line, line, lineBefore)) {
            this.underWay.delete(key);
            void this.service.cancel(running.id);
        }
    }

    /**
     * Takes one request from the budget; when it has none, waits until it grows (the quiet time reaching the configured
     * debounce, when a debounce trigger would ask too). False when the user typed on meanwhile.
     */
    protected async spendBudget(token: monaco.CancellationToken): Promise<boolean> {
        if (this.budget.spend(performance.now(), this.configuredDebounceMs())) {
            return true;
        }
        const grows = this.budget.growsIn(performance.now(), this.configuredDebounceMs());
        // One more millisecond: the timer and performance.now() need not agree to the millisecond.
        if (grows === undefined || !await quiet(grows + 1, token)) {
            return false;
        }
        return this.budget.spend(performance.now(), this.configuredDebounceMs());
    }

    /** An edit in a file the user types in (its editor has the focus): what restarts a debounce trigger's wait. */
    protected typedInto(model: monaco.editor.ITextModel): boolean {
        return model.uri.scheme === 'file' && monaco.editor.getEditors().some(editor => editor.getModel() === model && editor.hasTextFocus());
    }

    protected configuredDebounceMs(): number {
        return this.preferences['qodeassist.completion.debounceMs'];
    }

    /** The language completion takes a document for: the editor's, or (for plaintext) what the backend read from its file name. */
    protected languageOf(model: monaco.editor.ITextModel): string {
        const own = model.getLanguageId();
        return own === 'plaintext' ? this.languages.get(model.uri.toString()) ?? own : own;
    }

    /**
     * Sends one query; what comes back as ghost text, unless the document moved on meanwhile (no stale suggestion).
     * `budgeted`: its request was taken from the budget, given back when the backend answered without asking the model.
     */
    protected async ask(
        model: monaco.editor.ITextModel, query: CompletionQuery & { version: number }, token: monaco.CancellationToken, budgeted = false
    ): Promise<monaco.languages.InlineCompletions | undefined> {
        const key = model.uri.toString();
        if (budgeted) {
            // The line of the query's own text: a request asked ahead goes after the next key changed the model.
            this.underWay.set(key, { id: query.id, line: query.text.slice(0, query.offset).split('\n').length });
        }
        try {
            return this.shown(model, query, await this.send(model, query, token, budgeted), token);
        } finally {
            if (this.underWay.get(key)?.id === query.id) {
                this.underWay.delete(key);
            }
        }
    }

    /** Sends one query and accounts for its answer (the budget, the language, the log); never throws. */
    protected async send(
        model: monaco.editor.ITextModel, query: CompletionQuery & { version: number }, token: monaco.CancellationToken, budgeted = false
    ): Promise<CompletionAnswer> {
        // Cancelled when Monaco drops the position, a little later: the next keystroke's query may type ahead into this one's request.
        const cancel = token.onCancellationRequested(() => setTimeout(() => void this.service.cancel(query.id), CANCEL_GRACE_MS));
        if (!query.reuseOnly) {
            this.status.started();
        }
        let answer: CompletionAnswer;
        try {
            answer = await this.service.complete(query);
        } catch (error) {
            answer = { text: '', error: { category: 'Network', message: `The QodeAssist backend did not answer: ${error instanceof Error ? error.message : String(error)}` }, elapsedMs: 0 };
        } finally {
            cancel.dispose();
        }
        if (budgeted && (answer.source === 'cache' || answer.source === 'in-flight' || answer.skipped)) {
            this.budget.refund();
        }
        if (answer.language && !model.isDisposed()) {
            this.languages.set(model.uri.toString(), answer.language);
        }
        if (!query.reuseOnly) {
            this.status.finished(describe(query, answer), answer.error);
        } else if (answer.text) {
            this.status.channel.appendLine(`${new Date().toISOString()} ${describe(query, answer)}`);
        }
        return answer;
    }

    /** An answer as ghost text, unless the document moved on meanwhile or the editor left the position (no stale suggestion). */
    protected shown(
        model: monaco.editor.ITextModel, query: CompletionQuery & { version: number }, answer: CompletionAnswer, token: monaco.CancellationToken
    ): monaco.languages.InlineCompletions | undefined {
        if (!answer.text || token.isCancellationRequested || model.isDisposed() || model.getVersionId() !== query.version) {
            return undefined;
        }
        const position = model.getPositionAt(query.offset);
        const item: monaco.languages.InlineCompletion = { insertText: answer.text, range: monaco.Range.fromPositions(position, position) };
        this.figures.register(item, { uri: model.uri.toString(), offset: query.offset, text: answer.text, language: this.languageOf(model), agent: answer.agent ?? 'unknown' });
        return { items: [item] };
    }

    /** No request for a disabled feature, an ignored scheme, several cursors or a selection, or AI turned off in the IDE. */
    protected wanted(model: monaco.editor.ITextModel, explicit: boolean): boolean {
        if (!explicit && !this.preferences['qodeassist.completion.enabled']) {
            return false;
        }
        if (this.qodeAssistSwitch.offReason || model.uri.scheme !== 'file') {
            return false;
        }
        const editor = monaco.editor.getEditors().find(candidate => candidate.getModel() === model && candidate.hasTextFocus());
        const selections = editor?.getSelections() ?? [];
        return selections.length <= 1 && !(selections[0] && !selections[0].isEmpty());
    }

    protected modeFor(language: string): TriggerMode {
        return triggerModeFor(language, {
            trigger: this.preferences['qodeassist.completion.trigger'],
            languages: this.preferences['qodeassist.completion.languages'] ?? {},
            disabledLanguages: this.preferences['qodeassist.completion.disabledLanguages']
        });
    }

    protected timings(): ReturnType<TypingRhythm['timings']> {
        return this.rhythm.timings(this.preferences['qodeassist.completion.debounceMs'], this.preferences['qodeassist.completion.adaptiveDebounce']);
    }

    protected triggerSummary(): TriggerSummary {
        const timings = this.timings();
        const mode = this.preferences['qodeassist.completion.trigger'];
        const overrides: Record<string, string> = {};
        for (const language of this.preferences['qodeassist.completion.disabledLanguages']) {
            overrides[language] = 'off';
        }
        for (const language of Object.keys(this.preferences['qodeassist.completion.languages'] ?? {})) {
            overrides[language] = this.modeFor(language);
        }
        for (const [language, own] of Object.entries(overrides)) {
            if (own === mode) {
                delete overrides[language];
            }
        }
        const budget = { ...this.budget.figures(performance.now(), this.configuredDebounceMs()), configuredMs: this.configuredDebounceMs() };
        return { mode, ...timings, overrides, key: SUGGEST_KEY, budget };
    }

    protected query(model: monaco.editor.ITextModel, position: monaco.Position, reuseOnly = false): CompletionQuery & { version: number } {
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
            openFiles: budget > 0 && !reuseOnly ? openEditorFiles(this.editors, model.uri.toString(), budget) : undefined,
            settings: {
                linesBefore: this.preferences['qodeassist.completion.linesBefore'],
                linesAfter: this.preferences['qodeassist.completion.linesAfter'],
                wholeFile: this.preferences['qodeassist.completion.wholeFile'],
                prose: this.preferences['qodeassist.completion.prose'],
                lines: this.preferences['qodeassist.completion.lines'],
                openFilesBudget: budget,
                useGitignore: this.preferences['qodeassist.tools.useGitignore'],
                contextTokens: this.preferences['qodeassist.completion.contextTokens']
            },
            ...reuseOnly ? {} : this.completionContext.facts(model),
            reuseOnly: reuseOnly || undefined
        };
    }
}

function describe(query: CompletionQuery, answer: CompletionAnswer): string {
    const what = answer.cancelled ? 'cancelled' : answer.skipped ? `skipped: ${answer.skipped}` : `${answer.text.length} chars from ${answer.source}${answer.agent ? ` (${answer.agent})` : ''}`;
    return `#${query.id} ${query.relativePath}:${query.offset} ${what} in ${answer.elapsedMs} ms${describeContext(answer)}`;
}

/** Waits `ms`; false when the editor gave up on the position meanwhile (the user typed on). */
function quiet(ms: number, token: monaco.CancellationToken): Promise<boolean> {
    return new Promise(resolve => {
        const timer = setTimeout(() => {
            listener.dispose();
            resolve(!token.isCancellationRequested);
        }, ms);
        const listener = token.onCancellationRequested(() => {
            clearTimeout(timer);
            listener.dispose();
            resolve(false);
        });
    });
}
