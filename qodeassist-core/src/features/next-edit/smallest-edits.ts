import { diffLines, diffWordsWithSpace } from 'diff';

/** One replacement in a text: `length` characters at `offset` become `text`. */
export interface TextEdit {
    offset: number;
    length: number;
    text: string;
}

/**
 * The few small replacements that turn `before` into `after`: changed lines first, then the
 * words inside each changed block, so a renamed identifier is one short edit, not a rewritten line.
 * Adjacent removals and additions are one edit. Empty when the texts are equal.
 */
export function smallestEdits(before: string, after: string): TextEdit[] {
    if (before === after) {
        return [];
    }
    const edits: TextEdit[] = [];
    let offset = 0;
    let pending: { removed: string; added: string } | undefined;
    const flush = () => {
        if (pending) {
            edits.push(...wordEdits(offset, pending.removed, pending.added));
            offset += pending.removed.length;
            pending = undefined;
        }
    };
    for (const part of diffLines(before, after)) {
        if (!part.added && !part.removed) {
            flush();
            offset += part.value.length;
            continue;
        }
        pending ??= { removed: '', added: '' };
        if (part.removed) {
            pending.removed += part.value;
        } else {
            pending.added += part.value;
        }
    }
    flush();
    return edits;
}

/** The words that differ inside one changed block at `base`; pure additions and removals stay whole. */
function wordEdits(base: number, removed: string, added: string): TextEdit[] {
    if (!removed || !added) {
        return [{ offset: base, length: removed.length, text: added }];
    }
    const edits: TextEdit[] = [];
    let offset = base;
    let current: TextEdit | undefined;
    for (const part of diffWordsWithSpace(removed, added)) {
        if (!part.added && !part.removed) {
            if (current) {
                edits.push(current);
                current = undefined;
            }
            offset += part.value.length;
            continue;
        }
        current ??= { offset, length: 0, text: '' };
        if (part.removed) {
            current.length += part.value.length;
            offset += part.value.length;
        } else {
            current.text += part.value;
        }
    }
    if (current) {
        edits.push(current);
    }
    return edits;
}

/** `text` with the edits applied (offsets into `text`, not overlapping, in any order). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
    let result = text;
    for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) {
        result = result.slice(0, edit.offset) + edit.text + result.slice(edit.offset + edit.length);
    }
    return result;
}
