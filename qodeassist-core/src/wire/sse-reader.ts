import { createParser, EventSourceMessage } from 'eventsource-parser';

/**
 * Turns a byte stream into SSE messages, one batch per network chunk (a batch may be
 * empty); chunk boundaries may fall anywhere, even inside a UTF-8 sequence. Batching
 * keeps the per-message cost to plain function calls instead of an await each.
 */
export async function* readServerSentEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<EventSourceMessage[]> {
    let pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: message => pending.push(message) });
    const decoder = new TextDecoder();
    const take = () => {
        const batch = pending;
        pending = [];
        return batch;
    };
    for await (const chunk of chunks) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        yield take();
    }
    parser.feed(decoder.decode());
    // A stream that ends without the final blank line still delivers its last event.
    parser.feed('\n\n');
    yield take();
}
