import { basename } from 'node:path';
import { z } from 'zod';
import { ConfigFile, readToml, schemaIssues } from './config-file';
import { ConfigIssue } from './config-issue';
import { ConfigLayer, LayerName, readConfigFiles } from './config-layers';

/**
 * One external coding agent (Agent Client Protocol) as an `acp/*.toml` file of the bundled, user
 * or trusted project layer describes it: what to start, what it may see of the environment, and
 * how to install it. Later layers shadow earlier ones by name, like agents and providers.
 */
export interface AcpAgentEntry {
    /** The name the user picks it by (the file's `name`, else its file name). */
    name: string;
    /** A program name looked up on PATH outside the workspace, or an absolute path. */
    command: string;
    args: readonly string[];
    /** Names of the backend's environment variables the agent gets on top of the scrubbed set (e.g. its own API key). */
    env: readonly string[];
    description?: string;
    /** How to install it, shown when its program is not found (e.g. `npm install -g @agentclientprotocol/claude-agent-acp`). */
    install?: string;
    /** Where to read about it. */
    homepage?: string;
    /** False: listed in the configuration view, never offered in the chat. */
    enabled: boolean;
    layer: LayerName;
    file: ConfigFile;
}

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An `acp/*.toml` file. */
export const AcpAgentFileSchema = z.strictObject({
    name: z.string().regex(AGENT_NAME, 'use letters, digits, "-", "_" and "."').optional(),
    command: z.string().min(1, 'name the program: a name found on PATH, or an absolute path'),
    args: z.array(z.string()).default([]),
    env: z.array(z.string().regex(VARIABLE_NAME, 'a variable NAME such as ANTHROPIC_API_KEY; its value stays in the environment, never in this file')).default([]),
    description: z.string().optional(),
    install: z.string().optional(),
    homepage: z.url().optional(),
    enabled: z.boolean().default(true)
});

/**
 * The external agents of every layer: later layers shadow earlier ones by name (a user's
 * `claude-code.toml` replaces the bundled one). A broken file is an issue naming its file,
 * line and key, and never hides the others. The project layer is only among `layers` when the
 * workspace is trusted.
 */
export function loadAcpAgents(layers: readonly ConfigLayer[], issues: ConfigIssue[]): Map<string, AcpAgentEntry> {
    const agents = new Map<string, AcpAgentEntry>();
    for (const layer of layers) {
        for (const file of readConfigFiles(layer, layer.acpDir, '.toml')) {
            const parsed = readToml(file);
            issues.push(...parsed.issues);
            if (!parsed.value) {
                continue;
            }
            const result = AcpAgentFileSchema.safeParse(parsed.value);
            if (!result.success) {
                issues.push(...schemaIssues(file, result.error, path => path.length === 0 ? Object.keys(AcpAgentFileSchema.shape) : []));
                continue;
            }
            const value = result.data;
            const fileName = basename(file.path, '.toml');
            const name = value.name ?? fileName;
            if (!AGENT_NAME.test(name)) {
                issues.push({ severity: 'error', file: file.label, message: `the file name "${fileName}" is no agent name`, fix: 'rename the file with letters, digits, "-", "_" and ".", or set name = "…"' });
                continue;
            }
            agents.set(name, {
                name, command: value.command, args: value.args, env: value.env, enabled: value.enabled, layer: layer.name, file,
                ...(value.description ? { description: value.description } : {}), ...(value.install ? { install: value.install } : {}),
                ...(value.homepage ? { homepage: value.homepage } : {})
            });
        }
    }
    return agents;
}
