import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { CtxTool } from '../prompt/template-context';
import { ToolCall } from '../wire/assistant-turn';
import { ToolExecution } from '../wire/tool-loop-runner';
import { keptToolImages } from '../wire/tool-result-images';

/** The tools of one MCP client, gated and confined as a chat's are (a ToolKitExecutor). */
export interface McpToolSet {
    definitions(): CtxTool[];
    execute(call: ToolCall, context: { requestId: string; signal?: AbortSignal }): Promise<ToolExecution>;
}

export interface McpServerOptions {
    /** 0: any free port. */
    port: number;
    /** Loopback unless the user explicitly chose another interface. */
    host?: string;
    /** Every request must carry `Authorization: Bearer <token>`. */
    token: string;
    /**
     * One tool set per client session: "allow for this client" is remembered per session.
     * `client` is the clientInfo of its initialize request, as the client claims it.
     */
    toolsFor(clientId: string, client: McpClaimedClient): McpToolSet;
    /** Origins (besides the server's own) that browsers may call from. */
    allowedOrigins?: readonly string[];
    /** Largest request body accepted; default 4 MiB. */
    maxBodyBytes?: number;
    /** A session nobody used for this long is closed; default 30 minutes. */
    idleSessionMs?: number;
}

/** Who an outside client says it is (MCP initialize `clientInfo`); nothing verifies it. */
export interface McpClaimedClient {
    name?: string;
    version?: string;
}

interface ClientSession {
    transport: StreamableHTTPServerTransport | SSEServerTransport;
    server: Server;
    lastUsed: number;
}

/** A fresh bearer token: 32 random bytes, URL-safe. */
export function generateMcpToken(): string {
    return randomBytes(32).toString('base64url');
}

/**
 * The MCP server mode: the ToolKit over Streamable HTTP (`/mcp`) and the legacy HTTP+SSE
 * transport (`/sse` + `/messages`), on loopback by default. Every request needs the bearer
 * token; Host and Origin are checked against DNS rebinding; bodies are size-limited; each
 * client gets its own session, closed when it disconnects or goes idle.
 */
export class McpToolServer {
    private http: HttpServer | undefined;
    private readonly sessions = new Map<string, ClientSession>();
    private sweep: NodeJS.Timeout | undefined;
    private boundPort = 0;

    constructor(private readonly options: McpServerOptions) {
        if (options.token.length < 16) {
            throw new Error('The MCP server token must have at least 16 characters.');
        }
    }

    get url(): string {
        return `http://${this.urlHost}:${this.boundPort}/mcp`;
    }

    get sseUrl(): string {
        return `http://${this.urlHost}:${this.boundPort}/sse`;
    }

    /** Open client sessions, for the UI and leak checks. */
    get sessionCount(): number {
        return this.sessions.size;
    }

    async start(): Promise<void> {
        const http = createServer((req, res) => void this.handle(req, res).catch(error => {
            if (!res.headersSent) {
                this.reply(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
            }
        }));
        await new Promise<void>((resolve, reject) => {
            http.once('error', reject);
            http.listen(this.options.port, this.options.host ?? '127.0.0.1', () => {
                http.off('error', reject);
                resolve();
            });
        });
        this.http = http;
        this.boundPort = (http.address() as AddressInfo).port;
        const idle = this.options.idleSessionMs ?? 30 * 60_000;
        this.sweep = setInterval(() => this.closeIdle(idle), Math.min(idle, 60_000));
        this.sweep.unref();
    }

    async stop(): Promise<void> {
        if (this.sweep) {
            clearInterval(this.sweep);
        }
        await Promise.all([...this.sessions.keys()].map(id => this.closeSession(id)));
        const http = this.http;
        this.http = undefined;
        if (http) {
            http.closeAllConnections();
            await new Promise<void>(resolve => http.close(() => resolve()));
        }
    }

    private get urlHost(): string {
        const host = this.options.host ?? '127.0.0.1';
        return host.includes(':') ? `[${host}]` : host;
    }

    private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const refusal = this.refusal(req);
        if (refusal) {
            this.reply(res, refusal.status, refusal.message, refusal.status === 401 ? { 'www-authenticate': 'Bearer realm="qodeassist-mcp"' } : {});
            return;
        }
        if (url.pathname === '/mcp') {
            await this.handleStreamable(req, res);
        } else if (url.pathname === '/sse' && req.method === 'GET') {
            await this.openSse(res);
        } else if (url.pathname === '/messages' && req.method === 'POST') {
            const session = this.sessions.get(url.searchParams.get('sessionId') ?? '');
            if (!(session?.transport instanceof SSEServerTransport)) {
                this.reply(res, 404, 'Unknown SSE session; open /sse first.');
                return;
            }
            session.lastUsed = Date.now();
            const body = await this.readBody(req, res);
            if (body !== undefined) {
                await session.transport.handlePostMessage(req, res, body);
            }
        } else {
            this.reply(res, 404, 'Not found: the QodeAssist MCP server serves /mcp (Streamable HTTP) and /sse (HTTP+SSE).');
        }
    }

    /** Token, Host and Origin: a request failing one of them never reaches the MCP layer. */
    private refusal(req: IncomingMessage): { status: number; message: string } | undefined {
        const host = req.headers.host ?? '';
        const allowedHosts = new Set([`127.0.0.1:${this.boundPort}`, `localhost:${this.boundPort}`, `[::1]:${this.boundPort}`, `${this.urlHost}:${this.boundPort}`]);
        if (!allowedHosts.has(host.toLowerCase())) {
            return { status: 403, message: `Host "${host}" is not this server; requests must address ${this.urlHost}:${this.boundPort}.` };
        }
        const origin = req.headers.origin;
        if (origin !== undefined) {
            const allowedOrigins = new Set([...[...allowedHosts].map(entry => `http://${entry}`), ...this.options.allowedOrigins ?? []]);
            if (!allowedOrigins.has(origin.toLowerCase())) {
                return { status: 403, message: `Origin "${origin}" may not call this server. Add it to qodeassist.mcp.server.allowedOrigins if it should.` };
            }
        }
        const header = req.headers.authorization ?? '';
        const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7).trim() : '');
        const expected = Buffer.from(this.options.token);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
            return { status: 401, message: 'Missing or wrong bearer token. Use the token QodeAssist showed when the MCP server was enabled (rotate it to get a new one).' };
        }
        return undefined;
    }

    private async handleStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const sessionId = req.headers['mcp-session-id'];
        const existing = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
        const body = req.method === 'POST' ? await this.readBody(req, res) : undefined;
        if (req.method === 'POST' && body === undefined) {
            return; // Refused as too large or malformed; already answered.
        }
        if (existing) {
            if (!(existing.transport instanceof StreamableHTTPServerTransport)) {
                this.reply(res, 400, 'This session uses the SSE transport; post to /messages.');
                return;
            }
            existing.lastUsed = Date.now();
            await existing.transport.handleRequest(req, res, body);
            return;
        }
        if (sessionId !== undefined) {
            this.reply(res, 404, 'Unknown or expired MCP session; initialize a new one.');
            return;
        }
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
            this.reply(res, 400, 'No MCP session: the first request must be initialize.');
            return;
        }
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: id => {
                this.sessions.set(id, { transport, server, lastUsed: Date.now() });
            },
            onsessionclosed: id => void this.closeSession(id)
        });
        const server = this.createMcpServer(() => transport.sessionId ?? 'pending');
        transport.onclose = () => {
            if (transport.sessionId) {
                this.sessions.delete(transport.sessionId);
            }
        };
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
    }

    private async openSse(res: ServerResponse): Promise<void> {
        const transport = new SSEServerTransport('/messages', res);
        const server = this.createMcpServer(() => transport.sessionId);
        this.sessions.set(transport.sessionId, { transport, server, lastUsed: Date.now() });
        res.on('close', () => void this.closeSession(transport.sessionId));
        await server.connect(transport);
    }

    /** One MCP server per client session: list the tool set, call through its gate. */
    private createMcpServer(clientId: () => string): Server {
        const server = new Server({ name: 'qodeassist', version: '0.1.0' }, { capabilities: { tools: {} } });
        let tools: McpToolSet | undefined;
        // Asked for at the first list or call, after initialize, so the client's claimed name is known.
        const toolSet = () => tools ??= this.options.toolsFor(clientId(), { name: server.getClientVersion()?.name, version: server.getClientVersion()?.version });
        server.setRequestHandler(ListToolsRequestSchema, async () => ({
            tools: toolSet().definitions().map(tool => ({ name: tool.name, description: tool.description, inputSchema: { type: 'object' as const, ...tool.parameters } }))
        }));
        server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
            const result = await toolSet().execute(
                { callId: String(extra.requestId), name: request.params.name, arguments: request.params.arguments ?? {} },
                { requestId: `mcp-${clientId()}-${String(extra.requestId)}`, signal: extra.signal }
            );
            // The images a tool returned go after its text (which describes them), held to the rules of any tool's images.
            const images = keptToolImages(result.images).map(image => ({ type: 'image' as const, data: image.data, mimeType: image.mediaType }));
            return { content: [{ type: 'text' as const, text: result.content }, ...images], isError: result.isError === true };
        });
        return server;
    }

    private async closeSession(id: string): Promise<void> {
        const session = this.sessions.get(id);
        if (!session) {
            return;
        }
        this.sessions.delete(id);
        await session.server.close().catch(() => undefined);
    }

    private closeIdle(idleMs: number): void {
        const now = Date.now();
        for (const [id, session] of this.sessions) {
            if (now - session.lastUsed > idleMs) {
                void this.closeSession(id);
            }
        }
    }

    /** The JSON body, or undefined after answering 413 (too large) or 400 (not JSON). */
    private async readBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
        const limit = this.options.maxBodyBytes ?? 4 * 1024 * 1024;
        const declared = Number(req.headers['content-length'] ?? 0);
        if (declared > limit) {
            this.reply(res, 413, `The request body is ${declared} bytes; this server takes at most ${limit}.`);
            req.resume();
            return undefined;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of req) {
            size += (chunk as Buffer).length;
            if (size > limit) {
                this.reply(res, 413, `The request body exceeds ${limit} bytes.`);
                req.destroy();
                return undefined;
            }
            chunks.push(chunk as Buffer);
        }
        try {
            return JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
            this.reply(res, 400, 'The request body is not JSON.');
            return undefined;
        }
    }

    private reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
    }
}
