/** A byte stream for the reader specs, generated as it is pulled, with what it cost to read. */
export interface LazyStream {
    chunks: AsyncIterable<Uint8Array>;
    /** Bytes the reader has pulled so far. */
    pulled(): number;
    /** The largest V8 heap seen between two pulls. */
    peakHeap(): number;
    pieceBytes: number;
}

/**
 * `head`, then `fill` repeated, `totalBytes` in all, in pieces of about 64 KiB made one at a time
 * as the reader asks: a 600 MB stream costs one piece of memory, so what grows is the reader's.
 */
export function lazyStream(head: string, totalBytes: number, fill = 'a'): LazyStream {
    const one = Buffer.byteLength(fill);
    const piece = new TextEncoder().encode(fill.repeat(Math.max(1, Math.floor(64 * 1024 / one))));
    let pulled = 0;
    let peakHeap = process.memoryUsage().heapUsed;
    async function* chunks(): AsyncGenerator<Uint8Array> {
        const first = new TextEncoder().encode(head);
        pulled += first.length;
        yield first;
        while (pulled < totalBytes) {
            peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
            const size = Math.min(piece.length, totalBytes - pulled);
            pulled += size;
            // A fresh copy each time, as a network read would hand over.
            yield piece.slice(0, size);
        }
    }
    return { chunks: chunks(), pulled: () => pulled, peakHeap: () => peakHeap, pieceBytes: piece.length };
}
