import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { ConfigFile, readToml, schemaIssues } from './config-file';
import { ConfigIssue } from './config-issue';
import { ConfigLayer, LayerName, readConfigFiles } from './config-layers';
import { ConsentDetails, consentFingerprint } from './consent-registry';
import { AcpGatewayBinding, AcpGatewaySchema } from './gateway-agents';

/**
 * One external coding agent (Agent Client Protocol) as an `acp/*.toml` file of the bundled, user
 * or trusted project layer describes it: what to start, what it may see of the environment, and
 * how to install it. Later layers shadow earlier ones by name, like agents and providers — but a
 * project's entry never takes a name: it is always listed as `<name>@project`.
 */
export interface AcpAgentEntry {
    /** The name the user picks it by: the file's `name`, else its file name; a project's own with PROJECT_AGENT_SUFFIX. */
    name: string;
    /** The name its file gives (`name`, else the file name), without the project suffix: what the administrator's policy names. Absent: `name`. */
    declaredName?: string;
    /** A program name looked up on PATH outside the workspace, or an absolute path. */
    command: string;
    args: readonly string[];
    /** Names of the backend's environment variables the agent gets on top of the scrubbed set (e.g. its own API key). */
    env: readonly string[];
    description?: string;
    /** How gateway mode points it at the gateway (the `[gateway]` table); absent: unavailable in gateway mode. */
    gateway?: AcpGatewayBinding;
    /** How to install it, shown when its program is not found (e.g. `npm install -g @agentclientprotocol/claude-agent-acp`). */
    install?: string;
    /** Where to read about it. */
    homepage?: string;
    /** False: listed in the configuration view, never offered in the chat. */
    enabled: boolean;
    layer: LayerName;
    file: ConfigFile;
    /** A project's entry: what the user is shown before it may start (one consent per entry and fingerprint). */
    consent?: ConsentDetails;
    /** A project's entry the user consented to as it is now; nothing starts a project's entry without it. */
    consented?: boolean;
}

/** Whether an entry may be started: the bundled, user and managed ones always; a project's only with the user's consent to it as it is. */
export function mayStart(entry: Pick<AcpAgentEntry, 'layer' | 'consented'>): boolean {
    return entry.layer !== 'project' || entry.consented === true;
}

/** What a project's external agent is listed under: `claude-code@project`, a name no bundled or user file can take ("@" is not allowed in one). */
export const PROJECT_AGENT_SUFFIX = '@project';

/**
 * The consent text of a project's external agent: the program, its arguments, the folder it runs
 * in, and the names of the backend's variables it would receive (their values are the user's,
 * never shown). The fingerprint covers them all: editing any asks again.
 */
export function acpConsentDetails(entry: Pick<AcpAgentEntry, 'name' | 'command' | 'args' | 'env' | 'file' | 'gateway'>, workspace: string): ConsentDetails {
    // In gateway mode the gateway's key goes to the program through these: the user is shown them as well.
    const gatewayNames = entry.gateway ? [entry.gateway.base_url, entry.gateway.key, ...entry.gateway.headers ? [entry.gateway.headers] : []].filter(name => !entry.env.includes(name)) : [];
    const shown = { command: entry.command, args: [...entry.args], cwd: workspace, envNames: [...entry.env, ...gatewayNames] };
    return { kind: 'acp', name: entry.name, source: entry.file.label, ...shown, fingerprint: consentFingerprint('acp', shown) };
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
    enabled: z.boolean().default(true),
    gateway: AcpGatewaySchema.optional()
});

/**
 * The external agents of every layer: later layers shadow earlier ones by name (a user's
 * `claude-code.toml` replaces the bundled one), except the project's, which are listed under
 * their own `<name>@project` with the consent they need. A broken file is an issue naming its
 * file, line and key, and never hides the others. The project layer is only among `layers` when
 * the workspace is trusted.
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
                issues.push(...schemaIssues(file, result.error, path => path.length === 0 ? Object.keys(AcpAgentFileSchema.shape) : path[0] === 'gateway' ? ['api', 'base_url', 'key', 'headers'] : []));
                continue;
            }
            const value = result.data;
            const fileName = basename(file.path, '.toml');
            const name = value.name ?? fileName;
            if (!AGENT_NAME.test(name)) {
                issues.push({ severity: 'error', file: file.label, message: `the file name "${fileName}" is no agent name`, fix: 'rename the file with letters, digits, "-", "_" and ".", or set name = "…"' });
                continue;
            }
            const id = layer.name === 'project' ? `${name}${PROJECT_AGENT_SUFFIX}` : name;
            const entry: AcpAgentEntry = {
                name: id, declaredName: name, command: value.command, args: value.args, env: value.env, enabled: value.enabled, layer: layer.name, file,
                ...(value.description ? { description: value.description } : {}), ...(value.install ? { install: value.install } : {}),
                ...(value.homepage ? { homepage: value.homepage } : {}), ...(value.gateway ? { gateway: value.gateway } : {})
            };
            // `<workspace>/.qodeassist/acp`: the agent runs in the workspace folder.
            agents.set(id, layer.name === 'project' ? { ...entry, consent: acpConsentDetails(entry, layer.workspace ?? dirname(dirname(layer.acpDir))) } : entry);
        }
    }
    return agents;
}
