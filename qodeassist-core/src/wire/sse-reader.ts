import { createParser, EventSourceMessage } from 'eventsource-parser';

/** Turns a byte stream into SSE messages; chunk boundaries may fall anywhere, even inside a UTF-8 sequence. */
export async function* readServerSentEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<EventSourceMessage> {
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: message => pending.push(message) });
    const decoder = new TextDecoder();
    for await (const chunk of chunks) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        yield* pending.splice(0);
    }
    parser.feed(decoder.decode());
    // A stream that ends without the final blank line still delivers its last event.
    parser.feed('\n\n');
    yield* pending.splice(0);
}
