import { createParser, EventSourceMessage } from 'eventsource-parser';
import { HeldRecord } from './held-record';
import { longerThan } from './pending-bytes';
import { DEFAULT_LIMITS, LimitAdvice, raiseLimitAdvice, recordLimitError } from './request-limits';

const LF = 0x0a;
const CR = 0x0d;
const LF_LF = Buffer.from('\n\n');
const CR_CR = Buffer.from('\r\r');
const LF_CR = Buffer.from('\n\r');

/**
 * Turns a byte stream into SSE messages, one batch per network chunk (a batch may be
 * empty); chunk boundaries may fall anywhere, even inside a UTF-8 sequence. Batching
 * keeps the per-message cost to plain function calls instead of an await each.
 *
 * Events are found in the bytes (an event ends at a blank line) and only complete events are
 * decoded and parsed (by eventsource-parser); the event still arriving is kept as the bytes
 * received. An event longer than `maxRecordBytes` ends the stream with the record limit's error
 * as soon as the chunk that crossed it is read, before any of it is decoded: nothing more is
 * buffered or pulled. The messages before it are yielded first.
 */
export async function* readServerSentEvents(
    chunks: AsyncIterable<Uint8Array>, maxRecordBytes: number = DEFAULT_LIMITS.maxRecordBytes, advice: LimitAdvice = raiseLimitAdvice
): AsyncGenerator<EventSourceMessage[]> {
    let pending: EventSourceMessage[] = [];
    let overLimit = false;
    const parser = createParser({
        // An event that arrived whole within one chunk is checked here, in bytes.
        onEvent: message => {
            overLimit ||= longerThan(message.data, maxRecordBytes);
            if (!overLimit) {
                pending.push(message);
            }
        },
        onError: error => {
            overLimit ||= error.type === 'max-buffer-size-exceeded';
        },
        maxBufferSize: maxRecordBytes
    });
    // Events are decoded whole, so no UTF-8 sequence is ever split between two calls; `stream` keeps a BOM stripped only at the start.
    const decoder = new TextDecoder();
    const unfinished = new HeldRecord(maxRecordBytes, advice);
    /** The last byte before the current chunk, to see a blank line whose two line ends fall in two chunks. */
    let previous = -1;
    const take = () => {
        const batch = pending;
        pending = [];
        return batch;
    };
    for await (const chunk of chunks) {
        if (chunk.byteLength === 0) {
            continue;
        }
        const bytes = asBuffer(chunk);
        const end = lastEventEnd(bytes, previous);
        const before = previous;
        previous = bytes[bytes.byteLength - 1];
        if (end < 0) {
            unfinished.hold(bytes);
            yield [];
            continue;
        }
        unfinished.checkEnd(end, () => firstEventEnd(bytes, before, end));
        parser.feed(decoder.decode(unfinished.take(bytes.subarray(0, end)), { stream: true }));
        if (bytes[end - 1] === CR) {
            // The parser holds an event ended by a CR back until it sees whether LF follows; the event is complete
            // either way. An LF that does follow reads as one more blank line, which dispatches nothing.
            parser.feed('\n');
        }
        unfinished.push(bytes.subarray(end));
        yield take();
        if (overLimit || unfinished.length > maxRecordBytes) {
            throw recordLimitError(maxRecordBytes, advice);
        }
    }
    parser.feed(decoder.decode(unfinished.take(), { stream: true }) + decoder.decode());
    // A stream that ends without the final blank line still delivers its last event.
    parser.feed('\n\n');
    yield take();
    if (overLimit) {
        throw recordLimitError(maxRecordBytes, advice);
    }
}

function asBuffer(chunk: Uint8Array): Buffer {
    return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Where the last complete event of the chunk ends (just past the blank line that ends it), or -1.
 * A blank line is two line ends in a row, each LF, CR or CRLF: the bytes then hold LF LF, CR CR or
 * LF CR (CR LF alone is one line end). `before` is the byte before the chunk, for a pair split
 * between two chunks.
 */
function lastEventEnd(bytes: Buffer, before: number): number {
    let at = bytes.lastIndexOf(LF_LF);
    if (bytes.indexOf(CR, at + 1) >= 0) {
        at = Math.max(at, bytes.lastIndexOf(CR_CR), bytes.lastIndexOf(LF_CR));
    }
    return at >= 0 ? pastLineEnd(bytes, at + 1) : splitPairEnd(bytes, before);
}

/** The first event end in the chunk, at or before `last` (the last one). */
function firstEventEnd(bytes: Buffer, before: number, last: number): number {
    const split = splitPairEnd(bytes, before);
    if (split >= 0) {
        return split;
    }
    const candidates = [bytes.indexOf(LF_LF), bytes.indexOf(CR_CR), bytes.indexOf(LF_CR)].filter(at => at >= 0);
    return candidates.length > 0 ? Math.min(last, pastLineEnd(bytes, Math.min(...candidates) + 1)) : last;
}

/** The end of a blank line whose first line end is the last byte before the chunk and whose second starts the chunk, or -1. */
function splitPairEnd(bytes: Buffer, before: number): number {
    const first = bytes[0];
    const splitPair = (before === LF && (first === LF || first === CR)) || (before === CR && first === CR);
    return splitPair ? pastLineEnd(bytes, 0) : -1;
}

/** Just past the line end that starts at `at` (CRLF counts as one). */
function pastLineEnd(bytes: Buffer, at: number): number {
    return bytes[at] === CR && bytes[at + 1] === LF ? at + 2 : at + 1;
}
