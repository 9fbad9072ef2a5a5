import { ErrorCategory, QodeAssistError } from '../wire/error-info';
import { PROCESS_SECRETS, redactSecrets } from '../wire/redaction';
import { AcpAgentDefinition, commandLineOf } from './acp-definition';

/** JSON-RPC code ACP agents answer with when the user must sign in first. */
export const ACP_AUTH_REQUIRED = -32000;

/** Terminal colour and cursor codes (CSI, OSC, two-byte escapes) and other control characters but line ends and tabs. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CODES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g;
/**
 * A failure of one external agent: the message names the agent and what to do; the agent's
 * last standard-error output (bounded, redacted) rides along as `providerDetail`.
 */
export class AcpAgentError extends QodeAssistError {
    constructor(readonly agent: string, category: ErrorCategory, message: string, readonly stderrTail = '') {
        const detail = stderrTail.replace(TERMINAL_CODES, '').trim();
        super({ category, message, ...(detail ? { providerDetail: detail } : {}) });
        this.name = 'AcpAgentError';
    }
}

const tailNote = (stderr: string) => stderr.trim() ? ' Its last error output is attached.' : ' It printed no error output.';

export function agentNotFoundError(definition: AcpAgentDefinition, inWorkspace?: string): AcpAgentError {
    const command = commandLineOf(definition);
    return new AcpAgentError(definition.name, 'Config', inWorkspace
        ? `ACP agent "${definition.name}" was not started: ${inWorkspace} is inside the workspace, and QodeAssist never starts a program from a workspace. Install the agent outside it and set its command ("${command}") to that program.`
        : `ACP agent "${definition.name}" was not started: "${definition.command}" was not found outside the workspace on PATH. Install the agent (see its entry in the ACP agent catalogue), or set its command ("${command}") to the absolute path of the program.`);
}

export interface AgentExit {
    code: number | null;
    signal: NodeJS.Signals | null;
    /** The spawn itself failed. */
    error?: Error;
}

export function agentCrashedError(definition: AcpAgentDefinition, exit: AgentExit, stderr: string, during: string): AcpAgentError {
    const how = exit.error ? `could not be started (${exit.error.message})`
        : exit.signal ? `was ended by signal ${exit.signal}` : `exited with code ${exit.code}`;
    return new AcpAgentError(definition.name, 'Provider',
        `ACP agent "${definition.name}" ${how} ${during}.${tailNote(stderr)} Run "${commandLineOf(definition)}" in a terminal to check that it is installed, signed in and speaks ACP on standard input/output; then start the chat again.`,
        stderr);
}

export function malformedMessageError(definition: AcpAgentDefinition, excerpt: string, stderr: string): AcpAgentError {
    return new AcpAgentError(definition.name, 'Provider',
        `ACP agent "${definition.name}" sent a message that is not ACP JSON-RPC (${excerpt}), so it was stopped. Its standard output must carry ACP messages only: `
        + `check that "${commandLineOf(definition)}" starts it in ACP mode (some agents need a flag such as --acp or --experimental-acp), or update the agent.`,
        stderr);
}

export function messageTooLargeError(definition: AcpAgentDefinition, maxBytes: number, stderr: string): AcpAgentError {
    return new AcpAgentError(definition.name, 'Provider',
        `ACP agent "${definition.name}" sent a message longer than ${maxBytes} bytes (the maxMessageBytes limit), so it was stopped. If it really sends messages this large, raise the limit; otherwise report it to the agent's authors.`,
        stderr);
}

export function agentTimeoutError(definition: AcpAgentDefinition, method: string, seconds: number, setting: string, stderr: string): AcpAgentError {
    return new AcpAgentError(definition.name, 'Network',
        `ACP agent "${definition.name}" did not answer ${method} within ${seconds} s.${tailNote(stderr)} Check that "${commandLineOf(definition)}" starts and answers in a terminal; if it is only slow, raise ${setting}.`,
        stderr);
}

export function agentIdleError(definition: AcpAgentDefinition, seconds: number, stderr: string): AcpAgentError {
    return new AcpAgentError(definition.name, 'Network',
        `ACP agent "${definition.name}" sent nothing for ${seconds} s while QodeAssist waited on it, so the turn was stopped (session/cancel was sent).${tailNote(stderr)} Try again; if the agent works silently for this long, raise turnIdleSeconds.`,
        stderr);
}

export function tooManyUpdatesError(definition: AcpAgentDefinition, limit: number): AcpAgentError {
    return new AcpAgentError(definition.name, 'Provider',
        `ACP agent "${definition.name}" sent more than ${limit} session updates in one turn (the maxUpdatesPerTurn limit), so the turn was stopped. Ask for a smaller step, or raise the limit if the agent really needs more.`);
}

/** The most of an agent's error reason shown; the rest is cut and said so. */
export const MAX_AGENT_REASON_CHARS = 2_000;

/** The texts an error's `data` carries: a string, or `message`, `details`, `detail`, `reason`, `error` (text or `{ message }`). */
function reasonsIn(data: unknown, depth = 0): string[] {
    if (typeof data === 'string') {
        return [data];
    }
    if (!data || typeof data !== 'object' || Array.isArray(data) || depth > 2) {
        return [];
    }
    const record = data as Record<string, unknown>;
    return ['message', 'details', 'detail', 'reason', 'error'].flatMap(key => Object.hasOwn(record, key) ? reasonsIn(record[key], depth + 1) : []);
}

/**
 * What an agent said went wrong: the JSON-RPC `message` and whatever `data` carries (codex-acp puts
 * the real reason in `data.message`, Gemini CLI in `data.details`), without terminal codes, each
 * text once, bounded and with every known key redacted.
 */
export function agentErrorReason(message: string, data?: unknown): string {
    const parts: string[] = [];
    for (const text of [message, ...reasonsIn(data)].map(part => part.replace(TERMINAL_CODES, '').trim()).filter(Boolean)) {
        if (!parts.some(seen => seen.includes(text))) {
            parts.push(text);
        }
    }
    let reason = parts.join(': ');
    if (reason.length > MAX_AGENT_REASON_CHARS) {
        reason = `${reason.slice(0, MAX_AGENT_REASON_CHARS)}… (cut at ${MAX_AGENT_REASON_CHARS} characters)`;
    }
    return redactSecrets(reason, PROCESS_SECRETS.list());
}

/** An error the agent answered a request with; `message` is the reason as agentErrorReason gives it. */
export function agentRequestError(definition: AcpAgentDefinition, method: string, code: number | undefined, message: string, stderr: string, authHint = ''): AcpAgentError {
    if (code === ACP_AUTH_REQUIRED) {
        return new AcpAgentError(definition.name, 'Auth',
            `ACP agent "${definition.name}" needs you to sign in before ${method} (${message}).${authHint} Sign in with the agent's own login (run "${definition.command}" in a terminal and follow its instructions, or set the key variable its entry passes), then try again.`,
            stderr);
    }
    return new AcpAgentError(definition.name, 'Provider',
        `ACP agent "${definition.name}" answered ${method} with an error${code !== undefined ? ` (${code})` : ''}: ${message}.${tailNote(stderr)} If it persists, update the agent or report it to its authors.`,
        stderr);
}

export function unsupportedProtocolError(definition: AcpAgentDefinition, version: unknown, supported: number): AcpAgentError {
    return new AcpAgentError(definition.name, 'Config',
        `ACP agent "${definition.name}" speaks ACP protocol version ${JSON.stringify(version)}, but QodeAssist speaks version ${supported}. Update the agent (or QodeAssist) so that both speak the same version.`);
}

export function agentStoppedError(definition: AcpAgentDefinition): AcpAgentError {
    return new AcpAgentError(definition.name, 'Provider', `ACP agent "${definition.name}" is not running (it was stopped or failed). Start a new chat with it to start it again.`);
}
