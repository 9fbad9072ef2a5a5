import * as assert from 'node:assert/strict';
import { QodeAssistError } from './error-info';
import { lazyStream, liveHeap } from './lazy-stream.spec-support';
import { readNdjsonLines } from './ndjson-reader';
import { DEFAULT_LIMITS } from './request-limits';

async function read(chunks: AsyncIterable<Uint8Array>, maxRecordBytes?: number): Promise<{ lines: string[]; error?: unknown }> {
    const lines: string[] = [];
    try {
        for await (const batch of readNdjsonLines(chunks, maxRecordBytes)) {
            lines.push(...batch);
        }
    } catch (error) {
        return { lines, error };
    }
    return { lines };
}

async function* source(chunks: string[]): AsyncGenerator<Uint8Array> {
    for (const chunk of chunks) {
        yield new TextEncoder().encode(chunk);
    }
}

function assertRecordLimit(error: unknown, size: string): void {
    assert.ok(error instanceof QodeAssistError, `expected a QodeAssistError, got ${String(error)}`);
    assert.equal(error.info.category, 'Provider');
    assert.equal(error.info.message, `The provider sent a record (one event or line of the stream) longer than ${size} (the max_record_bytes limit), `
        + 'so the answer was stopped; what arrived before it is kept. Check the provider\'s URL and protocol; if it really sends records this large, '
        + 'raise [limits] max_record_bytes in the agent\'s file or the setting qodeassist.limits.maxRecordBytes.');
}

describe('readNdjsonLines', () => {
    it('yields the lines of each chunk, joining a line split across chunks and skipping blank ones', async () => {
        const { lines, error } = await read(source(['{"a":1}\n{"b"', ':2}\n\n  \n{"c":3}']));
        assert.equal(error, undefined);
        assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
    });

    it('a 600 MB line with no end fails one piece past 8 MiB, keeps the lines before it, and holds memory flat', async () => {
        const stream = lazyStream('{"n":1}\n{"n":2}\n{"text":"', 600 * 1024 * 1024);
        const heapBefore = liveHeap();
        const { lines, error } = await read(stream.chunks);
        assertRecordLimit(error, '8 MiB');
        assert.deepEqual(lines, ['{"n":1}', '{"n":2}']);
        assert.ok(stream.pulled() <= DEFAULT_LIMITS.maxRecordBytes + stream.pieceBytes, `pulled ${stream.pulled()} bytes`);
        // The unfinished line stays the bytes received: never decoded, it never becomes an 8 MiB string on the heap.
        assert.ok(stream.peakHeap() - heapBefore < 2 * 1024 * 1024, `heap grew ${stream.peakHeap() - heapBefore} bytes`);
    });

    it('a line over the limit that arrives whole in one chunk fails after the lines before it', async () => {
        const { lines, error } = await read(source([`{"a":1}\n"${'y'.repeat(200)}"\n{"b":2}\n`]), 100);
        assertRecordLimit(error, '100 bytes');
        assert.deepEqual(lines, ['{"a":1}']);
    });

    it('a line that crosses the limit in the chunk that ends it fails without being decoded, after the lines before it', async () => {
        const { lines, error } = await read(source(['{"a":1}\n"', 'y'.repeat(90), `${'y'.repeat(20)}"\n{"b":2}\n`]), 100);
        assertRecordLimit(error, '100 bytes');
        assert.deepEqual(lines, ['{"a":1}']);
    });

    it('counts bytes, not characters, and keeps a character split between chunks whole', async () => {
        const { error } = await read(source([`"${'€'.repeat(40)}"\n`]), 100);
        assertRecordLimit(error, '100 bytes');
        const bytes = new TextEncoder().encode(`{"t":"${'€'.repeat(30)}"}\r\n`);
        const chunks = async function* () {
            yield bytes.slice(0, 8);
            yield bytes.slice(8);
        };
        assert.deepEqual((await read(chunks(), 100)).lines, [`{"t":"${'€'.repeat(30)}"}`]);
    });

    it('a last line without an end over the limit fails too', async () => {
        const { lines, error } = await read(source(['{"a":1}\n', `"${'z'.repeat(60)}`, `${'z'.repeat(60)}"`]), 100);
        assertRecordLimit(error, '100 bytes');
        assert.deepEqual(lines, ['{"a":1}']);
    });

    it('only one line counts: many short lines pass however long the stream', async () => {
        const stream = lazyStream('', 4 * 1024 * 1024, '{"t":"hello"}\n');
        const { lines, error } = await read(stream.chunks, 1024);
        assert.equal(error, undefined);
        assert.equal(lines.length, Math.ceil(4 * 1024 * 1024 / 14), 'every line, the last one cut short included');
    });
});
