import { createServer } from 'node:net';

/** A loopback port nothing listens on: bound, noted, released — for "connection refused" cases. */
export async function closedLoopbackPort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>(resolve => probe.close(() => resolve()));
    return port;
}
