import { diffLines } from 'diff';

/**
 * The whole lines a refactor touches, as offsets into the document: from the start of the
 * selection's first line to the end of its last (a selection of whole lines ends before the
 * line break that closes them). The inline diff shows these lines; accepting replaces them.
 */
export interface RefactorBlock {
    start: number;
    end: number;
    /** The selection inside the document, which the model rewrites. */
    selection: { start: number; end: number };
}

export function blockAround(text: string, selection: { start: number; end: number }): RefactorBlock {
    const start = text.lastIndexOf('\n', selection.start - 1) + 1;
    const wholeLines = selection.end > selection.start && text[selection.end - 1] === '\n';
    const lineEnd = text.indexOf('\n', selection.end);
    const end = wholeLines ? selection.end - 1 : lineEnd === -1 ? text.length : lineEnd;
    return { start, end, selection };
}

/** The selection to use when there is none: the cursor's whole line, its line break included when it has one. */
export function cursorLine(text: string, cursor: number): { start: number; end: number } {
    const start = text.lastIndexOf('\n', cursor - 1) + 1;
    const lineEnd = text.indexOf('\n', cursor);
    return { start, end: lineEnd === -1 ? text.length : lineEnd + 1 };
}

/** The block's lines as they would read with the replacement: what is left of the first and last lines kept around it. */
export function proposedBlock(text: string, block: RefactorBlock, replacement: string): string {
    const before = text.slice(block.start, block.selection.start);
    if (block.selection.end > block.end) {
        // Whole lines: the replacement brings its own closing line break, which the block leaves out.
        return before + replacement.replace(/\n$/, '');
    }
    return before + replacement + text.slice(block.selection.end, block.end);
}

/** Lines (0-based) removed from the original block and added in the proposed one; an empty block has no lines. */
export function changedLines(original: string, proposed: string): { removed: number[]; added: number[] } {
    const lines = (text: string) => text === '' ? '' : `${text}\n`;
    const removed: number[] = [];
    const added: number[] = [];
    let originalLine = 0;
    let proposedLine = 0;
    for (const part of diffLines(lines(original), lines(proposed))) {
        const count = part.count ?? 0;
        for (let i = 0; i < count; i++) {
            if (part.removed) {
                removed.push(originalLine++);
            } else if (part.added) {
                added.push(proposedLine++);
            } else {
                originalLine++;
                proposedLine++;
            }
        }
    }
    return { removed, added };
}
