import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FileSecretsStore } from '@qodeassist/core';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServerSettings, QodeAssistMcpClient } from '../common/mcp-protocol';
import { McpHubs, McpServerHost, QodeAssistMcpServiceImpl } from './mcp-service-impl';

describe('MCP backend wiring', function () {
    this.timeout(30_000);
    let root: string;
    let workspace: string;
    let host: McpServerHost;
    const asked: string[] = [];
    const client: QodeAssistMcpClient = {
        onMcpChanged: () => undefined,
        requestToolPermission: async (id, request) => { asked.push(`${id.split(':')[0]}:${request.tool}`); return 'allow-once'; },
        getDiagnostics: async () => [],
        readOpenDocument: async () => undefined,
        writeDocument: async (path, content) => writeFileSync(path, content)
    };
    const settings = (overrides: Partial<McpServerSettings> = {}): McpServerSettings => ({ enabled: true, port: 0, host: '127.0.0.1', allowedOrigins: [], workspacePath: workspace, ...overrides });
    const connect = async (url: string, token: string) => {
        const mcp = new Client({ name: 't', version: '1' });
        await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
        return mcp;
    };

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-mcp-host-'));
        workspace = join(root, 'ws');
        mkdirSync(workspace);
        writeFileSync(join(workspace, 'notes.txt'), 'draft\n');
        host = new McpServerHost(new FileSecretsStore(join(root, 'home', '.qodeassist', 'secrets.json')));
        asked.length = 0;
    });
    afterEach(async () => {
        await host.dispose();
        rmSync(root, { recursive: true, force: true });
    });

    it('is off until enabled; the first start creates a token, stored owner-only and returned once; rotating refuses the old one', async () => {
        assert.equal((await host.configure(settings({ enabled: false }))).running, false);
        const started = await host.configure(settings());
        assert.equal(started.running, true);
        assert.match(started.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.ok(started.newToken && started.newToken.length >= 32);
        assert.equal(statSync(join(root, 'home', '.qodeassist', 'secrets.json')).mode & 0o777, 0o600);
        const again = await host.configure(settings({ allowedOrigins: ['http://example.test'] }));
        assert.equal(again.newToken, undefined, 'an existing token is never sent again');

        const service = new QodeAssistMcpServiceImpl(host, new McpHubs(join(root, 'home')));
        service.setClient(client);
        const mcp = await connect(again.url!, started.newToken!);
        const result = await mcp.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } });
        assert.equal(result.isError, false);
        assert.deepEqual(asked, ['mcp:edit_file'], 'the newest window was asked');
        await mcp.close();

        const rotated = await host.rotateToken();
        assert.ok(rotated.newToken && rotated.newToken !== started.newToken);
        await assert.rejects(connect(rotated.url!, started.newToken!));
        await (await connect(rotated.url!, rotated.newToken)).close();
        service.dispose();
        assert.equal((await host.configure(settings({ enabled: false }))).running, false);
    });

    it('says so when the port is taken, and denies write tools when no window is open', async () => {
        const blocker = createServer();
        await new Promise<void>(resolve => blocker.listen(0, '127.0.0.1', resolve));
        const port = (blocker.address() as { port: number }).port;
        try {
            const status = await host.configure(settings({ port }));
            assert.equal(status.running, false);
            assert.match(status.error ?? '', new RegExp(`Port ${port} is taken by another program; pick another in qodeassist.mcp.server.port`));
        } finally {
            blocker.close();
        }
        const started = await host.configure(settings());
        const token = started.newToken ?? (await host.rotateToken()).newToken!;
        const mcp = await connect(host.status().url!, token);
        const denied = await mcp.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } });
        assert.equal(denied.isError, true);
        await mcp.close();
    });
});
