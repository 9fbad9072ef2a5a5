import { createParser, EventSourceMessage } from 'eventsource-parser';
import { DEFAULT_LIMITS, LimitAdvice, raiseLimitAdvice, recordLimitError } from './request-limits';

/**
 * Turns a byte stream into SSE messages, one batch per network chunk (a batch may be
 * empty); chunk boundaries may fall anywhere, even inside a UTF-8 sequence. Batching
 * keeps the per-message cost to plain function calls instead of an await each.
 *
 * An event (its unfinished line plus its data so far) longer than `maxRecordBytes`, counted
 * in decoded characters (never more than its bytes), ends the stream with the record limit's
 * error as soon as the chunk that crossed it is read: nothing more is buffered or pulled.
 * The messages before it are yielded first.
 */
export async function* readServerSentEvents(
    chunks: AsyncIterable<Uint8Array>, maxRecordBytes: number = DEFAULT_LIMITS.maxRecordBytes, advice: LimitAdvice = raiseLimitAdvice
): AsyncGenerator<EventSourceMessage[]> {
    let pending: EventSourceMessage[] = [];
    let overLimit = false;
    const parser = createParser({
        // The parser checks its buffer after each chunk: an event that arrived whole within one chunk is checked here.
        onEvent: message => {
            overLimit ||= message.data.length > maxRecordBytes;
            if (!overLimit) {
                pending.push(message);
            }
        },
        onError: error => {
            overLimit ||= error.type === 'max-buffer-size-exceeded';
        },
        maxBufferSize: maxRecordBytes
    });
    const decoder = new TextDecoder();
    const take = () => {
        const batch = pending;
        pending = [];
        return batch;
    };
    for await (const chunk of chunks) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        yield take();
        if (overLimit) {
            throw recordLimitError(maxRecordBytes, advice);
        }
    }
    parser.feed(decoder.decode());
    // A stream that ends without the final blank line still delivers its last event.
    parser.feed('\n\n');
    yield take();
    if (overLimit) {
        throw recordLimitError(maxRecordBytes, advice);
    }
}
