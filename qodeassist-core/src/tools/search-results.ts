import { cutLongLine } from './output-cap';

/** A printed line of search_project is cut to this many characters around the match (minified files have lines of megabytes). */
export const MAX_SEARCH_LINE_CHARS = 500;
/** search_project's answer stops before this many characters; the matches not shown are counted. */
export const MAX_SEARCH_OUTPUT_CHARS = 50_000;

/** One match with the context lines printed around it (context shared with a neighbour is printed once), as both engines give it. */
export interface MatchGroup {
    lines: string[];
}

/** `path:12: text`, the line cut around the match at character `matchAt`. */
export function matchLine(path: string, line: number, text: string, matchAt: number): string {
    return `${path}:${line}: ${cutLongLine(text, MAX_SEARCH_LINE_CHARS, matchAt)}`;
}

/** `path-11- text`, a context line, cut from its start. */
export function contextLine(path: string, line: number, text: string): string {
    return `${path}-${line}- ${cutLongLine(text, MAX_SEARCH_LINE_CHARS)}`;
}

/**
 * The answer of search_project: the groups in order up to `maxMatches`, stopping before
 * `maxChars`, and a note counting the `matches` (found in all) not shown.
 */
export function formatSearchResults(groups: readonly MatchGroup[], matches: number, maxMatches: number, maxChars = MAX_SEARCH_OUTPUT_CHARS): string {
    const shown: string[] = [];
    let chars = 0;
    let shownMatches = 0;
    let full = false;
    for (const group of groups.slice(0, maxMatches)) {
        const size = group.lines.reduce((sum, line) => sum + line.length + 1, 0);
        // The first match is always shown: its lines are already cut to a bounded length.
        if (shownMatches > 0 && chars + size > maxChars) {
            full = true;
            break;
        }
        shown.push(...group.lines);
        chars += size;
        shownMatches++;
    }
    const notShown = matches - shownMatches;
    const why = full ? ` (the answer stops at ${maxChars} characters)` : '';
    return `${shown.join('\n')}${notShown > 0 ? `\n[${notShown} more matches not shown${why}; narrow the query or the glob]` : ''}`;
}
