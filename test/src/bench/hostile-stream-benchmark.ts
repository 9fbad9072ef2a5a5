import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_LIMITS, WIRE_PROTOCOLS, WireProtocolName } from '@qodeassist/core';
import { HostileProvider } from '../wire/hostile-provider';
import { PROTOCOL_CASES } from '../wire/protocol-cases';
import type { HostileRun, HostileRunRequest } from './hostile-stream-client';
import { median } from './statistics';

const MiB = 1024 * 1024;
const RUNS = 3;
const WARM_UP_BYTES = 20 * MiB;

export interface HostileStreamRow {
    name: string;
    streamBytes: number;
    /** Undefined for a baseline, whose limits were raised past the stream. */
    maxRecordBytes?: number;
    /** Bytes the provider got rid of before the client hung up (socket buffers included), median. */
    sentBytes: number;
    failMs: number;
    rssBefore: number;
    rssAtError: number;
    rssCollected: number;
    /** (RSS at the error − before) ÷ the default record limit, median and worst run. */
    growth: number;
    worstGrowth: number;
    /** (ArrayBuffers at the error − before) ÷ the default record limit, median. */
    bufferGrowth: number;
    error: string;
}

interface Setup {
    name: string;
    protocol: WireProtocolName;
    /** The start of the record that never ends. */
    open: string;
    /** One well-formed text record, repeated for the warm-up answer. */
    record: string;
    streamBytes: number;
    unbounded?: boolean;
}

const SSE = { protocol: 'openai-chat' as const, open: 'data: {"choices":[{"delta":{"content":"', record: 'data: {"choices":[{"delta":{"content":"Hello"}}]}\n\n' };
const NDJSON = { protocol: 'ollama-chat' as const, open: '{"message":{"content":"', record: '{"message":{"role":"assistant","content":"Hello"},"done":false}\n' };

const SETUPS: Setup[] = [
    { name: 'SSE (openai-chat)', ...SSE, streamBytes: 600 * MiB },
    { name: 'NDJSON (ollama-chat)', ...NDJSON, streamBytes: 600 * MiB },
    { name: 'SSE (openai-chat)', ...SSE, streamBytes: 60 * MiB },
    // What the readers did before the limit existed: the whole unfinished record is held. Smaller streams: the point is made without the swap.
    { name: 'baseline, no bound: SSE (openai-chat)', ...SSE, streamBytes: 60 * MiB, unbounded: true },
    { name: 'baseline, no bound: SSE (openai-chat)', ...SSE, streamBytes: 120 * MiB, unbounded: true }
];

function runClient(request: HostileRunRequest): Promise<HostileRun> {
    return new Promise((resolve, reject) => execFile(process.execPath, [join(__dirname, 'hostile-stream-client.js'), JSON.stringify(request)],
        { maxBuffer: MiB }, (error, stdout) => error ? reject(error) : resolve(JSON.parse(stdout) as HostileRun)));
}

/**
 * A provider on 127.0.0.1 sends the start of a record and then one that never ends (600 MB of `a`,
 * made 64 KiB at a time as the socket drains) to the full wire client in a fresh process, which
 * has streamed a well-formed 20 MB answer first; RSS is taken there before, at the error, and after a GC.
 */
export async function measureHostileStream(): Promise<HostileStreamRow[]> {
    const provider = new HostileProvider();
    const url = await provider.start();
    const rows: HostileStreamRow[] = [];
    try {
        for (const setup of SETUPS) {
            const testCase = PROTOCOL_CASES.find(entry => entry.protocol === setup.protocol)!;
            const contentType = WIRE_PROTOCOLS[setup.protocol].framing === 'ndjson' ? 'application/x-ndjson' : 'text/event-stream';
            provider.answer = path => path.startsWith('/warm')
                ? { status: 200, contentType, prefix: '', fill: setup.record, totalBytes: WARM_UP_BYTES }
                : { status: 200, contentType, prefix: setup.open, totalBytes: setup.streamBytes };
            const runs: Array<HostileRun & { sent: number }> = [];
            for (let run = 0; run < RUNS; run++) {
                provider.outcomes.length = 0;
                const result = await runClient({
                    protocol: setup.protocol, warmUrl: `${url}/warm${testCase.path}`, hostileUrl: `${url}${testCase.path}`, body: testCase.body, unbounded: setup.unbounded ?? false
                });
                const hostile = await provider.outcomes[1];
                runs.push({ ...result, sent: hostile.bytesWritten });
            }
            const growth = runs.map(run => (run.rssAtError - run.rssBefore) / DEFAULT_LIMITS.maxRecordBytes);
            rows.push({
                name: setup.name, streamBytes: setup.streamBytes, ...setup.unbounded ? {} : { maxRecordBytes: DEFAULT_LIMITS.maxRecordBytes },
                sentBytes: median(runs.map(run => run.sent)), failMs: median(runs.map(run => run.ms)),
                rssBefore: median(runs.map(run => run.rssBefore)), rssAtError: median(runs.map(run => run.rssAtError)), rssCollected: median(runs.map(run => run.rssCollected)),
                growth: median(growth), worstGrowth: Math.max(...growth), error: runs[0].error,
                bufferGrowth: median(runs.map(run => (run.buffersAtError - run.buffersBefore) / DEFAULT_LIMITS.maxRecordBytes))
            });
        }
    } finally {
        await provider.stop();
    }
    return rows;
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export function hostileStreamTable(rows: HostileStreamRow[]): string {
    return [
        '| stream | record limit | sent before failing | fails after | RSS before | RSS at the error | RSS after GC | (at the error − before) ÷ 8 MiB: median, worst | ArrayBuffers: (at the error − before) ÷ 8 MiB | ends with |',
        '|---|---|---|---|---|---|---|---|---|---|',
        ...rows.map(row => `| ${row.name}, ${mib(row.streamBytes)} | ${row.maxRecordBytes ? mib(row.maxRecordBytes) : 'none'} | ${mib(row.sentBytes)} | `
            + `${row.failMs.toFixed(0)} ms | ${mib(row.rssBefore)} | ${mib(row.rssAtError)} | ${mib(row.rssCollected)} | **${row.growth.toFixed(2)}×**, ${row.worstGrowth.toFixed(2)}× | ${row.bufferGrowth.toFixed(2)}× | `
            + `${row.error.split(' (')[0].split(',')[0]} |`)
    ].join('\n');
}
