import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceFiles } from '../tools/workspace-files';
import { McpHub, McpHubOptions } from './mcp-hub';

/**
 * A real SDK `McpServer` served over Streamable HTTP on 127.0.0.1, one server instance per
 * session (`build` registers its tools, resources and prompts), and a hub whose mcp.json names it
 * as `srv`. `sessions` holds the servers made so far: a reconnect would add one.
 */
export class FeatureServerFixture {
    readonly sessions: McpServer[] = [];
    /** Every request body the server received, as sent (what an attack spec searches for key bytes). */
    readonly bodies: string[] = [];
    readonly root = mkdtempSync(join(tmpdir(), 'qa-mcp-features-'));
    hub: McpHub | undefined;
    private http: Server | undefined;
    private readonly transports = new Map<string, StreamableHTTPServerTransport>();

    constructor(private readonly build: (server: McpServer) => void) { }

    /** Serves on 127.0.0.1 and returns the server's MCP URL (for a hub made elsewhere). */
    async listen(): Promise<string> {
        this.http = createServer((request, response) => void this.handle(request, response));
        await new Promise<void>(resolve => this.http!.listen(0, '127.0.0.1', resolve));
        return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
    }

    async start(options: McpHubOptions = {}): Promise<McpHub> {
        writeFileSync(join(this.root, 'mcp.json'), JSON.stringify({ mcpServers: { srv: { url: await this.listen() } } }));
        this.hub = new McpHub({ user: join(this.root, 'mcp.json') }, { backoffMs: 60_000, reloadDelayMs: 50, ...options }).start();
        const states = await this.hub.settled(20_000);
        if (states[0]?.status !== 'ready') {
            throw new Error(`the test server did not get ready: ${JSON.stringify(states)}`);
        }
        return this.hub;
    }

    /** Runs a tool of the hub as a chat's tool registry would. */
    run(name: string, args: Record<string, unknown> = {}, signal?: AbortSignal, chatId = 'chat-1') {
        const tool = this.hub!.tools().find(candidate => candidate.name === `mcp_srv_${name}`);
        if (!tool) {
            throw new Error(`no tool mcp_srv_${name} among ${this.hub!.tools().map(candidate => candidate.name).join(', ')}`);
        }
        return tool.run(args, { requestId: 'request-1', chatId, signal, files: new WorkspaceFiles([this.root]) });
    }

    async dispose(): Promise<void> {
        await this.hub?.dispose();
        await Promise.all([...this.transports.values()].map(transport => transport.close().catch(() => undefined)));
        await new Promise<void>(resolve => this.http ? this.http.close(() => resolve()) : resolve());
        this.http?.closeAllConnections();
        rmSync(this.root, { recursive: true, force: true });
    }

    private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
        const id = request.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? this.transports.get(id) : undefined;
        if (!transport) {
            const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: session => { this.transports.set(session, created); }
            });
            const server = new McpServer({ name: 'features', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } } });
            this.build(server);
            this.sessions.push(server);
            await server.connect(created);
            transport = created;
        }
        let body = '';
        for await (const chunk of request) {
            body += String(chunk);
        }
        this.bodies.push(body);
        await transport.handleRequest(request, response, body ? JSON.parse(body) : undefined);
    }
}

/**
 * A zod shape for the SDK's `registerTool`/`registerPrompt`: the SDK types it against the zod it
 * depends on, this package uses its own zod 4 (whose schemas the SDK takes at run time).
 */
export function sdkShape(shape: Record<string, unknown>): ZodRawShapeCompat {
    return shape as ZodRawShapeCompat;
}

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
        if (Date.now() > deadline) {
            throw new Error(`timed out waiting for ${what}`);
        }
        await new Promise(resolve => setTimeout(resolve, 20));
    }
}
