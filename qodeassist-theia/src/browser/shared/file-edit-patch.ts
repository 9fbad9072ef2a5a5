import type { FileEditRecord } from '@qodeassist/core';
import { applyPatch, parsePatch, reversePatch } from 'diff';

/** Undo or reapply could not be done without overwriting something; nothing was changed. */
export class FileEditConflict extends Error { }

/** The smallest replacement turning `before` into `after`: a common prefix and suffix are left alone. */
export function minimalChange(before: string, after: string): { start: number; end: number; text: string } {
    let start = 0;
    const shortest = Math.min(before.length, after.length);
    while (start < shortest && before.charCodeAt(start) === after.charCodeAt(start)) {
        start++;
    }
    let suffix = 0;
    while (suffix < shortest - start && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) {
        suffix++;
    }
    return { start, end: before.length - suffix, text: after.slice(start, after.length - suffix) };
}

/**
 * The content after undoing (`direction: 'undo'`) or reapplying an edit on the file as it is
 * now, through its diff: later changes elsewhere in the file are kept. Throws FileEditConflict
 * when the edited lines changed since.
 */
export function patchContent(current: string, record: FileEditRecord, direction: 'undo' | 'reapply'): string {
    const [patch] = parsePatch(record.diff);
    const result = applyPatch(current, direction === 'undo' ? reversePatch(patch) : patch);
    if (result === false) {
        throw new FileEditConflict(`${record.path} changed since this edit, in the lines it touched; nothing was changed. ${direction === 'undo' ? 'Undo' : 'Apply'} it by hand, or ask QodeAssist to.`);
    }
    return result;
}
