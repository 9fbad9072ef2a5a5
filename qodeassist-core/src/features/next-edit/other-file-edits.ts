import { editEvents } from './edit-events';

/**
 * A recent edit of another file than the one being edited, as the editor saw it: the lines around
 * the change before the recent edits and now. The caller has already decided the model may see it
 * (inside the workspace, no ignore rule hiding it).
 */
export interface OtherFileEdit {
    /** Workspace-relative path, as the prompt names the file. */
    relativePath: string;
    /** The changed lines with a few around them, before the recent edits and now; both start at `startLine`. */
    previous: string;
    text: string;
    /** 0-based line of the file where both excerpts start. */
    startLine: number;
    /** 0-based line of the file's latest change: its nearest hunks are kept first. */
    line?: number;
    /** Milliseconds since the file was last edited. */
    ageMs: number;
}

export interface OtherFileEditsOptions {
    /** Files at most, the most recently edited first. */
    maxFiles: number;
    /** Characters of diff text for all of them together. */
    maxChars: number;
    /** An edit older than this is no longer what the user is doing. */
    maxAgeMs: number;
    /** Unchanged lines shown around each change. */
    contextLines: number;
}

export const DEFAULT_OTHER_FILE_EDITS: OtherFileEditsOptions = { maxFiles: 4, maxChars: 2000, maxAgeMs: 5 * 60_000, contextLines: 2 };

/** One file's recent edits as the model reads them. */
export interface FileEditEvents {
    path: string;
    /** Unified-diff hunks with their `---`/`+++` header, line numbers of the whole file. */
    diff: string;
}

/**
 * The recent edits of other files, the most recently edited first: a rename in one file is often
 * continued in the files that use it. Within the bounds — files, characters in all, age — the newest
 * come first; a file whose diff no longer fits is left out and an older, smaller one may still fit.
 */
export function otherFileEvents(edits: readonly OtherFileEdit[], options: OtherFileEditsOptions = DEFAULT_OTHER_FILE_EDITS): FileEditEvents[] {
    const found: FileEditEvents[] = [];
    const seen = new Set<string>();
    let left = options.maxChars;
    const recent = edits.filter(edit => edit.ageMs >= 0 && edit.ageMs <= options.maxAgeMs).sort((a, b) => a.ageMs - b.ageMs);
    for (const edit of recent) {
        if (found.length >= options.maxFiles) {
            break;
        }
        if (seen.has(edit.relativePath)) {
            continue;
        }
        seen.add(edit.relativePath);
        const cursorLine = Math.max(0, (edit.line ?? edit.startLine) - edit.startLine);
        // The budget is the hunks' and the header's together.
        const header = `--- a/${edit.relativePath}\n+++ b/${edit.relativePath}\n`.length;
        // Excerpts are whole lines of a longer file: ended alike, so the diff does not claim a missing final line break.
        const diff = editEvents(edit.relativePath, `${edit.previous}\n`, `${edit.text}\n`, cursorLine, { maxChars: left - header, contextLines: options.contextLines }, edit.startLine);
        if (diff) {
            found.push({ path: edit.relativePath, diff });
            left -= diff.length;
        }
    }
    return found;
}
