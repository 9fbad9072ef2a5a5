import { NextEditOtherFile } from '../../common/completion-protocol';

/** How the recent edits of a window are kept and bounded before they go to the backend. */
export interface NextEditHistoryOptions {
    /** The recent edits of a file start again after this long without an edit to it (the diff is of what is being done now). */
    idleMs: number;
    /** Other files' edits sent at most, the most recent first, and only those this recent. */
    maxOtherFiles: number;
    maxAgeMs: number;
    /** Unchanged lines kept around another file's changed lines. */
    contextLines: number;
    /** Characters of one other file's excerpt at most (before or after): a larger change is left out. */
    maxExcerptChars: number;
}

export const DEFAULT_NEXT_EDIT_HISTORY: NextEditHistoryOptions = { idleMs: 60_000, maxOtherFiles: 6, maxAgeMs: 5 * 60_000, contextLines: 2, maxExcerptChars: 8_000 };

interface FileState {
    path: string;
    /** The text before the recent edits. */
    baseline: string;
    /** The text after the latest change. */
    current: string;
    /** When it was last edited (0: not since it was opened or reloaded). */
    editedAt: number;
    /** 0-based line of the latest change. */
    line: number;
}

/**
 * The recent edits of every open file, kept in the browser where each change is seen: per file, the
 * text before its recent edits, and when and where it was last changed. The file being edited sends
 * its whole baseline; the other files send only the lines their edits changed, with a few around.
 */
export class NextEditHistory {
    private readonly files = new Map<string, FileState>();

    constructor(private readonly options: NextEditHistoryOptions = DEFAULT_NEXT_EDIT_HISTORY) { }

    /** A model was opened (`key` its URI, `path` its file's absolute path). */
    opened(key: string, path: string, text: string): void {
        this.files.set(key, { path, baseline: text, current: text, editedAt: 0, line: 0 });
    }

    /**
     * After a change of the model. A reload (the whole text replaced: from disk, by a revert) is no edit of
     * the user's: the recent edits start again from it.
     */
    changed(key: string, text: string, line: number, now: number, reload = false): void {
        const file = this.files.get(key);
        if (!file) {
            return;
        }
        if (reload) {
            Object.assign(file, { baseline: text, current: text, editedAt: 0, line: 0 });
            return;
        }
        if (now - file.editedAt > this.options.idleMs) {
            file.baseline = file.current;
        }
        Object.assign(file, { current: text, editedAt: now, line });
    }

    closed(key: string): void {
        this.files.delete(key);
    }

    /** The text of the file before its recent edits. */
    baseline(key: string): string | undefined {
        return this.files.get(key)?.baseline;
    }

    /** The other files' recent edits for a request at `key`, the most recent first, within the bounds. */
    otherEdits(key: string, now: number): NextEditOtherFile[] {
        const edits: NextEditOtherFile[] = [];
        const recent = [...this.files].filter(([other, file]) => other !== key && file.editedAt > 0 && now - file.editedAt <= this.options.maxAgeMs)
            .sort(([, a], [, b]) => b.editedAt - a.editedAt);
        for (const [, file] of recent) {
            if (edits.length >= this.options.maxOtherFiles) {
                break;
            }
            const excerpt = changedExcerpt(file.baseline, file.current, this.options.contextLines);
            if (excerpt && excerpt.previous.length <= this.options.maxExcerptChars && excerpt.text.length <= this.options.maxExcerptChars) {
                edits.push({ path: file.path, ...excerpt, line: file.line, ageMs: now - file.editedAt });
            }
        }
        return edits;
    }
}

/**
 * The lines that differ between `previous` and `text`, with `contextLines` unchanged lines on each side,
 * as an excerpt of each starting at the same line; undefined when the texts are equal. Everything
 * between the first and the last changed line is kept, so the excerpts diff exactly as the files do.
 */
export function changedExcerpt(previous: string, text: string, contextLines: number): { previous: string; text: string; startLine: number } | undefined {
    if (previous === text) {
        return undefined;
    }
    const before = previous.split('\n');
    const after = text.split('\n');
    let head = 0;
    while (head < before.length && head < after.length && before[head] === after[head]) {
        head++;
    }
    let tail = 0;
    while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) {
        tail++;
    }
    const startLine = Math.max(0, head - contextLines);
    const keptTail = Math.max(0, tail - contextLines);
    return {
        previous: before.slice(startLine, before.length - keptTail).join('\n'),
        text: after.slice(startLine, after.length - keptTail).join('\n'),
        startLine
    };
}
