import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createBuiltinTools, McpToolServer, ToolContributorRegistry, ToolKitExecutor, WorkspaceFiles } from '@qodeassist/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { median } from './statistics';

export interface McpLoadRow {
    round: number;
    calls: number;
    errors: number;
    mcpMs: number;
    directMs: number;
    heapAfterMb: number;
    sessionsAfter: number;
}

const TOKEN = 'bench-token-0123456789abcdef0123456789';
const CALLS = 100;
const CLIENTS = 10;

function collectGarbage(): void {
    setFlagsFromString('--expose_gc');
    (runInNewContext('gc') as () => void)();
}

const heapMb = () => process.memoryUsage().heapUsed / 1024 / 1024;

/**
 * 100 concurrent tool calls (read_file and search_project, alternating) from 10 SDK clients over
 * Streamable HTTP, ten rounds; the baseline is the same calls run in-process on a ToolKitExecutor.
 * Heap is measured after a full GC before the first round and after each.
 */
export async function measureMcpLoad(rounds = 10): Promise<{ rows: McpLoadRow[]; heapBeforeMb: number }> {
    const workspace = mkdtempSync(join(tmpdir(), 'qodeassist-mcp-bench-'));
    mkdirSync(join(workspace, 'src'));
    for (let i = 0; i < 50; i++) {
        writeFileSync(join(workspace, 'src', `file${i}.ts`), `export function f${i}(value: number) {\n    return value * ${i};\n}\n`.repeat(20));
    }
    const executor = () => {
        const registry = new ToolContributorRegistry();
        const tools = createBuiltinTools({ workspace });
        registry.register(() => tools);
        return new ToolKitExecutor(registry, 'bench', { files: new WorkspaceFiles([workspace]), permissions: { ask: async () => 'deny' } });
    };
    const server = new McpToolServer({ port: 0, token: TOKEN, toolsFor: () => executor() });
    await server.start();
    const call = (i: number) => i % 2 === 0
        ? { name: 'read_file', arguments: { path: `src/file${i % 50}.ts` } }
        : { name: 'search_project', arguments: { query: `f${i % 50}\\(`, regex: true } };
    try {
        collectGarbage();
        const heapBeforeMb = heapMb();
        const rows: McpLoadRow[] = [];
        for (let round = 1; round <= rounds; round++) {
            const direct = executor();
            let started = performance.now();
            const directResults = await Promise.all(Array.from({ length: CALLS }, (_, i) => direct.execute({ callId: String(i), ...call(i) }, { requestId: `d${i}` })));
            const directMs = performance.now() - started;

            const clients = await Promise.all(Array.from({ length: CLIENTS }, async () => {
                const client = new Client({ name: 'bench', version: '1' });
                await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
                return client;
            }));
            started = performance.now();
            const results = await Promise.allSettled(Array.from({ length: CALLS }, (_, i) => clients[i % CLIENTS].callTool(call(i))));
            const mcpMs = performance.now() - started;
            const errors = results.filter(result => result.status === 'rejected' || result.value.isError).length + directResults.filter(result => result.isError).length;
            await Promise.all(clients.map(async client => {
                await (client.transport as StreamableHTTPClientTransport).terminateSession();
                await client.close();
            }));
            collectGarbage();
            rows.push({ round, calls: CALLS, errors, mcpMs, directMs, heapAfterMb: heapMb(), sessionsAfter: server.sessionCount });
        }
        return { rows, heapBeforeMb };
    } finally {
        await server.stop();
        rmSync(workspace, { recursive: true, force: true });
    }
}

export function mcpLoadTable(result: { rows: McpLoadRow[]; heapBeforeMb: number }): string {
    const lines = [
        '| round | calls | errors | MCP over HTTP (ms) | in-process (ms) | MCP ÷ in-process | heap after GC (MB) | open sessions after |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|'
    ];
    for (const row of result.rows) {
        lines.push(`| ${row.round} | ${row.calls} | ${row.errors} | ${row.mcpMs.toFixed(0)} | ${row.directMs.toFixed(0)} | ${(row.mcpMs / row.directMs).toFixed(2)}× | ${row.heapAfterMb.toFixed(1)} | ${row.sessionsAfter} |`);
    }
    const ratio = median(result.rows.map(row => row.mcpMs / row.directMs));
    const half = Math.floor(result.rows.length / 2);
    const warm = result.rows[half - 1].heapAfterMb;
    const growth = result.rows.at(-1)!.heapAfterMb - warm;
    const sign = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
    lines.push('', `Heap before the first round: ${result.heapBeforeMb.toFixed(1)} MB. The first rounds warm caches (module code, the ignore rules); over the second half`
        + ` (round ${half} → ${result.rows.length}) the heap changed by ${sign(growth)} MB, ${sign(growth * 1024 / ((result.rows.length - half) * CALLS))} KB per call. Median MCP ÷ in-process: ${ratio.toFixed(2)}×.`);
    return lines.join('\n');
}
