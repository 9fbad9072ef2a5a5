import { isAbsolute } from 'node:path';
import type { McpServer } from '@agentclientprotocol/sdk';
import { DEFAULT_MCP_TIMEOUTS, McpServerConfig } from '../mcp/mcp-config';
import { QodeAssistError } from '../wire/error-info';

/** Where the hub's entries of a client's servers come from (shown in logs and consent questions). */
export const CLIENT_MCP_SOURCE = 'the ACP client (session/new)';

/** Which of ACP's MCP transports qodeassist-acp connects: advertised as `mcpCapabilities`, and the only ones taken. */
export const CLIENT_MCP_TRANSPORTS = { http: true, sse: true } as const;

/** A variable name a process may be given: a portable shell identifier (no `=`, no NUL, nothing a spawn would misread). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name: RFC 9110's token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value: visible characters, spaces and tabs (no CR, LF or NUL that would split or end the header). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
/** The schemes a client's HTTP server may have: the hub speaks HTTP, nothing else is fetched. */
const URL_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:']);

function invalid(server: string, problem: string, fix: string): QodeAssistError {
    return new QodeAssistError({ category: 'Validation', message: `The MCP server "${server}" of session/new ${problem}. ${fix}` });
}

/** A server name as the hub and the tool names take it: letters, digits, ".", "_" and "-" (a client's name is meant for people and may hold spaces). */
export function hubServerName(name: string): string {
    return name.trim().replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * The servers a client passes in `session/new` (or `session/load`) as the hub's entries, exactly as
 * given: a stdio server's command and arguments become the process's argv (no shell), its `env`
 * the only variables added to the hub's minimal base; an HTTP server's URL (http or https only) and
 * headers are used as they are. A malformed entry is a Validation error naming the server and the fix.
 */
export function clientMcpServerConfigs(servers: readonly McpServer[]): McpServerConfig[] {
    const configs: McpServerConfig[] = [];
    for (const server of servers) {
        const label = typeof server.name === 'string' ? server.name : '(unnamed)';
        const name = typeof server.name === 'string' ? hubServerName(server.name) : '';
        if (!name || /^_*$/.test(name)) {
            throw invalid(label, 'has no usable name', 'Give each MCP server a name of letters, digits, ".", "_" or "-".');
        }
        if (configs.some(config => config.name === name)) {
            throw invalid(label, `has the same name as another server of the list (${name})`, 'Give each MCP server of the session its own name.');
        }
        const base = { name, source: CLIENT_MCP_SOURCE, disabled: false, timeouts: { ...DEFAULT_MCP_TIMEOUTS } };
        if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
            if (!CLIENT_MCP_TRANSPORTS[server.type]) {
                throw invalid(label, `is a ${server.type} server, which qodeassist-acp does not connect`, 'Use the server\'s Streamable HTTP endpoint (type "http") or a stdio command.');
            }
            configs.push({ ...base, transport: server.type, url: checkedUrl(label, server.url), headers: checkedPairs(label, server.headers, 'header') });
        } else if (!('type' in server) || (server as { type?: unknown }).type === 'stdio') {
            if (typeof server.command !== 'string' || !server.command.trim() || server.command.includes('\0')) {
                throw invalid(label, 'has no command to start', 'Give the path of the server\'s program as "command" and its arguments as "args".');
            }
            // A program is a name found on PATH or an absolute path: a relative path would run whatever the folder qodeassist-acp started in holds.
            if (!/^[A-Za-z0-9._+@-]+$/.test(server.command) && !isAbsolute(server.command)) {
                throw invalid(label, `has the command ${JSON.stringify(server.command)}, which is neither a program name nor an absolute path`, 'Give a program found on PATH (e.g. "npx") or the absolute path of the server\'s program.');
            }
            const args = server.args ?? [];
            if (!Array.isArray(args) || args.some(arg => typeof arg !== 'string' || arg.includes('\0'))) {
                throw invalid(label, 'has arguments that are not plain strings', 'Give "args" as a list of strings without NUL characters.');
            }
            const env = checkedPairs(label, server.env, 'variable');
            configs.push({ ...base, transport: 'stdio', command: server.command, args: [...args], ...Object.keys(env).length ? { env } : {} });
        } else {
            throw invalid(label, `has the unknown type ${JSON.stringify((server as { type?: unknown }).type)}`, 'An MCP server is stdio (command, args, env) or "http" (url, headers).');
        }
    }
    return configs;
}

function checkedUrl(server: string, url: unknown): string {
    let parsed: URL;
    try {
        parsed = new URL(String(url));
    } catch {
        throw invalid(server, `has the URL ${JSON.stringify(url)}, which is not one`, 'Give the full URL of the server\'s endpoint, e.g. http://127.0.0.1:3000/mcp.');
    }
    if (!URL_SCHEMES.has(parsed.protocol)) {
        throw invalid(server, `has a ${parsed.protocol} URL`, 'Only http: and https: servers are connected.');
    }
    return parsed.href;
}

/** `[{name, value}]` as a record; a name or value a process or request would misread is refused, as is a name given twice. */
function checkedPairs(server: string, pairs: unknown, kind: 'variable' | 'header'): Record<string, string> {
    const list = pairs ?? [];
    if (!Array.isArray(list)) {
        throw invalid(server, `has ${kind}s that are not a list`, `Give them as [{"name": …, "value": …}].`);
    }
    const record: Record<string, string> = {};
    const seen = new Set<string>();
    for (const pair of list as Array<{ name?: unknown; value?: unknown }>) {
        const name = typeof pair?.name === 'string' ? pair.name : '';
        const value = pair?.value;
        const nameOk = kind === 'variable' ? ENV_NAME.test(name) : HEADER_NAME.test(name);
        if (!nameOk) {
            throw invalid(server, `has the ${kind} name ${JSON.stringify(pair?.name)}`, kind === 'variable'
                ? 'A variable name is letters, digits and "_", not starting with a digit.'
                : 'A header name is letters, digits and !#$%&\'*+.^_`|~-.');
        }
        if (typeof value !== 'string' || (kind === 'variable' ? value.includes('\0') : !HEADER_VALUE.test(value))) {
            throw invalid(server, `has a value for ${name} that cannot be passed on`, kind === 'variable'
                ? 'Give the value as a string without NUL characters.'
                : 'Give the header value as a string without line breaks or NUL characters.');
        }
        // Header names are case-insensitive: two spellings of one are one header given twice.
        const key = kind === 'header' ? name.toLowerCase() : name;
        if (seen.has(key)) {
            throw invalid(server, `sets ${name} twice`, `Give each ${kind} once.`);
        }
        seen.add(key);
        record[name] = value;
    }
    return record;
}
