import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { streamWire, WIRE_PROTOCOLS } from '@qodeassist/core';
import { FakeProviderServer, FIXTURES_DIR } from '../fake-provider/fake-provider-server';
import { BUILTIN_PROTOCOLS } from '../fake-provider/protocols';
import { PROTOCOL_CASES } from '../wire/protocol-cases';
import { median } from './statistics';

const TARGET_BYTES = 20 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const RUNS = 3;

/** The text fixture with its first text-carrying record repeated until the stream is ~20 MB. */
function bigRecording(protocolName: string, fixture: string): string {
    const fake = BUILTIN_PROTOCOLS.find(p => p.name === protocolName)!;
    const records = fake.splitRecords(readFileSync(join(FIXTURES_DIR, fixture), 'utf8'));
    const index = records.findIndex(record => record.includes('Hello') || record.includes('return [...text]'));
    const repeated = records[index];
    const count = Math.ceil(TARGET_BYTES / Buffer.byteLength(repeated));
    return [...records.slice(0, index), repeated.repeat(count), ...records.slice(index + 1)].join('');
}

export interface ThroughputRow {
    protocol: string;
    megabytes: number;
    events: number;
    rawMs: number;
    parseMs: number;
    ratio: number;
    /** JSON.parse of every record's payload alone, in memory: the floor for any JSON-based decoder. */
    jsonFloorMs: number;
}

/** The JSON payloads of a recording (SSE `data:` lines or NDJSON lines), extracted outside the timing. */
function jsonPayloads(protocolName: string, recording: string): string[] {
    const fake = BUILTIN_PROTOCOLS.find(p => p.name === protocolName)!;
    return fake.splitRecords(recording).flatMap(record => record.split(/\r?\n/))
        .map(line => line.startsWith('data:') ? line.slice(5).trim() : line.trim())
        .filter(line => line.startsWith('{'));
}

function jsonParseFloor(payloads: string[]): number {
    const start = performance.now();
    for (const payload of payloads) {
        JSON.parse(payload);
    }
    return performance.now() - start;
}

/** Parse throughput per protocol against reading the same bytes raw from the same server, in one run. */
export async function measureWireThroughput(): Promise<ThroughputRow[]> {
    const server = new FakeProviderServer({ maxLifetimeMs: 10 * 60_000 });
    await server.start();
    const rows: ThroughputRow[] = [];
    try {
        for (const testCase of PROTOCOL_CASES) {
            const recording = bigRecording(testCase.protocol, testCase.textFixture);
            server.setDefault({ kind: 'replay', recording, chunkBytes: CHUNK_BYTES });
            const url = `${server.url}${testCase.path}`;
            const raw: number[] = [];
            const parse: number[] = [];
            let events = 0;
            for (let run = 0; run < RUNS; run++) {
                let start = performance.now();
                const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(testCase.body) });
                const reader = response.body!.getReader();
                for (let next = await reader.read(); !next.done; next = await reader.read()) {
                    // Read only: the baseline is the cost of moving the bytes.
                }
                raw.push(performance.now() - start);

                start = performance.now();
                events = 0;
                for await (const batch of streamWire(WIRE_PROTOCOLS[testCase.protocol], {
                    requestId: 'bench', url, headers: {}, body: testCase.body, retry: { maxAttempts: 1 }
                })) {
                    events += batch.length;
                    const failure = batch.find(event => event.type === 'Error');
                    if (failure?.type === 'Error') {
                        throw new Error(`${testCase.protocol}: ${failure.error.message}`);
                    }
                }
                parse.push(performance.now() - start);
            }
            const rawMs = median(raw);
            const parseMs = median(parse);
            const payloads = jsonPayloads(testCase.protocol, recording);
            const jsonFloorMs = median([jsonParseFloor(payloads), jsonParseFloor(payloads), jsonParseFloor(payloads)]);
            rows.push({ protocol: testCase.protocol, megabytes: Buffer.byteLength(recording) / 1024 / 1024, events, rawMs, parseMs, ratio: rawMs / parseMs, jsonFloorMs });
        }
    } finally {
        await server.stop();
    }
    return rows;
}

export function throughputTable(rows: ThroughputRow[]): string {
    const lines = [
        '| protocol | stream | events | raw read | parse to events | parse ÷ raw | JSON.parse alone | ceiling: raw ÷ (raw + JSON.parse) |',
        '|---|---|---|---|---|---|---|---|',
        ...rows.map(row => `| ${row.protocol} | ${row.megabytes.toFixed(1)} MB | ${row.events.toLocaleString('en')} | ${row.rawMs.toFixed(0)} ms | ${row.parseMs.toFixed(0)} ms | **${row.ratio.toFixed(2)}×** | ${row.jsonFloorMs.toFixed(0)} ms | ${(row.rawMs / (row.rawMs + row.jsonFloorMs)).toFixed(2)}× |`)
    ];
    return lines.join('\n');
}
