import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../config/atomic-file';
import { McpServerConfig } from './mcp-config';

/**
 * What the user is shown before a project's MCP server may start: what runs, where, and the
 * NAMES of the variables and headers it gets (their values may be secrets, and are never shown).
 */
export interface McpConsentDetails {
    server: string;
    /** The mcp.json the entry comes from. */
    source: string;
    transport: McpServerConfig['transport'];
    command?: string;
    args?: string[];
    cwd?: string;
    envNames?: string[];
    url?: string;
    headerNames?: string[];
    /**
     * The hash of the fields above (but server and source) and of the env values, which are
     * not shown: an edited entry asks again, a changed env value too (NODE_OPTIONS or PATH can
     * make the same command run other code).
     */
    fingerprint: string;
}

/** Whether the user agreed to start a project server, by the fingerprint of what they were shown. */
export interface McpConsentPolicy {
    isGranted(fingerprint: string): boolean;
    grant(fingerprint: string, server: string): Promise<void>;
}

export function mcpConsentDetails(config: McpServerConfig): McpConsentDetails {
    const shown = config.transport === 'stdio'
        ? { transport: config.transport, command: config.command, args: [...config.args], cwd: config.cwd, envNames: Object.keys(config.env ?? {}).sort() }
        : { transport: config.transport, url: config.url, headerNames: Object.keys(config.headers).sort() };
    // A header value (a rotated token) changes nothing that runs here; an env value can.
    const values = config.transport === 'stdio' ? config.env ?? {} : {};
    const hidden = Object.keys(values).sort().map(name => [name, values[name]]);
    const fingerprint = createHash('sha256').update(JSON.stringify({ shown, hidden })).digest('hex');
    return { server: config.name, source: config.source, ...shown, fingerprint };
}

const consentFile = z.object({
    version: z.literal(1),
    granted: z.array(z.object({ workspace: z.string(), fingerprint: z.string(), server: z.string(), grantedAt: z.string() }))
});

type ConsentRecord = z.infer<typeof consentFile>['granted'][number];

/**
 * The user's consents to project MCP servers, kept in their home (`~/.qodeassist/mcp-consent.json`),
 * never in the workspace, where the repository could write its own. A consent holds for one
 * workspace folder and one fingerprint.
 */
export class McpConsentStore {
    private records: ConsentRecord[] | undefined;
    private writing: Promise<void> = Promise.resolve();

    constructor(private readonly file: string) { }

    forWorkspace(workspace: string): McpConsentPolicy {
        return {
            isGranted: fingerprint => this.load().some(record => record.workspace === workspace && record.fingerprint === fingerprint),
            grant: (fingerprint, server) => this.grant(workspace, fingerprint, server)
        };
    }

    private async grant(workspace: string, fingerprint: string, server: string): Promise<void> {
        const records = this.load();
        if (!records.some(record => record.workspace === workspace && record.fingerprint === fingerprint)) {
            // An older consent for the same server is replaced: only what the user saw last stays allowed.
            this.records = [...records.filter(record => !(record.workspace === workspace && record.server === server)),
                { workspace, fingerprint, server, grantedAt: new Date().toISOString() }];
        }
        const text = JSON.stringify({ version: 1, granted: this.records }, undefined, 2);
        this.writing = this.writing.then(() => writeFileAtomic(this.file, text), () => writeFileAtomic(this.file, text));
        await this.writing;
    }

    /** Read once; a missing or broken file is no consent at all. */
    private load(): ConsentRecord[] {
        if (!this.records) {
            try {
                const parsed = consentFile.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
                this.records = parsed.success ? parsed.data.granted : [];
            } catch {
                this.records = [];
            }
        }
        return this.records;
    }
}
