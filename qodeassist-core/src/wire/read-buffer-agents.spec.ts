import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ClientRequest, createServer, IncomingMessage, request as httpRequest, RequestOptions, Server, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressInfo, Socket } from 'node:net';
import { ConnectionOptions, createServer as createTlsServer, Server as TlsServer } from 'node:tls';
import { sendHttp } from './http-request';
import { HTTP_AGENT, HTTPS_AGENT, READ_BUFFER_BYTES } from './read-buffer-agents';

/** Pseudo-random bytes (never the same in two places, so a piece read twice or overwritten shows). */
const BODY = randomBytes(3 * 1024 * 1024 + 4321);
const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Writes the body in pieces of odd sizes, each waiting for the socket to drain, so reads fill and split anywhere. */
async function writeInPieces(response: ServerResponse, body: Buffer): Promise<void> {
    const sizes = [1, 7, 4096, READ_BUFFER_BYTES - 3, READ_BUFFER_BYTES + 5, 3 * READ_BUFFER_BYTES, 333];
    for (let at = 0, next = 0; at < body.length; next++) {
        const piece = body.subarray(at, at + sizes[next % sizes.length]);
        at += piece.length;
        if (!response.write(piece)) {
            await new Promise(resolve => response.once('drain', resolve));
        }
    }
    response.end();
}

async function readAll(url: string): Promise<Buffer> {
    const response = await sendHttp({ method: 'GET', url, headers: {}, signal: new AbortController().signal });
    const pieces: Uint8Array[] = [];
    for (let next = await response.read(); next; next = await response.read()) {
        pieces.push(next);
        // A slow reader: the next network read lands while this piece is still held.
        await new Promise(resolve => setImmediate(resolve));
    }
    return Buffer.concat(pieces);
}

/**
 * Reads a whole answer with Node's client through one of the agents, noting the memory each
 * network read of the connection arrived in.
 */
function readThroughAgent(send: (callback: (response: IncomingMessage) => void) => ClientRequest): Promise<{ body: Buffer; reads: number; readBuffers: Set<ArrayBufferLike> }> {
    return new Promise((resolve, reject) => {
        const readBuffers = new Set<ArrayBufferLike>();
        let reads = 0;
        const request = send(response => {
            const pieces: Buffer[] = [];
            response.on('data', (piece: Buffer) => pieces.push(piece));
            response.once('end', () => resolve({ body: Buffer.concat(pieces), reads, readBuffers }));
            response.once('error', reject);
        });
        request.once('socket', (socket: Socket) => socket.on('data', (read: Buffer) => {
            reads++;
            readBuffers.add(read.buffer);
        }));
        request.once('error', reject);
        request.end();
    });
}

describe('connections reading into one reused buffer', function () {
    this.timeout(20_000);
    let server: Server;
    let url: string;
    const connections: unknown[] = [];

    before(async () => {
        server = createServer((request: IncomingMessage, response: ServerResponse) => {
            response.writeHead(200, { 'content-type': 'application/octet-stream' });
            // The second path answers with the body reversed: two streams read at once must not trade bytes.
            void writeInPieces(response, request.url === '/reversed' ? Buffer.from(BODY).reverse() : BODY);
        });
        server.on('connection', socket => connections.push(socket));
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
        server.closeAllConnections();
        await new Promise(resolve => server.close(resolve));
    });

    it('delivers every byte in order, whatever the reads, and keeps the connection for the next request', async () => {
        connections.length = 0;
        assert.equal(digest(await readAll(`${url}/`)), digest(BODY));
        // The connection goes back to the agent's pool a moment after the answer's end.
        for (let wait = 0; wait < 100 && Object.keys(HTTP_AGENT.freeSockets).length === 0; wait++) {
            await new Promise(resolve => setTimeout(resolve, 10));
        }
        assert.equal(digest(await readAll(`${url}/`)), digest(BODY));
        assert.equal(connections.length, 1, 'the second request went over the kept connection');
    });

    it('reads every network chunk of a connection into the same memory', async () => {
        const { body, reads, readBuffers } = await readThroughAgent(callback => httpRequest(`${url}/`, { agent: HTTP_AGENT }, callback));
        assert.equal(digest(body), digest(BODY));
        assert.ok(reads > 10, `${reads} reads`);
        assert.equal(readBuffers.size, 1, 'one buffer for all the reads');
        assert.equal([...readBuffers][0].byteLength, READ_BUFFER_BYTES);
    });

    it('gives each connection its own buffer: two answers read at once arrive each whole', async () => {
        const [forward, reversed] = await Promise.all([readAll(`${url}/`), readAll(`${url}/reversed`)]);
        assert.equal(digest(forward), digest(BODY));
        assert.equal(digest(reversed), digest(Buffer.from(BODY).reverse()));
    });
});

describe('a TLS connection reading into one reused buffer', function () {
    this.timeout(20_000);
    // A pre-shared key instead of a certificate: TLS without a certificate file in the repository.
    const KEY = randomBytes(32);
    const TLS_OPTIONS = { ciphers: 'PSK-AES128-GCM-SHA256', maxVersion: 'TLSv1.2' as const };
    let server: TlsServer;
    let port: number;

    before(async () => {
        server = createTlsServer({ ...TLS_OPTIONS, pskCallback: () => KEY }, socket => {
            socket.once('data', () => {
                socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\nconnection: close\r\ncontent-length: ${BODY.length}\r\n\r\n`);
                const sizes = [5, READ_BUFFER_BYTES + 1, 16_385, 100_000];
                let at = 0;
                const pump = (): void => {
                    for (let next = 0; at < BODY.length; next++) {
                        const piece = BODY.subarray(at, at + sizes[next % sizes.length]);
                        at += piece.length;
                        if (!socket.write(piece)) {
                            socket.once('drain', pump);
                            return;
                        }
                    }
                    socket.end();
                };
                pump();
            });
        });
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
    });
    after(async () => {
        await new Promise(resolve => server.close(resolve));
    });

    it('decrypts into it and delivers every byte in order', async () => {
        const options: RequestOptions & ConnectionOptions = {
            host: '127.0.0.1', port, path: '/', agent: HTTPS_AGENT, ...TLS_OPTIONS,
            pskCallback: () => ({ psk: KEY, identity: 'test' }), checkServerIdentity: () => undefined
        };
        const { body, reads, readBuffers } = await readThroughAgent(callback => httpsRequest(options, callback));
        assert.equal(body.length, BODY.length);
        assert.equal(digest(body), digest(BODY));
        assert.ok(reads > 10, `${reads} reads`);
        assert.equal(readBuffers.size, 1, 'one buffer for all the decrypted reads');
    });
});
