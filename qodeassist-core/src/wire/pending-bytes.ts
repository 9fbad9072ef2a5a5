/** Pieces at least this long are kept as they arrived (no copy); shorter ones are copied together. */
const KEEP_AT_LEAST = 16 * 1024;
/** The buffers short pieces are copied into: the first of a record this long, each next one twice the last, up to the largest. */
const FIRST_GATHER_BYTES = 1024;
const LARGEST_GATHER_BYTES = 64 * 1024;

/**
 * The bytes of a record that has not ended yet, kept as they came off the network and counted
 * by length: nothing is decoded until the record is complete, so an over-long record fails
 * without ever becoming a string.
 *
 * A piece is kept without copying only when it is large and fills at least half the memory it
 * sits in; short pieces are copied into shared buffers, and a shared buffer left less than half
 * full is cut to size. So what is held stays within twice the bytes counted and one 64 KiB
 * buffer (about the bytes themselves for a stream of full network reads), whether the provider
 * sends 64 KiB reads or one byte at a time: a million one-byte pieces would otherwise cost an
 * object each, and a short view would pin the whole read it came from.
 */
export class PendingBytes {
    private pieces: Uint8Array[] = [];
    /** The buffer short pieces are being copied into: the last piece is a view of its first `used` bytes. */
    private gather: { buffer: Uint8Array; used: number } | undefined;
    private nextGatherBytes = FIRST_GATHER_BYTES;
    private size = 0;

    /** Bytes held. */
    get length(): number {
        return this.size;
    }

    push(bytes: Uint8Array): void {
        if (bytes.byteLength === 0) {
            return;
        }
        this.size += bytes.byteLength;
        if (bytes.byteLength >= KEEP_AT_LEAST && bytes.buffer.byteLength <= 2 * bytes.byteLength) {
            this.closeGather();
            this.pieces.push(bytes);
            return;
        }
        let offset = 0;
        while (offset < bytes.byteLength) {
            if (!this.gather || this.gather.used === this.gather.buffer.byteLength) {
                // A buffer that filled up is followed by one twice its size: many short pieces in a row cost few buffers.
                if (this.gather) {
                    this.nextGatherBytes = Math.min(LARGEST_GATHER_BYTES, 2 * this.gather.buffer.byteLength);
                }
                this.gather = { buffer: new Uint8Array(Math.min(LARGEST_GATHER_BYTES, Math.max(bytes.byteLength - offset, this.nextGatherBytes))), used: 0 };
                this.pieces.push(this.gather.buffer.subarray(0, 0));
            }
            const gather = this.gather;
            const count = Math.min(bytes.byteLength - offset, gather.buffer.byteLength - gather.used);
            gather.buffer.set(bytes.subarray(offset, offset + count), gather.used);
            gather.used += count;
            offset += count;
            this.pieces[this.pieces.length - 1] = gather.buffer.subarray(0, gather.used);
        }
    }

    /** Ends the shared buffer before a piece kept as it is; one less than half full is copied to its size. */
    private closeGather(): void {
        const gather = this.gather;
        if (gather && gather.used < gather.buffer.byteLength / 2) {
            this.pieces[this.pieces.length - 1] = gather.buffer.slice(0, gather.used);
        }
        this.gather = undefined;
    }

    /** All the bytes held followed by `more` (not copied when nothing is held), and nothing held afterwards. */
    take(more?: Uint8Array): Uint8Array {
        if (this.size === 0) {
            return more ?? new Uint8Array(0);
        }
        if (more && more.byteLength > 0) {
            this.pieces.push(more);
        }
        const whole = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces, this.size + (more?.byteLength ?? 0));
        this.clear();
        return whole;
    }

    clear(): void {
        this.pieces = [];
        this.gather = undefined;
        this.nextGatherBytes = FIRST_GATHER_BYTES;
        this.size = 0;
    }
}

/** Whether text takes more than `maxBytes` as UTF-8, counting its bytes only when its length leaves a doubt. */
export function longerThan(text: string, maxBytes: number): boolean {
    // One UTF-16 unit is at most 3 bytes of UTF-8.
    return text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes);
}
