import { Agent as HttpAgent, AgentOptions } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** One network read at most: what Node reads at a time anyway. */
export const READ_BUFFER_BYTES = 64 * 1024;

/** As Node's global agents are: connections kept for the next request, the most recently used first. */
const AGENT_OPTIONS: AgentOptions = { keepAlive: true, scheduling: 'lifo', timeout: 5_000 };

type Connect = (options: object, callback?: (error: Error | null, socket: Duplex) => void) => Duplex | undefined | null;

/**
 * A connection that reads every chunk into one buffer of its own, reused read after read. Node's
 * HTTP parser copies each piece of a body out of the read it came in, so the buffer Node would
 * otherwise allocate for each read is garbage the moment it is parsed: a flood of bytes held as
 * much again in dead read buffers as in the body until the collector ran. The parser reads the
 * chunk before the next read can overwrite it (`data` is emitted synchronously).
 */
function connectWithReusedBuffer(connect: Connect, options: object, callback?: (error: Error | null, socket: Duplex) => void): Duplex | undefined | null {
    const onread = {
        buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
        // Reads start once connected, after `socket` below is set.
        callback: (bytes: number, into: Buffer): boolean => {
            socket?.emit('data', into.subarray(0, bytes));
            return true;
        }
    };
    const socket = connect({ ...options, onread }, callback);
    return socket;
}

class ReusedBufferHttpAgent extends HttpAgent {
    override createConnection(options: object, callback?: (error: Error | null, socket: Duplex) => void): Duplex {
        return connectWithReusedBuffer((opts, cb) => super.createConnection(opts as never, cb as never), options, callback) as Socket;
    }
}

class ReusedBufferHttpsAgent extends HttpsAgent {
    override createConnection(options: object, callback?: (error: Error | null, socket: Duplex) => void): Duplex {
        return connectWithReusedBuffer((opts, cb) => super.createConnection(opts as never, cb as never), options, callback) as Socket;
    }
}

/** The agents every provider request goes through (one per scheme, as Node's global ones). */
export const HTTP_AGENT: HttpAgent = new ReusedBufferHttpAgent(AGENT_OPTIONS);
export const HTTPS_AGENT: HttpsAgent = new ReusedBufferHttpsAgent(AGENT_OPTIONS);
