import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** What the hostile provider answers one request with: a status, a prefix, then one text repeated, generated as it is sent. */
export interface HostileAnswer {
    status: number;
    contentType: string;
    /** Sent first, e.g. a few well-formed records and the start of the endless one. */
    prefix: string;
    /** Bytes of the whole body, prefix included; nothing is held but one piece, whatever the size. */
    totalBytes: number;
    /** What fills the body after the prefix, repeated: by default `a`, so the last record never ends. */
    fill?: string;
}

/** How one answer went: the bytes the server got rid of (backpressure included) and whether the client hung up first. */
export interface HostileOutcome {
    bytesWritten: number;
    closedEarly: boolean;
    /** The process's largest resident set size seen while sending. */
    peakRss: number;
}

const PIECE_BYTES = 64 * 1024;

/** About 64 KiB of the fill repeated whole, so that pieces sent one after another repeat it seamlessly. */
function pieceOf(fill: string): Buffer {
    const one = Buffer.from(fill, 'utf8');
    return Buffer.from(fill.repeat(Math.max(1, Math.floor(PIECE_BYTES / one.length))), 'utf8');
}

/**
 * A provider on 127.0.0.1 that sends a body of any length in 64 KiB pieces generated lazily, waiting
 * for the socket to drain after each: `bytesWritten` is what the client has pulled, plus what the
 * kernel and the client's socket buffer hold.
 */
export class HostileProvider {
    private server: Server | undefined;
    /** The answer to every request, or one per request path. */
    answer: HostileAnswer | ((path: string) => HostileAnswer) = { status: 200, contentType: 'text/event-stream', prefix: '', totalBytes: 0 };
    readonly outcomes: Array<Promise<HostileOutcome>> = [];

    async start(): Promise<string> {
        this.server = createServer((request, response) => this.outcomes.push(this.send(request, response)));
        await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
        this.server.unref();
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise(resolve => this.server?.close(resolve));
    }

    private async send(request: IncomingMessage, response: ServerResponse): Promise<HostileOutcome> {
        request.resume();
        const answer = typeof this.answer === 'function' ? this.answer(request.url ?? '/') : this.answer;
        const { status, contentType, prefix, totalBytes, fill = 'a' } = answer;
        const piece = pieceOf(fill);
        const outcome: HostileOutcome = { bytesWritten: 0, closedEarly: false, peakRss: process.memoryUsage.rss() };
        const closed = new Promise<void>(resolve => response.once('close', () => {
            outcome.closedEarly = !response.writableFinished;
            resolve();
        }));
        response.writeHead(status, { 'content-type': contentType });
        let drained = Promise.resolve();
        const write = (bytes: Buffer) => {
            outcome.bytesWritten += bytes.length;
            if (!response.write(bytes)) {
                drained = new Promise(resolve => response.once('drain', resolve));
                return false;
            }
            return true;
        };
        write(Buffer.from(prefix, 'utf8'));
        while (!response.destroyed && outcome.bytesWritten < totalBytes) {
            outcome.peakRss = Math.max(outcome.peakRss, process.memoryUsage.rss());
            const size = Math.min(piece.length, totalBytes - outcome.bytesWritten);
            if (!write(size === piece.length ? piece : piece.subarray(0, size))) {
                await Promise.race([drained, closed]);
            }
        }
        if (!response.destroyed) {
            response.end();
        }
        await closed;
        return outcome;
    }
}
