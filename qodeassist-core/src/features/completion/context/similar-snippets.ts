import { ContextSnippet } from './context-snippet';
import { identifierSet, identifiersOf, jaccard } from './identifier-tokens';

export interface SimilarOptions {
    /** Lines of one window of a neighbouring file. */
    windowLines: number;
    /** Lines from one window's start to the next (windows overlap when smaller than windowLines). */
    stride: number;
    /** Lines before the cursor that make the query. */
    queryLines: number;
    maxPerFile: number;
    maxSnippets: number;
    /** A window sharing less than this share of identifiers with the query is noise. */
    minScore: number;
}

export const DEFAULT_SIMILAR: SimilarOptions = { windowLines: 20, stride: 10, queryLines: 20, maxPerFile: 2, maxSnippets: 6, minScore: 0.08 };

/** A window of a file and the identifiers in it. */
export interface TokenWindow {
    start: number;
    end: number;
    words: ReadonlySet<string>;
}

/** A file the user has open or used lately: workspace-relative path, its text. */
export interface NeighbourFile {
    path: string;
    text: string;
    /** The file's windows when already computed (the cache keeps them per file version). */
    windows?: readonly TokenWindow[];
}

/** Lines of a neighbouring file looked at, at most: the windows of a huge file would cost more than they bring. */
const MAX_LINES = 4000;

/** Cuts a text into overlapping windows of whole lines and takes each one's identifiers (each line tokenized once). */
export function tokenWindows(text: string, options: Pick<SimilarOptions, 'windowLines' | 'stride'> = DEFAULT_SIMILAR): TokenWindow[] {
    const lines = text.split('\n', MAX_LINES).map(identifiersOf);
    const windows: TokenWindow[] = [];
    for (let start = 0; start < lines.length; start += options.stride) {
        const end = Math.min(lines.length, start + options.windowLines);
        const words = new Set<string>();
        for (let line = start; line < end; line++) {
            lines[line].forEach(word => words.add(word));
        }
        windows.push({ start, end, words });
        if (end === lines.length) {
            break;
        }
    }
    return windows;
}

/**
 * Windows of neighbouring files that share the most identifiers with the code just before the
 * cursor (Jaccard similarity, Copilot's neighbouring-tabs method): the code a user writes
 * often mirrors code beside it. At most `maxPerFile` non-overlapping windows a file.
 */
export function similarSnippets(prefix: string, files: readonly NeighbourFile[], options: SimilarOptions = DEFAULT_SIMILAR): ContextSnippet[] {
    const query = identifierSet(prefix.split('\n').slice(-options.queryLines).join('\n'));
    if (query.size === 0) {
        return [];
    }
    const found: ContextSnippet[] = [];
    for (const file of files) {
        const windows = file.windows ?? tokenWindows(file.text, options);
        const ranked = windows.map(span => ({ span, score: jaccard(query, span.words) }))
            .filter(entry => entry.score >= options.minScore)
            .sort((a, b) => b.score - a.score);
        const chosen: Array<{ span: TokenWindow; score: number }> = [];
        for (const entry of ranked) {
            if (chosen.length >= options.maxPerFile) {
                break;
            }
            if (!chosen.some(other => entry.span.start < other.span.end && other.span.start < entry.span.end)) {
                chosen.push(entry);
            }
        }
        if (chosen.length === 0) {
            continue;
        }
        const lines = file.text.split('\n');
        for (const { span, score } of chosen) {
            found.push({ source: 'similar', path: file.path, content: lines.slice(span.start, span.end).join('\n'), startLine: span.start, score });
        }
    }
    return found.sort((a, b) => b.score - a.score).slice(0, options.maxSnippets);
}
