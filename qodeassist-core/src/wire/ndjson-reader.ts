import { HeldRecord } from './held-record';
import { longerThan } from './pending-bytes';
import { DEFAULT_LIMITS, LimitAdvice, raiseLimitAdvice, recordLimitError } from './request-limits';

const LF = 0x0a;

/**
 * Splits a byte stream into lines of newline-delimited JSON, one batch per network
 * chunk. Written here because it is a dozen lines; blank lines are skipped and a last
 * line without `\n` still counts.
 *
 * Line ends are found in the bytes and only complete lines are decoded; the line still
 * arriving is kept as the bytes received. A line longer than `maxRecordBytes` ends the stream
 * with the record limit's error as soon as the chunk that crossed it is read, before any of it
 * is decoded: nothing more is buffered or pulled. The lines before it are yielded first.
 */
export async function* readNdjsonLines(
    chunks: AsyncIterable<Uint8Array>, maxRecordBytes: number = DEFAULT_LIMITS.maxRecordBytes, advice: LimitAdvice = raiseLimitAdvice
): AsyncGenerator<string[]> {
    // Lines are decoded whole, so no UTF-8 sequence is ever split between two calls; `stream` keeps a BOM stripped only at the start.
    const decoder = new TextDecoder();
    const unfinished = new HeldRecord(maxRecordBytes, advice);
    for await (const chunk of chunks) {
        const end = chunk.lastIndexOf(LF);
        if (end < 0) {
            unfinished.hold(chunk);
            yield [];
            continue;
        }
        unfinished.checkEnd(end, () => chunk.indexOf(LF));
        const lines = linesOf(decoder.decode(unfinished.take(chunk.subarray(0, end)), { stream: true }));
        unfinished.push(chunk.subarray(end + 1));
        const tooLong = lines.findIndex(line => longerThan(line, maxRecordBytes));
        if (tooLong >= 0 || unfinished.length > maxRecordBytes) {
            yield tooLong >= 0 ? lines.slice(0, tooLong) : lines;
            throw recordLimitError(maxRecordBytes, advice);
        }
        yield lines;
    }
    const last = (decoder.decode(unfinished.take(), { stream: true }) + decoder.decode()).trim();
    if (longerThan(last, maxRecordBytes)) {
        throw recordLimitError(maxRecordBytes, advice);
    }
    yield last ? [last] : [];
}

function linesOf(text: string): string[] {
    return text.split('\n').map(line => line.trim()).filter(line => line.length > 0);
}
