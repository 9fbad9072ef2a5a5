/** Prefix and suffix of a file around a cursor, or a selection, for the completion and refactor commands. */
export interface CursorSplit {
    prefix: string;
    suffix: string;
}

/** 1-based line and column, as editors show them. */
export function offsetOf(text: string, line: number, column: number): number {
    const lines = text.split('\n');
    if (line < 1 || line > lines.length) {
        throw new RangeError(`line ${line} is outside the file (1–${lines.length})`);
    }
    const lineText = lines[line - 1];
    if (column < 1 || column > lineText.length + 1) {
        throw new RangeError(`column ${column} is outside line ${line} (1–${lineText.length + 1})`);
    }
    return lines.slice(0, line - 1).reduce((sum, current) => sum + current.length + 1, 0) + column - 1;
}

export function splitAtPosition(text: string, line: number, column: number): CursorSplit {
    const offset = offsetOf(text, line, column);
    return { prefix: text.slice(0, offset), suffix: text.slice(offset) };
}

/** The text around the first occurrence of `marker`, with the marker removed. */
export function splitAtMarker(text: string, marker: string): CursorSplit {
    const index = text.indexOf(marker);
    if (index < 0) {
        throw new RangeError(`the cursor marker ${JSON.stringify(marker)} does not occur in the file`);
    }
    if (text.indexOf(marker, index + marker.length) >= 0) {
        throw new RangeError(`the cursor marker ${JSON.stringify(marker)} occurs more than once`);
    }
    return { prefix: text.slice(0, index), suffix: text.slice(index + marker.length) };
}

/** `L1:C1-L2:C2` → offsets of the selection. */
export function parseRange(text: string, range: string): { start: number; end: number } {
    const match = /^(\d+):(\d+)-(\d+):(\d+)$/.exec(range);
    if (!match) {
        throw new RangeError(`the range ${JSON.stringify(range)} is not of the form L1:C1-L2:C2`);
    }
    const [start, end] = [offsetOf(text, Number(match[1]), Number(match[2])), offsetOf(text, Number(match[3]), Number(match[4]))];
    if (end < start) {
        throw new RangeError(`the range ${range} ends before it starts`);
    }
    return { start, end };
}
