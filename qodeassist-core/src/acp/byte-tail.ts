/**
 * The last bytes of a stream (an agent's standard error, a terminal's output), decoded when read:
 * memory stays bounded whatever the process prints, and the text starts on a character boundary.
 */
export class ByteTail {
    private chunks: Buffer[] = [];
    private length = 0;
    private dropped = false;

    constructor(private readonly maxBytes: number) { }

    push(chunk: Buffer): void {
        if (chunk.length === 0) {
            return;
        }
        this.chunks.push(chunk);
        this.length += chunk.length;
        while (this.chunks.length > 1 && this.length - this.chunks[0].length >= this.maxBytes) {
            this.length -= this.chunks.shift()!.length;
            this.dropped = true;
        }
    }

    /** Whether anything was left out at the start. */
    get truncated(): boolean {
        return this.dropped || this.length > this.maxBytes;
    }

    text(): string {
        const all = Buffer.concat(this.chunks);
        let from = Math.max(0, all.length - this.maxBytes);
        // A cut inside a UTF-8 sequence starts on continuation bytes: skip to the next whole character.
        const cut = this.dropped || from > 0;
        while (cut && from < all.length && (all[from] & 0xc0) === 0x80) {
            from++;
        }
        return all.subarray(from).toString('utf8');
    }
}
