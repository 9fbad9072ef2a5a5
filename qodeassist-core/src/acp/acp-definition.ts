import type { AcpGatewayBinding } from '../config/gateway-agents';
import { redactSecrets } from '../wire/redaction';

/**
 * One external coding agent as the configuration layer resolves it (an `acp/*.toml` entry of
 * the bundled, user or trusted project layer): what to start and what it may see.
 */
export interface AcpAgentDefinition {
    /** The name the user picks it by; every error names it. */
    name: string;
    /** A program name looked up on PATH outside the workspace, or an absolute path. */
    command: string;
    args?: readonly string[];
    /**
     * Variables of the backend's environment the agent gets on top of the scrubbed set, by name
     * (its own key, e.g. `ANTHROPIC_API_KEY`): the user named them, so they pass whatever they hold.
     */
    env?: readonly string[];
    /**
     * How it is pointed at the gateway in gateway mode (the variables for the base URL, key and identity
     * header, checked against an allowlist); absent: it cannot be, and gateway mode refuses to start it.
     */
    gateway?: AcpGatewayBinding;
    /** Where it runs; the first workspace root when absent. */
    cwd?: string;
    description?: string;
}

/** Bounds on what one agent may send and on how long the client waits for it. */
export interface AcpLimits {
    /** Longest one JSON-RPC message (one line of the agent's output) may be, in bytes. */
    maxMessageBytes: number;
    /** `session/update` notifications one prompt turn may bring before it is stopped. */
    maxUpdatesPerTurn: number;
    /** Tool calls a session remembers (for their updates); the oldest are forgotten past it. */
    maxTrackedToolCalls: number;
    /** Seconds `initialize` (which may include the agent's own start-up, e.g. through npx) may take. */
    initializeSeconds: number;
    /** Seconds `session/new` and `session/load` may take. */
    sessionSeconds: number;
    /** Seconds a turn may pass without a message from the agent while QodeAssist waits on it (not on the user). */
    turnIdleSeconds: number;
    /** Seconds after `session/cancel` before the turn ends as cancelled whatever the agent does. */
    cancelGraceSeconds: number;
    /** Bytes of the agent's standard error kept for its error messages (the tail). */
    stderrTailBytes: number;
    /** Bytes of one file `fs/read_text_file` returns or `fs/write_text_file` accepts. */
    maxFileBytes: number;
    /** Terminals one agent may hold at once. */
    maxTerminals: number;
    /** Bytes of output one terminal keeps (the tail), whatever the agent asks for. */
    maxTerminalOutputBytes: number;
    /** Seconds one terminal command may run before its process tree is ended. */
    terminalSeconds: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** Generous for real agents (Claude Code, Codex, Gemini CLI): an agent's turn may run many minutes. */
export const DEFAULT_ACP_LIMITS: Readonly<AcpLimits> = {
    maxMessageBytes: 8 * MiB,
    maxUpdatesPerTurn: 100_000,
    maxTrackedToolCalls: 2_000,
    initializeSeconds: 120,
    sessionSeconds: 60,
    turnIdleSeconds: 600,
    cancelGraceSeconds: 5,
    stderrTailBytes: 8 * KiB,
    maxFileBytes: 10_000_000,
    maxTerminals: 16,
    maxTerminalOutputBytes: 1 * MiB,
    terminalSeconds: 1_800
};

/** The defaults with the usable (positive, finite) overrides applied. */
export function acpLimits(overrides: Partial<AcpLimits> = {}): AcpLimits {
    const limits = { ...DEFAULT_ACP_LIMITS };
    for (const [key, value] of Object.entries(overrides) as Array<[keyof AcpLimits, number | undefined]>) {
        if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
            limits[key] = value;
        }
    }
    return limits;
}

/** Longest argument a message quotes whole; longer ones are cut (a message is no place for an inline script). */
const MAX_SHOWN_ARGUMENT = 80;

/** The command line as the user would type it, for messages: long arguments cut, key shapes masked. */
export function commandLineOf(definition: AcpAgentDefinition): string {
    const words = [definition.command, ...definition.args ?? []].map(word => {
        const shown = word.length > MAX_SHOWN_ARGUMENT ? `${word.slice(0, MAX_SHOWN_ARGUMENT)}…` : word;
        return /[\s"']/.test(shown) ? JSON.stringify(shown) : shown;
    });
    return redactSecrets(words.join(' '));
}
