import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigFile, readToml, schemaIssues } from './config-file';
import { ConfigIssue } from './config-issue';
import { originOf } from './key-origins';
import { McpAllowEntry, McpAllowEntrySchema, mcpServerRefusal, McpServerSubject } from './managed-mcp';

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
    /** MCP servers that may run (see McpAllowEntrySchema: a command line or URL, or a table with the env names and cwd allowed); absent: any. */
    allowed_mcp_servers: z.array(McpAllowEntrySchema).optional(),
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
    allowedMcpServers?: readonly McpAllowEntry[];
    maxToolPermission?: PermissionCeiling;
    forbiddenAgents: readonly string[];
    maxDailySpend?: { amount: number; currency: string };
    /** Why the policy is the safe side (a folder that is missing, a policy that cannot be read): what a refusal names instead of a rule. */
    closed?: string;
}

/** The administrator's folder, when one is set. */
export function managedDir(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
    return env[MANAGED_DIR_VARIABLE]?.trim() || undefined;
}

/**
 * The policy of a managed folder: its `policy.toml`, checked like every configuration file. A
 * folder without a policy.toml forbids nothing. A policy that cannot be read — or a managed
 * folder that is named but missing (an unmounted ConfigMap) — is the safe side: no provider
 * origin, MCP server or external agent, and no tool beyond reading, until it is fixed.
 */
export function loadManagedPolicy(dir: string, issues: ConfigIssue[]): ManagedPolicy {
    const folder = folderProblem(dir);
    if (folder) {
        issues.push({
            severity: 'error', file: dir, message: `the administrator's folder ${dir} (${MANAGED_DIR_VARIABLE}) ${folder}, so QodeAssist allows no provider, MCP server, external agent or tool beyond reading (${MANAGED_LABEL})`,
            fix: `mount the administrator's folder at ${dir}, or unset ${MANAGED_DIR_VARIABLE} where no administrator manages QodeAssist`
        });
        return closedPolicy(dir, undefined, `the administrator's folder ${dir} ${folder}, so nothing is allowed until it is mounted`);
    }
    const path = join(dir, POLICY_FILE);
    if (!existsSync(path)) {
        return { dir, forbiddenAgents: [] };
    }
    let file: ConfigFile;
    try {
        file = { label: path, path, text: readFileSync(path, 'utf8') };
    } catch (error) {
        issues.push({ severity: 'error', file: path, message: `the administrator's policy cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}), so QodeAssist allows no provider, MCP server, external agent or tool beyond reading until it is fixed (${MANAGED_LABEL})` });
        return closedPolicy(dir, undefined, `the administrator's policy ${path} cannot be read, so nothing is allowed until it is fixed`);
    }
    const parsed = readToml(file);
    const result = parsed.value ? PolicySchema.safeParse(parsed.value) : undefined;
    if (!result?.success) {
        issues.push(...parsed.issues, ...(result ? schemaIssues(file, result.error, keyPath => keyPath.length === 0 ? Object.keys(PolicySchema.shape) : []) : []));
        issues.push({ severity: 'error', file: path, message: `the administrator's policy cannot be read, so QodeAssist allows no provider, MCP server, external agent or tool beyond reading until it is fixed (${MANAGED_LABEL})` });
        return closedPolicy(dir, file, `the administrator's policy ${path} cannot be read, so nothing is allowed until it is fixed`);
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

/** Why a named managed folder is not there to read, or undefined when it is a folder. */
function folderProblem(dir: string): string | undefined {
    try {
        return statSync(dir).isDirectory() ? undefined : 'is not a folder';
    } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
}

/** The safe side: nothing the policy could forbid is allowed (no origin, so no provider and no agent; no MCP server; no external agent; reading only). */
function closedPolicy(dir: string, file: ConfigFile | undefined, closed: string): ManagedPolicy {
    return { dir, ...(file ? { file } : {}), allowedOrigins: [], allowedMcpServers: [], maxToolPermission: 'read', forbiddenAgents: ['acp:*'], closed };
}

/** Where the policy's rules are written, for messages: its policy.toml, else the folder. */
export function policySource(policy: ManagedPolicy): string {
    return policy.file?.label ?? join(policy.dir, POLICY_FILE);
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

/** Whether an MCP server may run: an allowed_mcp_servers entry matches its command, arguments, env names and cwd, or its URL. */
export function mcpServerAllowed(policy: ManagedPolicy | undefined, server: McpServerSubject): boolean {
    return mcpServerPolicyRefusal(policy, server) === undefined;
}

/** The rule that refuses an MCP server, in the policy's words (`allowed_mcp_servers does not include …`), or undefined when it may run. */
export function mcpServerPolicyRefusal(policy: ManagedPolicy | undefined, server: McpServerSubject): string | undefined {
    if (!policy?.allowedMcpServers) {
        return undefined;
    }
    return policy.closed ?? mcpServerRefusal(policy.allowedMcpServers, server);
}

/** The forbidden_agents entry that forbids a name (`acp:<name>` for an external agent; an entry ending in `*` forbids every name it begins), if any. */
export function forbiddingEntry(policy: ManagedPolicy | undefined, name: string): string | undefined {
    return policy?.forbiddenAgents.find(entry => entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry);
}

/** Whether the policy forbids an agent by name. */
export function agentForbidden(policy: ManagedPolicy | undefined, name: string): boolean {
    return forbiddingEntry(policy, name) !== undefined;
}

/**
 * Why an agent is forbidden, given its `extends` chain (its own name first, then each base):
 * forbidding an agent forbids every agent built on it, or a copy under a new name would undo it.
 */
export function agentChainRefusal(policy: ManagedPolicy | undefined, chain: readonly string[]): string | undefined {
    for (const [index, name] of chain.entries()) {
        const entry = forbiddingEntry(policy, name);
        if (entry !== undefined) {
            const listed = entry === name ? `"${name}"` : `"${entry}" (matching "${name}")`;
            return index === 0
                ? `forbidden_agents in ${policySource(policy!)} lists ${listed}`
                : `it extends "${name}", and forbidden_agents in ${policySource(policy!)} lists ${listed}`;
        }
    }
    return undefined;
}

/** Why a provider URL is not allowed, in the policy's words, or undefined when it is. */
export function originRefusal(policy: ManagedPolicy | undefined, url: string): string | undefined {
    return originAllowed(policy, url) ? undefined : policy!.closed ?? `allowed_origins in ${policySource(policy!)} does not include ${originOf(url) ?? url}`;
}

/** Whether a tool of this permission class may be offered. */
export function permissionAllowed(policy: ManagedPolicy | undefined, permission: PermissionCeiling): boolean {
    return !policy?.maxToolPermission || PERMISSION_RANK[permission] <= PERMISSION_RANK[policy.maxToolPermission];
}
