import URI from '@theia/core/lib/common/uri';
import { inject, injectable } from '@theia/core/shared/inversify';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import * as monaco from '@theia/monaco-editor-core';
import { Location, LocationLink } from '@theia/monaco-editor-core/esm/vs/editor/common/languages';
import { ITextModel } from '@theia/monaco-editor-core/esm/vs/editor/common/model';
import { ILanguageFeaturesService } from '@theia/monaco-editor-core/esm/vs/editor/common/services/languageFeatures';
import { StandaloneServices } from '@theia/monaco-editor-core/esm/vs/editor/standalone/browser/standaloneServices';
import { CompletionQuery } from '../../common/completion-protocol';
import { identifiersNear } from './completion-context-facts';
import { RecentEdits } from './recent-edits';

/** How long the definition providers may take in all, from when the position was asked for. */
const LOOKUP_MS = 250;
/** How long a request still waits, once it is due, for definitions under way: a slow language server costs at most this. */
const GRACE_MS = 20;
const MAX_RECENT_EDITS = 5;
const MAX_RECENT_FILES = 8;

/** Definitions being looked up for one position: what has arrived, and a way to wait briefly for the rest. */
export interface PendingDefinitions {
    /** What arrived, after waiting at most a short grace for providers still under way. */
    collect(): Promise<NonNullable<CompletionQuery['definitions']>>;
}

/**
 * The editor facts a completion request carries for its cross-file context: recently edited
 * regions (tracked here from every model change: only the browser sees keystrokes), the open
 * editors' files, and what the editor's definition providers (language servers) answer for the
 * identifiers near the cursor. The lookup starts when the position is asked for and runs while the
 * debounce waits; the request waits at most GRACE_MS more, and the backend's lexical fallback
 * fills in whatever a slow or absent language server did not answer.
 */
@injectable()
export class CompletionContextCollector {
    @inject(EditorManager) protected readonly editors: EditorManager;
    protected readonly edits = new RecentEdits();

    /** After a change of a model's content (file models only). */
    edited(model: monaco.editor.ITextModel, event: monaco.editor.IModelContentChangedEvent): void {
        if (model.uri.scheme !== 'file' || event.isFlush) {
            return;
        }
        const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => model.getLineContent(from + i + 1));
        this.edits.record(pathOf(model.uri), event.changes, lines, model.getLineCount());
    }

    /** The recent edits and the open editors' files a request at this model carries. */
    facts(model: monaco.editor.ITextModel): Pick<CompletionQuery, 'recentEdits' | 'recentFiles'> {
        const current = model.uri.toString();
        const recentFiles = this.editors.all
            .map(widget => widget.editor.uri)
            .filter(uri => uri.scheme === 'file' && uri.toString() !== current)
            .slice(0, MAX_RECENT_FILES)
            .map(uri => uri.path.fsPath());
        return { recentEdits: this.edits.newest(MAX_RECENT_EDITS), recentFiles };
    }

    /** Starts asking the definition providers about the identifiers near `position`. */
    definitionsAt(model: monaco.editor.ITextModel, position: monaco.Position, token: monaco.CancellationToken): PendingDefinitions {
        const found: NonNullable<CompletionQuery['definitions']> = [];
        const registry = StandaloneServices.get(ILanguageFeaturesService).definitionProvider;
        const internal = model as unknown as ITextModel;
        if (!registry.has(internal)) {
            return { collect: async () => found };
        }
        const source = new monaco.CancellationTokenSource(token);
        const timer = setTimeout(() => source.cancel(), LOOKUP_MS);
        const current = model.uri.toString();
        const asks = identifiersNear(model, position).map(async ({ name, lineNumber, column }) => {
            for (const provider of registry.ordered(internal)) {
                try {
                    const answer = await provider.provideDefinition(internal, new monaco.Position(lineNumber, column), source.token);
                    for (const location of ([] as Array<Location | LocationLink>).concat(answer ?? [])) {
                        const range = 'targetSelectionRange' in location && location.targetSelectionRange ? location.targetSelectionRange : location.range;
                        const uri = location.uri;
                        if (uri.scheme === 'file' && uri.toString() !== current && !found.some(item => item.path === pathOf(uri) && item.line === range.startLineNumber - 1)) {
                            found.push({ path: pathOf(uri), line: range.startLineNumber - 1, symbol: name });
                        }
                    }
                } catch {
                    // A provider that fails or is cancelled answers nothing; the lexical fallback remains.
                }
            }
        });
        const settled = Promise.all(asks).finally(() => {
            clearTimeout(timer);
            source.dispose();
        });
        return {
            collect: async () => {
                await Promise.race([settled, new Promise(resolve => setTimeout(resolve, GRACE_MS))]);
                return [...found];
            }
        };
    }
}

function pathOf(uri: { toString(): string }): string {
    return new URI(uri.toString()).path.fsPath();
}
