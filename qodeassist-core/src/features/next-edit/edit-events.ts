import { structuredPatch } from 'diff';

/** Recent edits as the model reads them: unified-diff hunks of one file, at most `maxChars` of them. */
export interface EditEventsOptions {
    /** Characters of diff text at most; the hunks nearest the cursor are kept first. */
    maxChars: number;
    /** Unchanged lines shown around each change. */
    contextLines: number;
}

export const DEFAULT_EDIT_EVENTS: EditEventsOptions = { maxChars: 3000, contextLines: 2 };

/**
 * What the user changed in `path` between `previous` (the text before the recent edits) and `text`,
 * as unified-diff hunks in file order. When they do not fit `maxChars`, the hunks nearest the cursor's
 * line stay: the edit being made is the one the model should continue. Empty when nothing changed.
 * `firstLine` (0-based) is where both texts start in the file when they are an excerpt of it: the
 * hunk headers then give the file's line numbers.
 */
export function editEvents(path: string, previous: string, text: string, cursorLine: number, options: EditEventsOptions = DEFAULT_EDIT_EVENTS, firstLine = 0): string {
    if (previous === text) {
        return '';
    }
    const patch = structuredPatch(path, path, previous, text, '', '', { context: options.contextLines });
    const hunks = patch.hunks.map(hunk => ({
        newStart: hunk.newStart - 1,
        newEnd: hunk.newStart - 1 + hunk.newLines,
        text: `@@ -${hunk.oldStart + firstLine},${hunk.oldLines} +${hunk.newStart + firstLine},${hunk.newLines} @@\n${hunk.lines.join('\n')}\n`
    }));
    const distance = (hunk: { newStart: number; newEnd: number }) => cursorLine < hunk.newStart ? hunk.newStart - cursorLine : Math.max(0, cursorLine - hunk.newEnd);
    const kept = new Set<typeof hunks[number]>();
    let used = 0;
    for (const hunk of [...hunks].sort((a, b) => distance(a) - distance(b))) {
        if (used + hunk.text.length > options.maxChars) {
            continue;
        }
        kept.add(hunk);
        used += hunk.text.length;
    }
    const body = hunks.filter(hunk => kept.has(hunk)).map(hunk => hunk.text).join('');
    return body ? `--- a/${path}\n+++ b/${path}\n${body}` : '';
}
