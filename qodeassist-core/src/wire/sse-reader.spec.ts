import * as assert from 'node:assert/strict';
import { QodeAssistError } from './error-info';
import { DEFAULT_LIMITS } from './request-limits';
import { readServerSentEvents } from './sse-reader';
import { lazyStream, liveHeap } from './lazy-stream.spec-support';

type Message = { event?: string; data: string };

/** The messages of a stream, and the error that ended it if one did. */
async function read(chunks: AsyncIterable<Uint8Array>, maxRecordBytes?: number): Promise<{ messages: Message[]; error?: unknown }> {
    const messages: Message[] = [];
    try {
        for await (const batch of readServerSentEvents(chunks, maxRecordBytes)) {
            for (const message of batch) {
                messages.push(message.event ? { event: message.event, data: message.data } : { data: message.data });
            }
        }
    } catch (error) {
        return { messages, error };
    }
    return { messages };
}

async function* source(chunks: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
    const encoder = new TextEncoder();
    for (const chunk of chunks) {
        yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    }
}

async function collect(chunks: string[] | Uint8Array[]): Promise<Message[]> {
    const { messages, error } = await read(source(chunks));
    assert.equal(error, undefined);
    return messages;
}

const RECORD_LIMIT = /^The provider sent a record \(one event or line of the stream\) longer than (\S+ \S+) \(the max_record_bytes limit\), so the answer was stopped; what arrived before it is kept\. .*raise \[limits\] max_record_bytes in the agent's file or the setting qodeassist\.limits\.maxRecordBytes\.$/;

function assertRecordLimit(error: unknown, size: string): void {
    assert.ok(error instanceof QodeAssistError, `expected a QodeAssistError, got ${String(error)}`);
    assert.equal(error.info.category, 'Provider');
    assert.equal(RECORD_LIMIT.exec(error.info.message)?.[1], size, error.info.message);
}

describe('readServerSentEvents', () => {
    it('yields one message per event with its name and data', async () => {
        const messages = await collect(['event: ping\ndata: {}\n\ndata: {"a":1}\n\n']);
        assert.deepEqual(messages, [{ event: 'ping', data: '{}' }, { data: '{"a":1}' }]);
    });

    it('reassembles an event split inside a multi-byte UTF-8 character', async () => {
        const bytes = new TextEncoder().encode('data: "héllo – wörld"\n\n');
        const cut = bytes.indexOf(0xc3) + 1;
        const messages = await collect([bytes.slice(0, cut), bytes.slice(cut)]);
        assert.deepEqual(messages, [{ data: '"héllo – wörld"' }]);
    });

    it('delivers a last event that lacks the closing blank line', async () => {
        assert.deepEqual(await collect(['data: first\n\n', 'data: last\n']), [{ data: 'first' }, { data: 'last' }]);
    });

    it('ends events at blank lines made of CRLF, CR or LF, even when the two line ends fall in two chunks', async () => {
        const text = 'data: 1\r\n\r\ndata: 2\r\rdata: 3\n\ndata: 4\n\r\ndata: 5\r\n\n';
        const expected = ['1', '2', '3', '4', '5'].map(data => ({ data }));
        assert.deepEqual(await collect([text]), expected);
        for (let cut = 1; cut < text.length; cut++) {
            assert.deepEqual(await collect([text.slice(0, cut), text.slice(cut)]), expected, `cut at ${cut}`);
        }
        assert.deepEqual(await collect([...text]), expected, 'one byte at a time');
    });

    it('hands each complete event over with the chunk that ends it, not later', async () => {
        const batches: string[][] = [];
        for await (const batch of readServerSentEvents(source(['data: 1\n', '\ndata: 2\r', '\r', 'data: 3']))) {
            batches.push(batch.map(message => message.data));
        }
        assert.deepEqual(batches, [[], ['1'], ['2'], [], ['3']]);
    });

    it('ignores comments and joins multi-line data', async () => {
        assert.deepEqual(await collect([': keep-alive\n\ndata: a\ndata: b\n\n']), [{ data: 'a\nb' }]);
    });

    describe('the record limit', () => {
        it('a 600 MB event with no line end fails one piece past 8 MiB, keeps the events before it, and holds memory flat', async () => {
            const head = 'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"text":"';
            const stream = lazyStream(head, 600 * 1024 * 1024);
            const heapBefore = liveHeap();
            const { messages, error } = await read(stream.chunks);
            assertRecordLimit(error, '8 MiB');
            assert.deepEqual(messages, [{ data: '{"n":1}' }, { data: '{"n":2}' }]);
            assert.ok(stream.pulled() <= DEFAULT_LIMITS.maxRecordBytes + stream.pieceBytes, `pulled ${stream.pulled()} bytes`);
            // The unfinished event stays the bytes received: never decoded, it never becomes an 8 MiB string on the heap.
            assert.ok(stream.peakHeap() - heapBefore < 2 * 1024 * 1024, `heap grew ${stream.peakHeap() - heapBefore} bytes`);
        });

        it('an event that crosses the limit in the chunk that ends it fails without being decoded', async () => {
            const { messages, error } = await read(source(['data: a\n\ndata: ', 'x'.repeat(90), `${'x'.repeat(20)}\n\ndata: b\n\n`]), 100);
            assertRecordLimit(error, '100 bytes');
            assert.deepEqual(messages, [{ data: 'a' }]);
        });

        it('counts bytes, not characters: 40 three-byte characters are 120 bytes', async () => {
            const { error } = await read(source([`data: ${'€'.repeat(40)}\n\n`]), 100);
            assertRecordLimit(error, '100 bytes');
            assert.deepEqual(await collect([`data: ${'€'.repeat(30)}\n\n`]), [{ data: '€'.repeat(30) }]);
        });

        it('data lines that never reach a blank line are one record', async () => {
            const stream = lazyStream('', 100 * 1024 * 1024, `data: ${'x'.repeat(1000)}\n`);
            const { messages, error } = await read(stream.chunks, 1024 * 1024);
            assertRecordLimit(error, '1 MiB');
            assert.deepEqual(messages, []);
            assert.ok(stream.pulled() <= 1024 * 1024 + stream.pieceBytes);
        });

        it('an event over the limit that arrives whole in one chunk fails too, after the events before it', async () => {
            const { messages, error } = await read(source([`data: short\n\ndata: ${'y'.repeat(200)}\n\ndata: after\n\n`]), 100);
            assertRecordLimit(error, '100 bytes');
            assert.deepEqual(messages, [{ data: 'short' }]);
        });

        it('only one event counts: many small events and comments pass however long the stream', async () => {
            const stream = lazyStream('', 4 * 1024 * 1024, ': keep-alive\n\ndata: {"t":"hello"}\n\n');
            const { messages, error } = await read(stream.chunks, 1024);
            assert.equal(error, undefined);
            assert.ok(messages.length > 100_000);
            assert.equal(stream.pulled(), 4 * 1024 * 1024);
        });
    });
});
