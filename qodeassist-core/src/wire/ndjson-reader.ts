import { DEFAULT_LIMITS, LimitAdvice, raiseLimitAdvice, recordLimitError } from './request-limits';

/**
 * Splits a byte stream into lines of newline-delimited JSON, one batch per network
 * chunk. Written here because it is a dozen lines; blank lines are skipped and a last
 * line without `\n` still counts.
 *
 * A line longer than `maxRecordBytes`, counted in decoded characters (never more than its
 * bytes), ends the stream with the record limit's error as soon as the chunk that crossed it
 * is read: nothing more is buffered or pulled. The lines before it are yielded first.
 */
export async function* readNdjsonLines(
    chunks: AsyncIterable<Uint8Array>, maxRecordBytes: number = DEFAULT_LIMITS.maxRecordBytes, advice: LimitAdvice = raiseLimitAdvice
): AsyncGenerator<string[]> {
    const decoder = new TextDecoder();
    // The unfinished line in pieces: joining only when its end arrives keeps a long line from being copied at every chunk.
    let pieces: string[] = [];
    let pendingLength = 0;
    for await (const chunk of chunks) {
        const text = decoder.decode(chunk, { stream: true });
        const end = text.lastIndexOf('\n');
        if (end < 0) {
            pieces.push(text);
            pendingLength += text.length;
            if (pendingLength > maxRecordBytes) {
                throw recordLimitError(maxRecordBytes, advice);
            }
            yield [];
            continue;
        }
        const complete = pieces.join('') + text.slice(0, end);
        const rest = text.slice(end + 1);
        pieces = [rest];
        pendingLength = rest.length;
        const lines = linesOf(complete);
        const tooLong = complete.length > maxRecordBytes ? lines.findIndex(line => line.length > maxRecordBytes) : -1;
        if (tooLong >= 0 || pendingLength > maxRecordBytes) {
            yield tooLong >= 0 ? lines.slice(0, tooLong) : lines;
            throw recordLimitError(maxRecordBytes, advice);
        }
        yield lines;
    }
    const last = (pieces.join('') + decoder.decode()).trim();
    if (last.length > maxRecordBytes) {
        throw recordLimitError(maxRecordBytes, advice);
    }
    yield last ? [last] : [];
}

function linesOf(text: string): string[] {
    return text.split('\n').map(line => line.trim()).filter(line => line.length > 0);
}
