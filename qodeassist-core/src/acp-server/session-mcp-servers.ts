import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { MANAGED_LABEL, ManagedPolicy, mcpServerPolicyRefusal, policySource } from '../config/managed-policy';
import { McpServerConfig } from '../mcp/mcp-config';
import { mcpConsentDetails, McpConsentPolicy } from '../mcp/mcp-consent';
import { declineEveryQuestion } from '../mcp/mcp-elicitation';
import { McpHub, McpHubOptions, McpServerState } from '../mcp/mcp-hub';
import { AnyTool } from '../tools/tool';
import { ErrorInfo } from '../wire/error-info';

/** A client server that was not started, and why: a typed error (category and message with the fix). */
export interface ClientMcpRefusal {
    server: string;
    error: ErrorInfo;
}

export interface SessionMcpOptions {
    /** The administrator's policy, read as the session starts: a server it does not allow is never started or contacted. */
    policy: ManagedPolicy | undefined;
    /** The session's folder is trusted (`--trust-workspace`): the user's own client passing a server is the user's consent. */
    trusted: boolean;
    /** The user's consents in the session's folder (the consent registry's MCP kind), for a folder that is not trusted. */
    consent: McpConsentPolicy;
    /** The hub's options (logger, backoff). */
    hub?: McpHubOptions;
}

/** The option ids of the question asked before a client's server starts in a folder that is not trusted. */
const START_ONCE = 'start-once';
const START_ALWAYS = 'start-always';
const DO_NOT_START = 'do-not-start';

/** Said of a client's server that needs a sign-in: the session has no IDE to sign in through. */
const NO_SIGN_IN = 'qodeassist-acp cannot sign in to it (there is no IDE window to open the sign-in in). '
    + 'Have the ACP client pass the server with an "Authorization" header holding a token, or sign in to the server in the client itself.';
/** Said when a client's server asks the user something. */
const NO_QUESTIONS = 'qodeassist-acp cannot show a server\'s questions to the user (ACP has no request for them); configure the server so it does not need to ask.';

/**
 * The MCP servers a client passed for one session, connected for that session only: the
 * administrator's `allowed_mcp_servers` decides first (a server it does not allow is refused, and
 * the refusal says so); then, in a trusted folder, the client passing a server is the user's
 * consent, as an entry of their own `mcp.json` would be. In a folder that is not trusted the client
 * may be passing what the repository's own editor settings name, so the server waits for the
 * user's consent from the one consent registry — asked once through `session/request_permission`
 * when not already given. Their tools join the session's (execute class: every call is asked).
 */
export class SessionMcpServers {
    private readonly hubs: McpHub[] = [];
    /** Refused by the managed policy: never started, never contacted. */
    readonly refused: ClientMcpRefusal[] = [];
    /** Allowed by the policy, waiting for the user's consent (a folder that is not trusted). */
    readonly waiting: McpServerConfig[] = [];
    private closed = false;

    constructor(configs: readonly McpServerConfig[], private readonly options: SessionMcpOptions) {
        const now: McpServerConfig[] = [];
        for (const config of configs) {
            const refusal = policyRefusal(options.policy, config);
            if (refusal) {
                this.refused.push({ server: config.name, error: refusal });
            } else if (options.trusted || options.consent.isGranted(mcpConsentDetails(config).fingerprint)) {
                now.push(config);
            } else {
                this.waiting.push(config);
            }
        }
        this.start(now);
    }

    /** The ready servers' tools. */
    tools(): AnyTool[] {
        return this.hubs.flatMap(hub => hub.tools());
    }

    states(): McpServerState[] {
        return this.hubs.flatMap(hub => hub.states());
    }

    /** The started servers that cannot work without credentials the client did not pass, and why (told to the client once the session is open). */
    unauthorized(): ClientMcpRefusal[] {
        return this.states().filter(state => state.status === 'needs-sign-in').map(state => ({ server: state.name, error: { category: 'Auth', message: state.error ?? NO_SIGN_IN } }));
    }

    /** Resolves once no started server is still connecting, or after `timeoutMs` (a slow one joins when it is ready). */
    async settled(timeoutMs: number): Promise<McpServerState[]> {
        await Promise.all(this.hubs.map(hub => hub.settled(timeoutMs)));
        return this.states();
    }

    /**
     * Asks the user (through `ask`, the client's permission question) about each server waiting for
     * consent, one after another; "always" is kept in the consent registry for this folder, "once"
     * starts it for this session. A question without an answer starts nothing. Returns the servers
     * left unstarted.
     */
    async askConsent(sessionId: string, ask: (question: RequestPermissionRequest) => Promise<RequestPermissionResponse>): Promise<McpServerConfig[]> {
        const declined: McpServerConfig[] = [];
        for (const config of this.waiting.splice(0)) {
            let answer: string | undefined;
            try {
                const response = await ask(startQuestion(sessionId, config));
                answer = response.outcome.outcome === 'selected' ? response.outcome.optionId : undefined;
            } catch {
                answer = undefined;
            }
            if (this.closed) {
                return declined;
            }
            if (answer === START_ALWAYS) {
                await this.options.consent.grant(mcpConsentDetails(config).fingerprint, config.name);
            }
            if (answer === START_ALWAYS || answer === START_ONCE) {
                this.start([config]);
            } else {
                declined.push(config);
            }
        }
        return declined;
    }

    /** Stops every server of the session (a stdio server's process ends with it). */
    async close(): Promise<void> {
        this.closed = true;
        this.waiting.splice(0);
        await Promise.all(this.hubs.splice(0).map(hub => hub.dispose()));
    }

    private start(configs: readonly McpServerConfig[]): void {
        if (!this.closed && configs.length > 0) {
            const hub = this.options.hub;
            this.hubs.push(McpHub.ofServers(configs, { ...hub, noSignIn: NO_SIGN_IN, elicitation: hub?.elicitation ?? declineEveryQuestion(NO_QUESTIONS, hub?.logger) }));
        }
    }
}

/** The policy's refusal of a server, as the typed error the client is shown; undefined when it may run. */
function policyRefusal(policy: ManagedPolicy | undefined, config: McpServerConfig): ErrorInfo | undefined {
    // The same subject as an mcp.json entry's: the allowed command with NODE_OPTIONS set runs other code.
    const refusal = mcpServerPolicyRefusal(policy, config.transport === 'stdio' ? { command: config.command, args: config.args, env: config.env, cwd: config.cwd } : { url: config.url });
    if (refusal === undefined) {
        return undefined;
    }
    return {
        category: 'Config',
        message: `The MCP server "${config.name}" is ${MANAGED_LABEL}: ${refusal} (${policy ? policySource(policy) : ''}), so it was not started. `
            + 'Leave it out of the client\'s list, or ask your administrator to add it to allowed_mcp_servers.'
    };
}

/** What the user is asked before a client's server starts in a folder that is not trusted: what runs, and the names (never the values) of its variables and headers. */
export function startQuestion(sessionId: string, config: McpServerConfig): RequestPermissionRequest {
    const details = mcpConsentDetails(config);
    // Each word quoted where it holds spaces or quotes, so a program named "npx -y x" never reads like `npx -y x`.
    const what = config.transport === 'stdio' ? [config.command, ...config.args].map(word => /[\s"'\\]/.test(word) || word === '' ? JSON.stringify(word) : word).join(' ') : config.url;
    const names = config.transport === 'stdio' ? details.envNames ?? [] : details.headerNames ?? [];
    const text = `The client passed the MCP server "${config.name}" for this session. This folder is not trusted (qodeassist-acp --trust-workspace), `
        + `so it starts only if you agree: ${config.transport === 'stdio' ? 'it runs' : 'it connects to'} ${what}`
        + `${names.length ? ` with ${config.transport === 'stdio' ? 'the variables' : 'the headers'} ${names.join(', ')}` : ''}.`;
    return {
        sessionId,
        toolCall: {
            toolCallId: `mcp-server-start-${config.name}`, title: `Start the MCP server "${config.name}"`, kind: 'execute', status: 'pending',
            rawInput: config.transport === 'stdio' ? { command: config.command, args: config.args, envNames: names } : { url: config.url, headerNames: names },
            content: [{ type: 'content', content: { type: 'text', text } }]
        },
        options: [
            { optionId: START_ONCE, name: 'Start for this session', kind: 'allow_once' },
            { optionId: START_ALWAYS, name: 'Always start it in this folder', kind: 'allow_always' },
            { optionId: DO_NOT_START, name: 'Do not start', kind: 'reject_once' }
        ]
    };
}
