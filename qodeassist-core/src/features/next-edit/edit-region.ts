/** How much of the file around the cursor a next-edit request shows and lets the model rewrite. */
export interface RegionOptions {
    /** Lines the model may rewrite: the editable region, about half above the cursor's line and half below. */
    regionLines: number;
    /** Lines of read-only context on each side of the region. */
    contextLines: number;
}

export const DEFAULT_REGION: RegionOptions = { regionLines: 40, contextLines: 20 };

/** The editable region around the cursor, as offsets into the document and the texts a prompt is made of. */
export interface EditableRegion {
    /** Offsets into the document: the region is `text.slice(start, end)` and always ends at a line end (or the file's end). */
    start: number;
    end: number;
    /** 0-based line of the region's first line. */
    startLine: number;
    /** Read-only context above and below the region (whole lines; `before` ends with a line break when not empty). */
    before: string;
    after: string;
    /** The region cut at the cursor. */
    beforeCursor: string;
    afterCursor: string;
    /** The context starts at the file's first line (Zeta marks it with `<|start_of_file|>`). */
    startOfFile: boolean;
}

/**
 * Whole lines around the cursor's line: `regionLines` of them (fewer at the file's ends, the
 * rest given to the other side), with `contextLines` on each side around them.
 */
export function editableRegion(text: string, offset: number, options: RegionOptions = DEFAULT_REGION): EditableRegion {
    const starts = lineStarts(text);
    const cursorLine = lineAt(starts, Math.max(0, Math.min(offset, text.length)));
    const lines = starts.length;
    const budget = Math.max(1, options.regionLines);
    let first = Math.max(0, cursorLine - Math.floor((budget - 1) / 2));
    const last = Math.min(lines - 1, first + budget - 1);
    first = Math.max(0, Math.min(first, last - budget + 1));
    const contextFirst = Math.max(0, first - options.contextLines);
    const contextLast = Math.min(lines - 1, last + options.contextLines);
    const start = starts[first];
    // The region ends before its last line's break, so a rewrite never joins it with the line below.
    const end = last + 1 < lines ? starts[last + 1] - 1 : text.length;
    const afterEnd = contextLast + 1 < lines ? starts[contextLast + 1] - 1 : text.length;
    const cursor = Math.max(start, Math.min(offset, end));
    return {
        start, end, startLine: first,
        before: text.slice(starts[contextFirst], start),
        after: end < text.length ? text.slice(end + 1, afterEnd) : '',
        beforeCursor: text.slice(start, cursor),
        afterCursor: text.slice(cursor, end),
        startOfFile: contextFirst === 0
    };
}

export function lineStarts(text: string): number[] {
    const starts = [0];
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
        starts.push(index + 1);
    }
    return starts;
}

/** The 0-based line holding `offset`. */
export function lineAt(starts: readonly number[], offset: number): number {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (starts[middle] <= offset) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    return low;
}
