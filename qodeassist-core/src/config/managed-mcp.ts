import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * One entry of the administrator's `allowed_mcp_servers`:
 * - a string: a stdio server's command line (program and arguments as typed, a trailing `*`
 *   matches the rest) or a remote server's URL (a trailing `*` matches the rest). Such an entry
 *   allows no `env` and no `cwd` at all: a variable like NODE_OPTIONS or a folder with its own
 *   node_modules makes the same command line run other code;
 * - a table `{ command, args, env = ["GITHUB_TOKEN"], cwd = "/srv/mcp" }`: the program and its
 *   exact arguments, the only environment variable NAMES the server may set (their values are
 *   the user's), and the only folder it may run in (absent: it may set none).
 */
export const McpAllowEntrySchema = z.union([
    z.string().min(1),
    z.strictObject({
        command: z.string().min(1),
        args: z.array(z.string()).default([]),
        env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'an env entry is a variable NAME, e.g. "GITHUB_TOKEN"' })).default([]),
        cwd: z.string().min(1).optional()
    }),
    // authorization_servers: the origins (besides the server's own) whose OAuth sign-in this server may use.
    z.strictObject({ url: z.string().min(1), authorization_servers: z.array(z.url({ error: 'an authorization_servers entry is an origin, e.g. "https://github.com"' })).optional() })
], { error: 'an allowed_mcp_servers entry is a command line or URL ("npx -y @modelcontextprotocol/server-github"), or a table { command = "npx", args = […], env = ["GITHUB_TOKEN"], cwd = "/srv" } or { url = "https://…", authorization_servers = ["https://github.com"] }' });

export type McpAllowEntry = z.infer<typeof McpAllowEntrySchema>;

/** What an MCP server asks to run: a stdio command with its environment and folder, or a URL. */
export interface McpServerSubject {
    command?: string;
    args?: readonly string[];
    env?: Readonly<Record<string, string>>;
    cwd?: string;
    url?: string;
}

function wildcard(pattern: string, subject: string): boolean {
    return pattern.endsWith('*') ? subject.startsWith(pattern.slice(0, -1)) : subject === pattern;
}

/** Why no entry allows this server (the rule, for the user), or undefined when one does. */
export function mcpServerRefusal(entries: readonly McpAllowEntry[], server: McpServerSubject): string | undefined {
    if (server.url !== undefined) {
        const allowed = entries.some(entry => typeof entry === 'string' ? wildcard(entry, server.url!) : 'url' in entry && wildcard(entry.url, server.url!));
        return allowed ? undefined : `allowed_mcp_servers does not include ${server.url}`;
    }
    const args = server.args ?? [];
    const line = [server.command ?? '', ...args].join(' ');
    const envNames = Object.keys(server.env ?? {});
    const reasons: string[] = [];
    for (const entry of entries) {
        if (typeof entry === 'string') {
            if (!wildcard(entry, line)) {
                continue;
            }
            // A string entry is a command line of words: it applies only where the words are unambiguous,
            // never to a command or argument that holds spaces itself (a program named "npx -y …").
            if ([server.command ?? '', ...args].some(word => word === '' || /\s/.test(word))) {
                reasons.push(`allowed_mcp_servers allows "${entry}" as words, and this server's command or an argument holds spaces (${JSON.stringify([server.command ?? '', ...args])}): only a table entry with that exact command and args allows it`);
                continue;
            }
            if (envNames.length > 0) {
                reasons.push(`allowed_mcp_servers allows "${entry}" with no env, and this server sets ${envNames.join(', ')}`);
                continue;
            }
            if (server.cwd !== undefined) {
                reasons.push(`allowed_mcp_servers allows "${entry}" with no cwd, and this server sets cwd ${server.cwd}`);
                continue;
            }
            return undefined;
        }
        if (!('command' in entry) || entry.command !== server.command || entry.args.length !== args.length || entry.args.some((arg, index) => arg !== args[index])) {
            continue;
        }
        const extra = envNames.filter(name => !entry.env.includes(name));
        if (extra.length > 0) {
            reasons.push(`allowed_mcp_servers allows "${line}" with env ${entry.env.length ? entry.env.join(', ') : '(none)'} only, and this server sets ${extra.join(', ')}`);
            continue;
        }
        const cwdAllowed = entry.cwd === undefined ? server.cwd === undefined : server.cwd !== undefined && resolve(server.cwd) === resolve(entry.cwd);
        if (!cwdAllowed) {
            reasons.push(`allowed_mcp_servers allows "${line}" in ${entry.cwd ?? 'no cwd of its own'} only, and this server sets cwd ${server.cwd ?? '(none)'}`);
            continue;
        }
        return undefined;
    }
    return reasons[0] ?? `allowed_mcp_servers does not include the command "${line}"`;
}
