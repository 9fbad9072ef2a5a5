import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { PROCESS_SECRETS } from '../wire/redaction';

export const BRIDGE_USAGE = `qodeassist-mcp: lets an MCP client that speaks stdio (Claude Desktop, Claude Code, VS Code) use the
tools of a running QodeAssist (enable its MCP server first).

  qodeassist-mcp [--url http://127.0.0.1:<port>/mcp] [--token <token>]

The URL and token may also come from QODEASSIST_MCP_URL and QODEASSIST_MCP_TOKEN (preferred for the
token: command lines are visible to other users).`;

export interface BridgeSettings {
    url: string;
    token: string;
}

/** The bridge's settings from flags, then the environment; a missing one is an error that says where to put it. */
export function bridgeSettings(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): BridgeSettings {
    const flag = (name: string) => {
        const at = argv.indexOf(`--${name}`);
        const inline = argv.find(arg => arg.startsWith(`--${name}=`));
        return inline ? inline.slice(name.length + 3) : at >= 0 ? argv[at + 1] : undefined;
    };
    const url = flag('url') ?? env.QODEASSIST_MCP_URL;
    const token = flag('token') ?? env.QODEASSIST_MCP_TOKEN;
    if (!url) {
        throw new Error(`No server URL: pass --url or set QODEASSIST_MCP_URL (QodeAssist shows it when its MCP server is enabled).\n\n${BRIDGE_USAGE}`);
    }
    if (!token) {
        throw new Error(`No token: set QODEASSIST_MCP_TOKEN (or pass --token).\n\n${BRIDGE_USAGE}`);
    }
    // Redacted by value from every error this process prints.
    PROCESS_SECRETS.add(token);
    return { url, token };
}

/**
 * Serves MCP on stdin/stdout and forwards tool listing and calls to the running QodeAssist
 * server over Streamable HTTP, with its token. The connection is made on the first request and
 * made again if the server restarted.
 */
export async function runStdioBridge(settings: BridgeSettings): Promise<void> {
    let upstream: Promise<Client> | undefined;
    const connect = () => upstream ??= (async () => {
        const client = new Client({ name: 'qodeassist-mcp-bridge', version: '0.1.0' });
        client.onclose = () => { upstream = undefined; };
        try {
            await client.connect(new StreamableHTTPClientTransport(new URL(settings.url), { requestInit: { headers: { authorization: `Bearer ${settings.token}` } } }));
        } catch (error) {
            upstream = undefined;
            throw new Error(`QodeAssist's MCP server at ${settings.url} did not answer (${error instanceof Error ? error.message : String(error)}). Is QodeAssist running with its MCP server enabled, and is the token current?`);
        }
        return client;
    })();
    const server = new Server({ name: 'qodeassist', version: '0.1.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async request => (await connect()).listTools(request.params));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => (await connect()).callTool(request.params, undefined, { signal: extra.signal, timeout: 600_000 }));
    await server.connect(new StdioServerTransport());
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<void> {
    if (argv.includes('--help') || argv.includes('-h')) {
        process.stdout.write(`${BRIDGE_USAGE}\n`);
        return;
    }
    try {
        await runStdioBridge(bridgeSettings(argv, env));
    } catch (error) {
        process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 2;
    }
}
