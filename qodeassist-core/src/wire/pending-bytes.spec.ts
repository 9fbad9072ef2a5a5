import * as assert from 'node:assert/strict';
import { longerThan, PendingBytes } from './pending-bytes';

/** The bytes a PendingBytes holds in memory: the distinct buffers under its pieces. */
function heldBytes(pending: PendingBytes): number {
    const pieces = (pending as unknown as { pieces: Uint8Array[] }).pieces;
    return [...new Set(pieces.map(piece => piece.buffer))].reduce((sum, buffer) => sum + buffer.byteLength, 0);
}

describe('PendingBytes', () => {
    it('gives back every byte in order, whatever the pieces, and is empty afterwards', () => {
        const pending = new PendingBytes();
        const text = 'héllo, wörld – '.repeat(5000);
        const bytes = Buffer.from(text);
        const sizes = [1, 2, 3, 20_000, 7, 70_000, 1, 1];
        let offset = 0;
        for (let index = 0; offset < bytes.length; index++) {
            const size = sizes[index % sizes.length];
            pending.push(Uint8Array.prototype.slice.call(bytes, offset, offset + size));
            offset += size;
        }
        assert.equal(pending.length, bytes.length);
        assert.equal(Buffer.from(pending.take(Buffer.from('!'))).toString(), `${text}!`);
        assert.equal(pending.length, 0);
        assert.equal(pending.take().byteLength, 0);
    });

    it('keeps a large piece that fills its memory as it is, without a copy', () => {
        const pending = new PendingBytes();
        const piece = Buffer.alloc(64 * 1024, 1);
        pending.push(piece);
        assert.equal(pending.take(), piece);
    });

    it('a million one-byte pieces cost about a megabyte, not an object each', () => {
        const pending = new PendingBytes();
        for (let index = 0; index < 1_000_000; index++) {
            pending.push(new Uint8Array([index % 256]));
        }
        assert.equal(pending.length, 1_000_000);
        assert.ok(heldBytes(pending) <= 1_000_000 + 64 * 1024, `holds ${heldBytes(pending)} bytes`);
        assert.ok((pending as unknown as { pieces: unknown[] }).pieces.length < 40, 'a few shared buffers');
    });

    it('a short view of a large read is copied: it does not pin the read', () => {
        const pending = new PendingBytes();
        const read = Buffer.alloc(64 * 1024, 2);
        pending.push(read.subarray(100, 200));
        assert.ok(heldBytes(pending) < 2 * 1024, `holds ${heldBytes(pending)} bytes`);
    });

    it('large and short pieces in turn hold at most twice the bytes and one buffer', () => {
        const pending = new PendingBytes();
        for (let index = 0; index < 200; index++) {
            pending.push(Buffer.alloc(16 * 1024, 3));
            pending.push(new Uint8Array(1));
        }
        assert.ok(heldBytes(pending) <= 2 * pending.length + 64 * 1024, `holds ${heldBytes(pending)} bytes for ${pending.length}`);
    });
});

describe('longerThan (UTF-8 bytes)', () => {
    it('counts bytes, not UTF-16 units', () => {
        assert.equal(longerThan('a'.repeat(100), 100), false);
        assert.equal(longerThan('a'.repeat(101), 100), true);
        assert.equal(longerThan('€'.repeat(33), 100), false, '99 bytes');
        assert.equal(longerThan('€'.repeat(34), 100), true, '102 bytes');
        assert.equal(longerThan('😀'.repeat(25), 100), false, 'four bytes each, two units each');
        assert.equal(longerThan('😀'.repeat(26), 100), true);
    });
});
