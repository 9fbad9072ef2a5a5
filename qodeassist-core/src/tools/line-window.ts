import { open } from 'node:fs/promises';

/** What a line window is read from: a file through its handle, or text already in memory (an open editor). */
export interface ByteSource {
    /** Fills `buffer` from byte `position` on; 0 at the end. */
    read(buffer: Buffer, position: number): Promise<number>;
}

export interface LineWindowRequest {
    /** First line (1-based). */
    start: number;
    /** Last line wanted (inclusive); to the end when absent. */
    end?: number;
    maxLines: number;
    /** Most bytes of text returned, line breaks included; a first line longer than this is cut there. */
    maxBytes: number;
    /** Read on to the end to count the lines (and the cut line's length); otherwise stop once the window is full. */
    countLines: boolean;
}

export interface LineWindow {
    text: string;
    start: number;
    /** The last line in `text`. */
    end: number;
    /** Lines in the whole source, when counted (or the end was reached anyway). */
    total?: number;
    /** Lines after `end` exist; undefined when reading stopped inside a cut line without knowing. */
    more: boolean | undefined;
    /** Set when the one line shown was longer than `maxBytes` and is cut: its length in bytes when counted. */
    cut?: { shownBytes: number; lineBytes?: number };
}

/** Too far: the source has fewer lines than `start`. */
export class PastTheEnd extends Error {
    constructor(readonly lines: number) {
        super(`only ${lines} lines`);
    }
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** Before the window: line breaks counted; in it: bytes kept; then measuring a cut line, or counting the lines after. */
type Phase = 'before' | 'window' | 'measure-cut' | 'count';

/**
 * Lines `start`…`end` of a source, read a chunk at a time: what lies before the window is only
 * scanned for line breaks, never kept, and nothing after it is read unless `countLines`. Lines
 * are what `text.split('\n')` gives (a final line break starts an empty last line).
 */
export async function readLineWindow(source: ByteSource, request: LineWindowRequest): Promise<LineWindow> {
    const wantedEnd = Math.min(request.end ?? Infinity, request.start + request.maxLines - 1);
    const kept: Buffer[] = [];
    let keptBytes = 0;
    /** Where the current line's bytes (its separator included) begin in `kept`, to drop it when it does not fit. */
    let lineFrom = { index: 0, bytes: 0 };
    let line = 1;
    let atLineStart = true;
    let phase: Phase = request.start === 1 ? 'window' : 'before';
    let end = request.start - 1;
    let cut: { shownBytes: number; rest: number } | undefined;
    const result = (total: number | undefined, more: boolean | undefined): LineWindow => ({
        text: Buffer.concat(kept).toString('utf8'), start: request.start, end, more,
        ...(total !== undefined ? { total } : {}),
        ...(cut ? { cut: { shownBytes: cut.shownBytes, ...(total !== undefined ? { lineBytes: cut.shownBytes + cut.rest } : {}) } } : {})
    });
    /** Takes the next piece of the current line (up to a line break or the chunk's end); false once the window is full and nothing more need be read. */
    const take = (segment: Buffer): boolean => {
        if (phase === 'measure-cut') {
            cut!.rest += segment.length;
        }
        if (phase !== 'window') {
            atLineStart = false;
            return true;
        }
        if (atLineStart) {
            lineFrom = { index: kept.length, bytes: keptBytes };
        }
        const separator = atLineStart && line > request.start ? 1 : 0;
        atLineStart = false;
        if (keptBytes + separator + segment.length <= request.maxBytes) {
            kept.push(...(separator ? [Buffer.from('\n')] : []), Buffer.from(segment));
            keptBytes += separator + segment.length;
            return true;
        }
        if (line === request.start) {
            // One line longer than the budget: its beginning, cut on a character boundary.
            let room = request.maxBytes - keptBytes;
            while (room > 0 && (segment[room] & 0xc0) === 0x80) {
                room--;
            }
            kept.push(Buffer.from(segment.subarray(0, room)));
            keptBytes += room;
            cut = { shownBytes: keptBytes, rest: segment.length - room };
            end = line;
            phase = 'measure-cut';
        } else {
            // The budget ends inside this line: the window ends with the line before.
            kept.length = lineFrom.index;
            keptBytes = lineFrom.bytes;
            end = line - 1;
            phase = 'count';
        }
        return request.countLines;
    };
    /** A line break ends the current line; false once the window is full and nothing more need be read. */
    const lineBreak = (): boolean => {
        if (phase === 'measure-cut') {
            phase = 'count';
        } else if (phase === 'window' && line >= wantedEnd) {
            end = line;
            phase = 'count';
            if (!request.countLines) {
                return false;
            }
        }
        line++;
        atLineStart = true;
        if (phase === 'before' && line === request.start) {
            phase = 'window';
        }
        return true;
    };
    const buffer = Buffer.alloc(CHUNK_BYTES);
    for (let position = 0; ;) {
        const read = await source.read(buffer, position);
        if (read === 0) {
            break;
        }
        position += read;
        const chunk = buffer.subarray(0, read);
        for (let offset = 0; offset < read;) {
            const newline = chunk.indexOf(NEWLINE, offset);
            if (!take(chunk.subarray(offset, newline === -1 ? read : newline))) {
                // Stopped inside a cut line: whether lines follow it is not known.
                return result(undefined, cut ? undefined : true);
            }
            if (newline === -1) {
                break;
            }
            if (!lineBreak()) {
                return result(undefined, true);
            }
            offset = newline + 1;
        }
    }
    if (line < request.start) {
        throw new PastTheEnd(line);
    }
    if (phase === 'window') {
        // The last line (empty after a final line break) ends the window.
        take(Buffer.alloc(0));
        if (phase === 'window') {
            end = line;
        }
    }
    return result(line, end < line);
}

/** Reads a window of a file through one handle, a chunk at a time, no further than its size when opened (a log being written does not keep it reading). */
export async function readFileLineWindow(file: string, request: LineWindowRequest): Promise<LineWindow> {
    const handle = await open(file, 'r');
    try {
        const { size } = await handle.stat();
        const read = async (buffer: Buffer, position: number) =>
            position >= size ? 0 : (await handle.read(buffer, 0, Math.min(buffer.length, size - position), position)).bytesRead;
        return await readLineWindow({ read }, request);
    } finally {
        await handle.close();
    }
}

/** A window of text already in memory (an open editor's). */
export function readTextLineWindow(text: string, request: LineWindowRequest): Promise<LineWindow> {
    const bytes = Buffer.from(text, 'utf8');
    return readLineWindow({ read: async (buffer, position) => position < bytes.length ? bytes.copy(buffer, 0, position) : 0 }, request);
}
