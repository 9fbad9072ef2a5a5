import { StorageService } from '@theia/core/lib/browser';
import { inject, injectable, postConstruct, preDestroy } from '@theia/core/shared/inversify';
import * as monaco from '@theia/monaco-editor-core';
import { AcceptanceFigures, TrackedText } from './acceptance-figures';
import { CompletionFigures } from './completion-figures';
import { continuesShown, ShownSuggestion, SuggestionChain } from './suggestion-chain';

/**
 * The storage key of the figures. They live in this browser's storage (Theia's StorageService: localStorage), not in a
 * backend file: the backend is the side that talks to providers, and these counts never cross the connection to it.
 */
export const FIGURES_STORAGE_KEY = 'qodeassist.completion.figures';

/** What the provider knows of an item it returned. */
export interface SuggestionItemInfo {
    uri: string;
    offset: number;
    text: string;
    language: string;
    agent: string;
}

/**
 * Feeds the acceptance figures from Monaco's inline-completion callbacks: an item shown (once per
 * suggestion), accepted wholly or a part at a time (tracked by a decoration that follows edits), and
 * looked at again 30 s later.
 */
@injectable()
export class CompletionFiguresRecorder {
    @inject(StorageService) protected readonly storage: StorageService;

    protected figuresStore: AcceptanceFigures;
    protected readonly items = new WeakMap<object, SuggestionItemInfo & { chain?: SuggestionChain }>();
    protected lastShown: ShownSuggestion | undefined;

    @postConstruct()
    protected init(): void {
        this.figuresStore = new AcceptanceFigures({
            read: () => this.storage.getData<unknown>(FIGURES_STORAGE_KEY),
            write: figures => this.storage.setData(FIGURES_STORAGE_KEY, figures)
        });
        window.addEventListener('beforeunload', () => void this.figuresStore.flush());
    }

    @preDestroy()
    protected dispose(): void {
        this.figuresStore.dispose();
    }

    onChange(listener: () => void): { dispose(): void } {
        return this.figuresStore.onChange(listener);
    }

    figures(): Promise<CompletionFigures> {
        return this.figuresStore.figures();
    }

    get pendingChecks(): number {
        return this.figuresStore.pendingChecks;
    }

    reset(): Promise<void> {
        this.lastShown = undefined;
        return this.figuresStore.reset();
    }

    /** An item the provider returns; the callbacks below know it by identity. */
    register(item: object, info: SuggestionItemInfo): void {
        this.items.set(item, info);
    }

    didShow(item: object): void {
        const info = this.items.get(item);
        const model = info && monaco.editor.getModel(monaco.Uri.parse(info.uri));
        if (!info || !model || info.chain) {
            return;
        }
        const previous = this.lastShown;
        const typed = previous && previous.uri === info.uri && info.offset >= previous.offset && info.offset <= model.getValueLength()
            ? model.getValueInRange(rangeOf(model, previous.offset, info.offset)) : undefined;
        if (previous && continuesShown(previous, info, typed)) {
            info.chain = previous.chain;
        } else {
            info.chain = { language: info.language, agent: info.agent };
            this.figuresStore.shown(info.language, info.agent);
        }
        this.lastShown = { uri: info.uri, offset: info.offset, text: info.text, chain: info.chain };
    }

    /** Accepted, wholly or in part: the accepted text runs from where the suggestion's first accepted part began to the cursor. */
    didAccept(item: object): void {
        const info = this.items.get(item);
        const model = info && monaco.editor.getModel(monaco.Uri.parse(info.uri));
        const editor = model && monaco.editor.getEditors().find(candidate => candidate.getModel() === model);
        const cursor = editor?.getPosition();
        if (!info || !model || !cursor) {
            return;
        }
        const chain = info.chain ?? { language: info.language, agent: info.agent };
        info.chain = chain;
        const from = chain.acceptedFrom ?? info.offset;
        const to = model.getOffsetAt(cursor);
        if (to <= from) {
            return;
        }
        chain.acceptedFrom = from;
        const range = rangeOf(model, from, to);
        this.figuresStore.accepted(chain, chain.language, chain.agent, model.getValueInRange(range), trackRange(model, range));
    }
}

function rangeOf(model: monaco.editor.ITextModel, from: number, to: number): monaco.Range {
    return monaco.Range.fromPositions(model.getPositionAt(from), model.getPositionAt(to));
}

/** A decoration over the accepted text that follows edits around it (and does not grow when typing at its edges). */
function trackRange(model: monaco.editor.ITextModel, range: monaco.Range): TrackedText {
    const [id] = model.deltaDecorations([], [{ range, options: { stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges } }]);
    let last: string | undefined;
    const read = () => {
        const now = model.getDecorationRange(id);
        return now ? model.getValueInRange(now) : undefined;
    };
    // The editor may close within the 30 s: the text it had then is what counts.
    const closing = model.onWillDispose(() => { last = read(); });
    return {
        read: () => model.isDisposed() ? last : read(),
        dispose: () => {
            closing.dispose();
            if (!model.isDisposed()) {
                model.deltaDecorations([id], []);
            }
        }
    };
}
