import { ConsentDetails, consentFingerprint, ConsentPolicy, ConsentRegistry } from '../config/consent-registry';
import { McpServerConfig } from './mcp-config';

/**
 * What the user is shown before a project's MCP server may start: what runs, where, and the
 * NAMES of the variables and headers it gets (their values may be secrets, and are never shown).
 * The fingerprint also covers the env values, which are not shown: an edited entry asks again,
 * a changed env value too (NODE_OPTIONS or PATH can make the same command run other code).
 */
export interface McpConsentDetails extends ConsentDetails {
    kind: 'mcp';
    /** The server's name (the same as `name`). */
    server: string;
    transport: McpServerConfig['transport'];
}

/** Whether the user agreed to start a project server, by the fingerprint of what they were shown. */
export type McpConsentPolicy = ConsentPolicy;

export function mcpConsentDetails(config: McpServerConfig): McpConsentDetails {
    const shown = config.transport === 'stdio'
        ? { transport: config.transport, command: config.command, args: [...config.args], cwd: config.cwd, envNames: Object.keys(config.env ?? {}).sort() }
        : { transport: config.transport, url: config.url, headerNames: Object.keys(config.headers).sort() };
    // A header value (a rotated token) changes nothing that runs here; an env value can.
    const values = config.transport === 'stdio' ? config.env ?? {} : {};
    const hidden = Object.keys(values).sort().map(name => [name, values[name]]);
    // The same hash as before the registry held other kinds: consents already given stay valid.
    const fingerprint = consentFingerprint('mcp', shown, hidden);
    return { kind: 'mcp', name: config.name, server: config.name, source: config.source, ...shown, fingerprint };
}

/**
 * The user's consents to project MCP servers: the MCP kind of the one consent registry kept at
 * `file` (`~/.qodeassist/consents.json`; a version-1 `mcp-consent.json` is read as it was).
 */
export class McpConsentStore {
    private readonly registry: ConsentRegistry;

    constructor(file: string) {
        this.registry = ConsentRegistry.at(file);
    }

    forWorkspace(workspace: string): McpConsentPolicy {
        return this.registry.forWorkspace(workspace, 'mcp');
    }
}
