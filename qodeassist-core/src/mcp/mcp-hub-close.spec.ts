import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../config/process-alive';
import { McpHub } from './mcp-hub';

describe('MCP hub: closing stops a server still in its handshake', function () {
    this.timeout(30_000);
    let root: string;
    let pid: number | undefined;

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qa-mcp-close-'));
        // Never answers initialize, and ignores the end of its input: only a signal stops it.
        writeFileSync(join(root, 'silent.js'), `require('fs').writeFileSync(${JSON.stringify(join(root, 'pid'))}, String(process.pid)); process.stdin.resume(); setInterval(() => undefined, 1000);`);
        writeFileSync(join(root, 'mcp.json'), JSON.stringify({ mcpServers: { silent: { command: process.execPath, args: [join(root, 'silent.js')] } } }));
    });
    afterEach(() => {
        if (pid !== undefined && processAlive(pid)) {
            process.kill(pid, 'SIGKILL');
        }
        pid = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    it('disposing the hub while a server has not answered initialize ends that server\'s process (by pid)', async () => {
        const hub = new McpHub({ user: join(root, 'mcp.json') }, { backoffMs: 60_000, reloadDelayMs: 50 }).start();
        const started = Date.now();
        while (!existsSync(join(root, 'pid')) && Date.now() - started < 10_000) {
            await new Promise(resolve => setTimeout(resolve, 25));
        }
        pid = Number(readFileSync(join(root, 'pid'), 'utf8'));
        assert.ok(processAlive(pid), 'the server started');
        assert.equal(hub.states()[0]?.status, 'connecting');
        await hub.dispose();
        const ended = Date.now();
        while (processAlive(pid) && Date.now() - ended < 8_000) {
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        assert.equal(processAlive(pid), false, `the server ${pid} still runs after the hub closed`);
    });
});
