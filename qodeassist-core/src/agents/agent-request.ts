import { Configuration, ResolvedAgent } from './configuration-loader';
import { isReservedKeyRef, originOf } from '../config/key-origins';
import { environmentVariableFor, SecretsStore } from '../config/secrets-store';
import { TemplateContext } from '../prompt/template-context';
import { SessionAgent } from '../session/session';
import { authHeaders, ClientApi } from '../wire/client-apis';
import { ErrorInfo, QodeAssistError } from '../wire/error-info';
import { WIRE_PROTOCOLS, WireProtocol } from '../wire/wire-protocols';

/** Everything needed to send one request with an agent, the key already resolved in this process. */
export interface AgentTarget {
    agent: ResolvedAgent;
    protocol: WireProtocol;
    url: string;
    headers: Record<string, string>;
    /** Secret values to redact from every error. */
    secrets: string[];
    renderBody(ctx: TemplateContext): Record<string, unknown>;
}

/** Provider APIs that always need a key: a missing one is reported before any request is made. */
const KEY_REQUIRED: ReadonlySet<ClientApi> = new Set(['claude', 'openai', 'openai_responses', 'openrouter', 'google', 'mistral', 'codestral', 'qwen', 'qwen_responses', 'deepseek']);

/** Whether a provider API cannot answer without a key (local servers can). */
export function needsKey(api: ClientApi): boolean {
    return KEY_REQUIRED.has(api);
}

/** The key reference of an agent's provider (its name when it sets none) and the variable that holds it. */
export function keySourceOf(agent: ResolvedAgent): { ref: string; variable: string } {
    const ref = agent.provider.instance.api_key_ref ?? agent.provider.instance.name;
    return { ref, variable: environmentVariableFor(ref) };
}

export function missingKeyMessage(agent: ResolvedAgent): string {
    const { ref, variable } = keySourceOf(agent);
    return `Provider "${agent.provider.instance.name}" (agent "${agent.name}") needs an API key. Set the environment variable ${variable} where QodeAssist runs, or store the key "${ref}" in the configuration, then try again.`;
}

/** An Auth failure names the variable the key is read from: the provider's own message cannot know it. */
export function explainAuthError(agent: ResolvedAgent, error: ErrorInfo): ErrorInfo {
    if (error.category !== 'Auth') {
        return error;
    }
    const provider = agent.provider.instance.name;
    if (error.message.includes('environment variable')) {
        return { ...error, provider };
    }
    return { ...error, provider, message: `${error.message} The key of provider "${provider}" is read from the environment variable ${keySourceOf(agent).variable}.` };
}

/** Resolves the agent's key and headers; a cloud provider without a key is an Auth error before anything is sent. */
export async function prepareAgentTarget(agent: ResolvedAgent, secrets: SecretsStore): Promise<AgentTarget> {
    const instance = agent.provider.instance;
    assertKeyStaysWithProvider(agent);
    const key = instance.api_key_ref ? await secrets.get(instance.api_key_ref) : undefined;
    if (!key && KEY_REQUIRED.has(instance.client_api)) {
        throw new QodeAssistError({ category: 'Auth', message: missingKeyMessage(agent), provider: instance.name });
    }
    return {
        agent,
        protocol: WIRE_PROTOCOLS[agent.protocol],
        url: agent.url,
        headers: { ...authHeaders(instance.client_api, key), ...agent.headers },
        secrets: key ? [key] : [],
        renderBody: ctx => agent.renderBody(ctx)
    };
}

/**
 * The request goes to its provider's origin, or nowhere: an endpoint that changes the host
 * (`".evil.example/x"` after a URL without a path) would carry the provider's key elsewhere.
 * Checked before the key is even read; a reserved ref (QodeAssist's own secrets) is never read.
 */
function assertKeyStaysWithProvider(agent: ResolvedAgent): void {
    const ref = agent.provider.instance.api_key_ref;
    if (ref !== undefined && isReservedKeyRef(ref)) {
        throw new QodeAssistError({ category: 'Config', message: `Provider "${agent.provider.instance.name}" names "${ref}", a secret QodeAssist keeps for itself; nothing was sent.` });
    }
    const target = originOf(agent.url);
    const provider = originOf(agent.provider.url);
    // URLs without an origin (client_api "theia" is `theia:`) must at least stay under the provider's.
    if (target === undefined ? !agent.url.startsWith(agent.provider.url) : target !== provider) {
        throw new QodeAssistError({
            category: 'Config',
            message: `Agent "${agent.name}" would send its request to ${target ?? agent.url}, not to its provider's ${provider ?? agent.provider.url}; nothing was sent. Make its endpoint a path starting with "/".`
        });
    }
}

/** A ready SessionAgent for a resolved agent: what a Session needs, the key resolved here. */
export async function sessionAgentFor(agent: ResolvedAgent, secrets: SecretsStore): Promise<SessionAgent> {
    const target = await prepareAgentTarget(agent, secrets);
    return {
        name: agent.name, model: agent.model, protocol: target.protocol, url: target.url, headers: target.headers, secrets: target.secrets,
        contextWindow: agent.contextWindow, maxOutputTokens: agent.maxOutputTokens, systemPrompt: agent.renderSystemPrompt(),
        limits: agent.limits, file: agent.file.label, images: agent.images,
        ...(agent.pricing ? { pricing: agent.pricing } : {}),
        renderBody: ctx => agent.renderBody(ctx)
    };
}

/**
 * Resolves agent names against a live configuration, for a SessionManager: an agent that
 * left the configuration since is a Config error that says so. `prepare` makes a found agent
 * ready to send (default: its own URL and key; the bench points it elsewhere).
 */
export function configuredAgentResolver(
    configuration: () => Configuration, secrets: SecretsStore, prepare: (agent: ResolvedAgent, secrets: SecretsStore) => Promise<SessionAgent> = sessionAgentFor
): (name: string) => Promise<SessionAgent> {
    return async name => {
        const agent = configuration().agents.get(name);
        if (!agent) {
            throw new QodeAssistError({ category: 'Config', message: `The agent "${name}" is no longer configured.` });
        }
        return prepare(agent, secrets);
    };
}
