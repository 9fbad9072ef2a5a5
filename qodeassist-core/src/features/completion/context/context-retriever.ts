import { performance } from 'node:perf_hooks';
import { CancelledError } from '../../../wire/error-info';
import { ContextSnippetRecord, DefinitionLocation, RecentEdit, RepoFile, sourceFamily } from './context-snippet';
import { DEFAULT_DEFINITIONS, DefinitionsOptions, findDefinitions } from './definitions';
import { DEFAULT_RECENT_EDITS, recentEditSnippets, RecentEditsOptions } from './recent-edits';
import { DEFAULT_SIMILAR, NeighbourFile, similarSnippets, SimilarOptions, tokenWindows } from './similar-snippets';
import { DEFAULT_SHARES, fitSnippets, repoFilesOf } from './snippet-budget';
import { ContextFileAccess, SourceFileCache } from './source-files';

/** What a completion knows beyond its cursor window, and how much of it may go to the model. */
export interface ContextRequest {
    /** Absolute path of the file being edited. */
    file: string;
    language: string;
    text: string;
    offset: number;
    /** The prefix and suffix the request sends: snippets they already show are left out. */
    around: { prefix: string; suffix: string };
    /** Tokens for all snippets together; 0: none. */
    budget: number;
    /** Which files may be read and shown; without it nothing is read from disk. */
    access?: ContextFileAccess;
    /** The IDE's definition providers' answers for identifiers near the cursor. */
    definitions?: readonly DefinitionLocation[];
    /** Regions edited lately, the newest first. */
    recentEdits?: readonly RecentEdit[];
    /** Absolute paths of open and recently used files, most recent first: read (through the cache) for similar code. */
    recentFiles?: readonly string[];
    /** Open editors' text as the IDE has it (unsaved changes included), workspace-relative paths. */
    openFiles?: ReadonlyArray<{ path: string; content: string }>;
}

export interface ContextRetrieval {
    repoFiles: RepoFile[];
    /** Every snippet sent, with its tokens: the completion log and the manifest list them. */
    records: ContextSnippetRecord[];
    /** Milliseconds the retrieval took. */
    elapsedMs: number;
    duplicates: number;
    overBudget: number;
}

export interface RetrieverOptions {
    definitions: DefinitionsOptions;
    recentEdits: RecentEditsOptions;
    similar: SimilarOptions;
    /** Recently used files read for similar code at most. */
    maxRecentFiles: number;
    /** Milliseconds after which recently used files are no longer read from disk for this request (they are, in the background, for the next). */
    recentFilesDeadlineMs: number;
}

export const DEFAULT_RETRIEVER: RetrieverOptions = {
    definitions: DEFAULT_DEFINITIONS, recentEdits: DEFAULT_RECENT_EDITS, similar: DEFAULT_SIMILAR, maxRecentFiles: 8, recentFilesDeadlineMs: 12
};

/**
 * The completion's cross-file context: definitions of the symbols around the cursor, recently
 * edited regions and similar code from neighbouring files, deduplicated against the cursor window
 * and fitted into a token budget. Its file cache lives as long as the engine, so the same few files
 * are not read again on every keystroke pause.
 */
export class CompletionContextRetriever {
    readonly cache: SourceFileCache;

    constructor(private readonly estimate: (text: string) => number, cache?: SourceFileCache, private readonly options: RetrieverOptions = DEFAULT_RETRIEVER) {
        this.cache = cache ?? new SourceFileCache();
    }

    async retrieve(request: ContextRequest, signal?: AbortSignal): Promise<ContextRetrieval> {
        const started = performance.now();
        if (request.budget <= 0) {
            return { repoFiles: [], records: [], elapsedMs: 0, duplicates: 0, overBudget: 0 };
        }
        const access = request.access;
        const definitions = access
            ? await findDefinitions({
                file: request.file, text: request.text, offset: request.offset, family: sourceFamily(request.language) ?? sourceFamily(request.file),
                access, ideLocations: request.definitions
            }, this.cache, this.options.definitions)
            : [];
        throwIfAborted(signal);
        const edits = recentEditSnippets(request.recentEdits ?? [], access, this.options.recentEdits);
        const similar = similarSnippets(request.around.prefix, await this.neighbours(request, started), this.options.similar);
        throwIfAborted(signal);
        const fitted = fitSnippets({ 'definition': definitions, 'recent-edit': edits, 'similar': similar }, request.around, request.budget, this.estimate, DEFAULT_SHARES);
        return {
            repoFiles: repoFilesOf(fitted.chosen), records: fitted.records, elapsedMs: performance.now() - started,
            duplicates: fitted.duplicates, overBudget: fitted.overBudget
        };
    }

    /** Open editors' text first, then recently used files from disk; the edited file is not its own neighbour. */
    private async neighbours(request: ContextRequest, started: number): Promise<NeighbourFile[]> {
        const access = request.access;
        const current = access?.relativePath(request.file);
        const files: NeighbourFile[] = (request.openFiles ?? []).filter(file => file.path !== current).map(file => ({ path: file.path, text: file.content }));
        const taken = new Set(files.map(file => file.path));
        if (current !== undefined) {
            taken.add(current);
        }
        for (const absolute of (access ? request.recentFiles ?? [] : []).slice(0, this.options.maxRecentFiles)) {
            const relative = access!.relativePath(absolute);
            if (relative === undefined || taken.has(relative) || absolute === request.file) {
                continue;
            }
            if (!this.cache.isFresh(absolute) && performance.now() - started > this.options.recentFilesDeadlineMs) {
                void this.cache.read(absolute);
                continue;
            }
            const file = await this.cache.read(absolute);
            if (file) {
                taken.add(relative);
                files.push({ path: relative, text: file.text, windows: this.cache.derived(file, 'windows', read => tokenWindows(read.text, this.options.similar)) });
            }
        }
        return files;
    }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
    if (signal?.aborted) {
        throw new CancelledError();
    }
}
