import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigFile, readToml, schemaIssues } from './config-file';
import { ConfigIssue } from './config-issue';
import { originOf } from './key-origins';

/** The variable naming the administrator's folder (e.g. a mounted ConfigMap): a configuration layer above user and project, and its policy. */
export const MANAGED_DIR_VARIABLE = 'QODEASSIST_MANAGED_DIR';
/** The policy file in it. */
export const POLICY_FILE = 'policy.toml';
/** How everything the policy forbids is labelled, wherever it shows. */
export const MANAGED_LABEL = 'managed by your administrator';

export type PermissionCeiling = 'read' | 'write' | 'execute';
const PERMISSION_RANK: Record<PermissionCeiling, number> = { read: 0, write: 1, execute: 2 };

const PolicySchema = z.strictObject({
    /** URL origins a provider may be at (scheme://host:port); absent: any. */
    allowed_origins: z.array(z.string().min(1)).optional(),
    /** MCP servers that may run: a stdio server's command line (program and arguments as typed) or a remote server's URL (a trailing `*` matches the rest); absent: any. */
    allowed_mcp_servers: z.array(z.string().min(1)).optional(),
    /** The most a tool may do: read, write or execute (a tool needing more is not offered). */
    max_tool_permission: z.enum(['read', 'write', 'execute']).optional(),
    /** Agents no one may use: names, `acp:<name>` for external agents, a trailing `*` for every name it begins (`acp:*`: all external agents). Rosters no one can change: agents/rosters.toml in the managed folder. */
    forbidden_agents: z.array(z.string()).default([]),
    /** The most one user may spend per day (where prices are configured). */
    max_daily_spend: z.number().positive().optional(),
    currency: z.string().regex(/^[A-Z]{3}$/).default('USD')
});

/** What the administrator allows and forces; absent fields allow everything. */
export interface ManagedPolicy {
    dir: string;
    file?: ConfigFile;
    allowedOrigins?: readonly string[];
    allowedMcpServers?: readonly string[];
    maxToolPermission?: PermissionCeiling;
    forbiddenAgents: readonly string[];
    maxDailySpend?: { amount: number; currency: string };
}

/** The administrator's folder, when one is set. */
export function managedDir(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
    return env[MANAGED_DIR_VARIABLE]?.trim() || undefined;
}

/**
 * The policy of a managed folder: its `policy.toml`, checked like every configuration file. A
 * broken policy forbids what it can still be read to forbid: when it cannot be read at all, no
 * provider origin, MCP server or tool beyond reading is allowed until it is fixed (the safe side).
 */
export function loadManagedPolicy(dir: string, issues: ConfigIssue[]): ManagedPolicy {
    const path = join(dir, POLICY_FILE);
    if (!existsSync(path)) {
        return { dir, forbiddenAgents: [] };
    }
    const file: ConfigFile = { label: path, path, text: readFileSync(path, 'utf8') };
    const parsed = readToml(file);
    const result = parsed.value ? PolicySchema.safeParse(parsed.value) : undefined;
    if (!result?.success) {
        issues.push(...parsed.issues, ...(result ? schemaIssues(file, result.error, keyPath => keyPath.length === 0 ? Object.keys(PolicySchema.shape) : []) : []));
        issues.push({ severity: 'error', file: path, message: `the administrator's policy cannot be read, so QodeAssist allows no provider, MCP server or tool beyond reading until it is fixed (${MANAGED_LABEL})` });
        return { dir, file, allowedOrigins: [], allowedMcpServers: [], maxToolPermission: 'read', forbiddenAgents: [] };
    }
    const value = result.data;
    const origins = value.allowed_origins?.map(origin => originOf(origin) ?? origin);
    return {
        dir, file, forbiddenAgents: value.forbidden_agents,
        ...(origins ? { allowedOrigins: origins } : {}),
        ...(value.allowed_mcp_servers ? { allowedMcpServers: value.allowed_mcp_servers } : {}),
        ...(value.max_tool_permission ? { maxToolPermission: value.max_tool_permission } : {}),
        ...(value.max_daily_spend !== undefined ? { maxDailySpend: { amount: value.max_daily_spend, currency: value.currency } } : {})
    };
}

/** The administrator's policy of this process's environment (QODEASSIST_MANAGED_DIR), read now; undefined without a managed folder. */
export function environmentPolicy(env: Readonly<Record<string, string | undefined>> = process.env): ManagedPolicy | undefined {
    const dir = managedDir(env);
    return dir ? loadManagedPolicy(dir, []) : undefined;
}

/** Whether a provider at this URL may be used. */
export function originAllowed(policy: ManagedPolicy | undefined, url: string): boolean {
    if (!policy?.allowedOrigins) {
        return true;
    }
    const origin = originOf(url);
    return origin !== undefined && policy.allowedOrigins.includes(origin);
}

/** Whether an MCP server may run: its command line (program and arguments, space-joined) or its URL is allowed. */
export function mcpServerAllowed(policy: ManagedPolicy | undefined, server: { command?: string; args?: readonly string[]; url?: string }): boolean {
    if (!policy?.allowedMcpServers) {
        return true;
    }
    const subject = server.url ?? [server.command ?? '', ...server.args ?? []].join(' ');
    return policy.allowedMcpServers.some(allowed => allowed.endsWith('*') ? subject.startsWith(allowed.slice(0, -1)) : subject === allowed);
}

/** Whether the policy forbids an agent by name (`acp:<name>` for an external one); an entry ending in `*` forbids every name it begins. */
export function agentForbidden(policy: ManagedPolicy | undefined, name: string): boolean {
    return policy?.forbiddenAgents.some(entry => entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry) ?? false;
}

/** Whether a tool of this permission class may be offered. */
export function permissionAllowed(policy: ManagedPolicy | undefined, permission: PermissionCeiling): boolean {
    return !policy?.maxToolPermission || PERMISSION_RANK[permission] <= PERMISSION_RANK[policy.maxToolPermission];
}
