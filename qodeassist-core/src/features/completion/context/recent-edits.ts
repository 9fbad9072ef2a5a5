import { ContextSnippet, RecentEdit } from './context-snippet';
import { ContextFileAccess } from './source-files';

export interface RecentEditsOptions {
    /** Edits used at most, the newest first. */
    maxEdits: number;
    /** Lines of one edit's region at most (the ones nearest its middle are kept). */
    maxLines: number;
}

export const DEFAULT_RECENT_EDITS: RecentEditsOptions = { maxEdits: 6, maxLines: 16 };

/**
 * Regions the user changed lately, across files, the newest first: what they are in the middle of
 * is the best hint of what comes next. Regions of files the model may not see are dropped; in the
 * file being edited, a region the cursor window already shows is dropped by the budget's dedup.
 */
export function recentEditSnippets(edits: readonly RecentEdit[], access: ContextFileAccess | undefined, options: RecentEditsOptions = DEFAULT_RECENT_EDITS): ContextSnippet[] {
    const found: ContextSnippet[] = [];
    const taken: Array<{ path: string; start: number; end: number }> = [];
    for (const edit of edits) {
        if (found.length >= options.maxEdits) {
            break;
        }
        const path = access?.relativePath(edit.path);
        const lines = edit.text.replace(/\n$/, '').split('\n');
        if (path === undefined || edit.text.trim() === '') {
            continue;
        }
        const cut = Math.max(0, Math.floor((lines.length - options.maxLines) / 2));
        const kept = lines.slice(cut, cut + options.maxLines);
        const start = edit.startLine + cut;
        const end = start + kept.length - 1;
        // An older edit of a region a newer one already shows adds nothing.
        if (taken.some(region => region.path === path && region.start <= start && end <= region.end)) {
            continue;
        }
        taken.push({ path, start, end });
        found.push({ source: 'recent-edit', path, content: kept.join('\n'), startLine: start, score: -found.length });
    }
    return found;
}
