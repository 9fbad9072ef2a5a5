import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * The V8 heap still reachable now: garbage is collected first, so what is measured is what the
 * reader holds, not what a long test run left for the collector (whose young space grows with it).
 */
export function liveHeap(): number {
    collectGarbage();
    return process.memoryUsage().heapUsed;
}

/** A byte stream for the reader specs, generated as it is pulled, with what it cost to read. */
export interface LazyStream {
    chunks: AsyncIterable<Uint8Array>;
    /** Bytes the reader has pulled so far. */
    pulled(): number;
    /** The largest reachable V8 heap seen between pulls (sampled every 16 pieces, about 1 MiB). */
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
    let peakHeap = liveHeap();
    let pieces = 0;
    async function* chunks(): AsyncGenerator<Uint8Array> {
        const first = new TextEncoder().encode(head);
        pulled += first.length;
        yield first;
        while (pulled < totalBytes) {
            if (++pieces % 16 === 0) {
                peakHeap = Math.max(peakHeap, liveHeap());
            }
            const size = Math.min(piece.length, totalBytes - pulled);
            pulled += size;
            // A fresh copy each time, as a network read would hand over.
            yield piece.slice(0, size);
        }
    }
    return { chunks: chunks(), pulled: () => pulled, peakHeap: () => peakHeap, pieceBytes: piece.length };
}
