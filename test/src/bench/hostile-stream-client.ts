import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ResponseEvent, streamWire, WIRE_PROTOCOLS, WireProtocolName } from '@qodeassist/core';

/** What one fresh process measured around one hostile stream, in bytes and milliseconds. */
export interface HostileRun {
    rssBefore: number;
    /** Right after the error: what the stream made the process hold, garbage not yet collected included. */
    rssAtError: number;
    /** After a full GC once it failed. */
    rssCollected: number;
    /** Node's ArrayBuffers (every Buffer's bytes) before and right after the error: what the stream made the process hold, exactly. */
    buffersBefore: number;
    buffersAtError: number;
    ms: number;
    error: string;
}

/** What the parent asks of a run (one JSON argument). */
export interface HostileRunRequest {
    protocol: WireProtocolName;
    /** A well-formed answer streamed first, so the heap is sized as in a process that has already talked to a provider. */
    warmUrl: string;
    hostileUrl: string;
    body: unknown;
    unbounded: boolean;
}

function collectGarbage(): void {
    setFlagsFromString('--expose_gc');
    (runInNewContext('gc') as () => void)();
}

/** A full GC, a pause in which V8 and the allocator may hand pages back, and another: RSS as the process settles. */
async function settle(): Promise<void> {
    collectGarbage();
    await new Promise(resolve => setTimeout(resolve, 100));
    collectGarbage();
}

async function stream(request: HostileRunRequest, url: string, unbounded: boolean): Promise<ResponseEvent | undefined> {
    let last: ResponseEvent | undefined;
    for await (const batch of streamWire(WIRE_PROTOCOLS[request.protocol], {
        requestId: 'bench', url, headers: {}, body: request.body, retry: { maxAttempts: 1 },
        ...unbounded ? { maxRecordBytes: 2 ** 30, maxAnswerBytes: 2 ** 30 } : {}
    })) {
        last = batch.at(-1) ?? last;
    }
    return last;
}

/** One run in this (fresh) process: warm up, collect, measure around the hostile stream. */
async function main(): Promise<void> {
    const request = JSON.parse(process.argv[2]) as HostileRunRequest;
    await stream(request, request.warmUrl, false);
    await settle();
    const rssBefore = process.memoryUsage.rss();
    const buffersBefore = process.memoryUsage().arrayBuffers;
    const start = performance.now();
    const last = await stream(request, request.hostileUrl, request.unbounded);
    const ms = performance.now() - start;
    const rssAtError = process.memoryUsage.rss();
    const buffersAtError = process.memoryUsage().arrayBuffers;
    await settle();
    const run: HostileRun = {
        rssBefore, rssAtError, rssCollected: process.memoryUsage.rss(), buffersBefore, buffersAtError, ms,
        error: last?.type === 'Error' ? last.error.message : `ended with ${last?.type ?? 'nothing'}`
    };
    process.stdout.write(JSON.stringify(run));
}

if (require.main === module) {
    main().catch(error => {
        console.error(error);
        process.exit(1);
    });
}
