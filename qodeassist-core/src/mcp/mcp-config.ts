import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentPolicy, MANAGED_LABEL, ManagedPolicy, mcpServerPolicyRefusal } from '../config/managed-policy';
import { z } from 'zod';
import { stateDirRefusal } from '../config/state-dir';

/** How long the hub waits for a server, in milliseconds. Generous by default: slow servers are common, short fixed limits are not wanted. */
export interface McpTimeouts {
    initializeMs: number;
    listMs: number;
    callMs: number;
}

export const DEFAULT_MCP_TIMEOUTS: McpTimeouts = { initializeMs: 60_000, listMs: 60_000, callMs: 600_000 };

const timeouts = z.object({
    initializeMs: z.number().int().positive().optional(),
    listMs: z.number().int().positive().optional(),
    callMs: z.number().int().positive().optional()
}).strict();

const stdioServer = z.object({
    command: z.string().min(1, 'the command to start the server is empty'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    type: z.literal('stdio').optional(),
    disabled: z.boolean().optional(),
    timeouts: timeouts.optional()
}).strict();

/** A client registered beforehand with the server's authorization server (instead of dynamic registration). */
const oauthClient = z.object({
    client_id: z.string().min(1, 'oauth.client_id is empty'),
    client_secret: z.string().min(1).optional(),
    /** The scope asked for, when the server's metadata names none. */
    scope: z.string().optional(),
    /** The issuer the client was registered with; needed when it is not on the server's own origin. */
    authorization_server: z.string().url('oauth.authorization_server is not a valid URL').optional()
}).strict();

const httpServer = z.object({
    url: z.string().url('the url is not a valid URL'),
    headers: z.record(z.string(), z.string()).optional(),
    oauth: oauthClient.optional(),
    /** `http` (Streamable HTTP, the default) or `sse` (the legacy HTTP+SSE transport). */
    type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    disabled: z.boolean().optional(),
    timeouts: timeouts.optional()
}).strict();

const mcpFile = z.object({
    mcpServers: z.record(z.string(), z.union([stdioServer, httpServer]))
}).passthrough().superRefine((file, context) => {
    for (const name of Object.keys(file.mcpServers)) {
        if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
            context.addIssue({ code: 'custom', path: ['mcpServers', name], message: 'a server name uses letters, digits, ".", "_" and "-" only' });
        }
    }
});

export type McpServerConfig =
    | { name: string; source: string; transport: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string; disabled: boolean; timeouts: McpTimeouts }
    | { name: string; source: string; transport: 'http' | 'sse'; url: string; headers: Record<string, string>; oauth?: McpOAuthClientConfig; disabled: boolean; timeouts: McpTimeouts };

/** `oauth` of an HTTP entry: a pre-registered OAuth client. */
export type McpOAuthClientConfig = z.infer<typeof oauthClient>;

/** A problem with an mcp.json file: which file, what is wrong, and how to fix it. Nothing in that file is used. */
export interface McpConfigIssue {
    file: string;
    message: string;
}

export interface McpConfigFiles {
    /** `~/.qodeassist/mcp.json`; absent when the state dir standing for the home is refused (see stateDirRefusal). */
    user?: string;
    /** `<workspace>/.qodeassist/mcp.json`: a server of the same name replaces the user's. */
    project?: string;
    /** The administrator's policy, read at each load (a ConfigMap changes in place): only the servers it allows run. */
    policy?: () => ManagedPolicy | undefined;
}

export function defaultMcpConfigFiles(userHome: string, workspace?: string): McpConfigFiles {
    // A state dir inside the workspace is the repository's folder, not the user's: its mcp.json is not the user's file (the notice comes with the configuration's).
    const user = stateDirRefusal(userHome, workspace) ? undefined : join(userHome, '.qodeassist', 'mcp.json');
    return { user, project: workspace ? join(workspace, '.qodeassist', 'mcp.json') : undefined, policy: environmentPolicy };
}

/** Reads the user's and the project's mcp.json (common `{"mcpServers": {…}}` format); a missing file is no servers, a broken one an issue. */
export function loadMcpConfig(files: McpConfigFiles): { servers: McpServerConfig[]; issues: McpConfigIssue[] } {
    const byName = new Map<string, McpServerConfig>();
    const issues: McpConfigIssue[] = [];
    for (const file of [files.user, files.project]) {
        if (!file) {
            continue;
        }
        let text: string;
        try {
            text = readFileSync(file, 'utf8');
        } catch {
            continue; // No file: no servers from it.
        }
        let json: unknown;
        try {
            json = JSON.parse(text);
        } catch (error) {
            issues.push({ file, message: `not valid JSON (${error instanceof Error ? error.message : String(error)}). Fix the file; its servers are not started until then.` });
            continue;
        }
        const parsed = mcpFile.safeParse(json);
        if (!parsed.success) {
            const issue = parsed.error.issues[0];
            issues.push({
                file,
                message: `${issue.path.join('.') || 'the file'}: ${issue.message}. Each server is {"command", "args", "env", "cwd"} (stdio) or {"url", "headers", "type": "http" | "sse", "oauth": {"client_id", "client_secret", "scope", "authorization_server"}}.`
            });
            continue;
        }
        for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
            const limits = { ...DEFAULT_MCP_TIMEOUTS, ...server.timeouts };
            byName.set(name, 'command' in server
                ? { name, source: file, transport: 'stdio', command: server.command, args: server.args ?? [], env: server.env, cwd: server.cwd, disabled: server.disabled ?? false, timeouts: limits }
                : { name, source: file, transport: server.type === 'sse' ? 'sse' : 'http', url: server.url, headers: server.headers ?? {}, ...(server.oauth ? { oauth: server.oauth } : {}),
                    disabled: server.disabled ?? false, timeouts: limits });
        }
    }
    const policy = files.policy?.();
    const servers = [...byName.values()].filter(server => {
        // Environment and folder count: the allowed command with NODE_OPTIONS or another cwd runs other code.
        const refusal = mcpServerPolicyRefusal(policy, server.transport === 'stdio' ? { command: server.command, args: server.args, env: server.env, cwd: server.cwd } : { url: server.url });
        if (refusal === undefined) {
            return true;
        }
        issues.push({ file: server.source, message: `the server "${server.name}" is ${MANAGED_LABEL}: ${refusal} (${policy?.file?.label ?? policy?.dir}), so it does not run.` });
        return false;
    });
    return { servers, issues };
}

/** A remote tool's name as the model sees it: `mcp_<server>_<tool>`, safe for every provider (letters, digits, `_`, `-`; at most 64). */
export function mcpToolName(server: string, tool: string): string {
    const name = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
    return name.length <= 64 ? name : `${name.slice(0, 55)}_${hash(name)}`;
}

function hash(text: string): string {
    let value = 0;
    for (const char of text) {
        value = (value * 31 + char.charCodeAt(0)) >>> 0;
    }
    return value.toString(36).padStart(8, '0').slice(0, 8);
}
