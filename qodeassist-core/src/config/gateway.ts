import { ConfigFile } from './config-file';
import { ConfigIssue } from './config-issue';
import { originOf } from './key-origins';
import { ProviderInstance } from './schemas';
import { ClientApi, CLIENT_API_INFO } from '../wire/client-apis';

/**
 * Gateway mode: every provider call goes through one OpenAI- or Anthropic-compatible gateway
 * (LiteLLM and the like) with the gateway's key and a per-user identity header, so cost is
 * attributed per user and the providers' keys live only in the gateway. Set from the environment
 * of the IDE backend (an administrator's or the user's), never from a project's files.
 */
export interface GatewaySettings {
    /** The gateway as the operator names it, with or without its `/v1` (`https://litellm.corp.example/v1`): gatewayBaseUrl says where requests go. */
    url: string;
    kind: 'openai' | 'anthropic';
    /** The header naming the user, and its value (absent: no user is known, the header is not sent). */
    userHeader: string;
    user?: string;
}

/** The key ref of the gateway's own key: `QODEASSIST_GATEWAY_API_KEY`, or `QODEASSIST_GATEWAY_API_KEY_FILE`. */
export const GATEWAY_KEY_REF = 'qodeassist_gateway';
/** LiteLLM's header for the end user a request is for (it also reads `x-litellm-customer-id`). */
export const DEFAULT_GATEWAY_USER_HEADER = 'x-litellm-end-user-id';

/**
 * The gateway the environment names: `QODEASSIST_GATEWAY_URL`, `QODEASSIST_GATEWAY_KIND` (openai,
 * the default, or anthropic), `QODEASSIST_GATEWAY_USER_HEADER` (default x-litellm-end-user-id) and the
 * user: `QODEASSIST_GATEWAY_USER`, else the variable `QODEASSIST_GATEWAY_USER_ENV` names (default USER).
 */
export function gatewaySettings(env: Readonly<Record<string, string | undefined>> = process.env): GatewaySettings | undefined {
    const url = env.QODEASSIST_GATEWAY_URL?.trim();
    if (!url) {
        return undefined;
    }
    const kind = env.QODEASSIST_GATEWAY_KIND?.trim().toLowerCase() === 'anthropic' ? 'anthropic' : 'openai';
    const user = env.QODEASSIST_GATEWAY_USER?.trim() || env[env.QODEASSIST_GATEWAY_USER_ENV?.trim() || 'USER']?.trim();
    return { url: url.replace(/\/+$/, ''), kind, userHeader: env.QODEASSIST_GATEWAY_USER_HEADER?.trim() || DEFAULT_GATEWAY_USER_HEADER, ...(user ? { user } : {}) };
}

/** The client API a provider speaks through the gateway, by its chat protocol; undefined when the gateway does not speak it. */
function gatewayApi(kind: GatewaySettings['kind'], api: ClientApi): ClientApi | undefined {
    const protocol = CLIENT_API_INFO[api].chatProtocol;
    if (kind === 'anthropic') {
        return protocol === 'anthropic-messages' ? 'claude' : undefined;
    }
    return protocol === 'openai-chat' ? 'openai_compatible' : protocol === 'openai-responses' ? 'openai_responses' : undefined;
}

/**
 * The base URL the gateway API's paths are joined to. An operator may name the gateway with or
 * without its `/v1` (`https://gw.corp.example/v1` or `https://gw.corp.example`): both reach
 * `<root>/v1/chat/completions`, `<root>/v1/responses`, `<root>/v1/messages` and `<root>/v1/models`.
 */
export function gatewayBaseUrl(gateway: GatewaySettings): string {
    const root = gateway.url.replace(/\/+$/, '').replace(/\/v1$/i, '');
    return gateway.kind === 'openai' ? `${root}/v1` : root;
}

/** What the gateway serves for a configuration: its providers as the gateway serves them, and the agents on them. */
export interface GatewayRouting<A> {
    /** Agents left out: their provider's API is not the gateway's, or their endpoint has no counterpart there (FIM). */
    leftOut: Set<string>;
    /** Every concrete agent the gateway serves, its endpoint replaced by the gateway API's chat endpoint. */
    agents: Map<string, A>;
}

/** What routing reads of a merged agent profile (configuration-source's MergedAgent; structural, so config's files do not import in a circle). */
interface RoutedAgent {
    abstract: boolean;
    file: ConfigFile;
    table: Record<string, unknown>;
}

/**
 * Every provider as the gateway serves it: at the gateway's URL, speaking the gateway's API, with the
 * gateway's key (its own key ref is never read). A provider whose API the gateway does not speak is
 * left out with its agents, with a notice; the names and models stay, so the gateway routes by model.
 * An agent's endpoint is a path of its provider's API (`/v1/chat/completions` for Mistral and
 * llama.cpp, `/chat/completions` for OpenAI): its chat endpoint becomes the gateway API's, and any
 * other (a FIM endpoint) has no counterpart at the gateway, so that agent is left out with a notice.
 */
export function throughGateway<P extends { instance: ProviderInstance; url: string; file: ConfigFile }, A extends RoutedAgent>(
    providers: Map<string, P>, agents: ReadonlyMap<string, A>, gateway: GatewaySettings, issues: ConfigIssue[]
): GatewayRouting<A> {
    const originalApis = new Map<string, ClientApi>();
    const dropped = new Set<string>();
    const base = gatewayBaseUrl(gateway);
    const speaks = gateway.kind === 'openai' ? 'OpenAI' : 'Anthropic';
    for (const [name, provider] of providers) {
        const api = gatewayApi(gateway.kind, provider.instance.client_api);
        if (!api) {
            providers.delete(name);
            dropped.add(name);
            issues.push({
                severity: 'notice', file: provider.file.label,
                message: `provider "${name}" is left out in gateway mode: it speaks ${provider.instance.client_api}, and the gateway at ${originOf(gateway.url) ?? gateway.url} speaks the ${speaks} API`,
                fix: 'use an agent on a provider the gateway speaks for, or unset QODEASSIST_GATEWAY_URL'
            });
            continue;
        }
        originalApis.set(name, provider.instance.client_api);
        // No local server is started for it ([launch] dropped): the gateway answers.
        const instance = { ...provider.instance, client_api: api, url: base, api_key_ref: GATEWAY_KEY_REF };
        delete instance.launch;
        providers.set(name, { ...provider, url: base, instance });
    }
    const leftOut = new Set<string>();
    const served = new Map<string, A>();
    for (const [name, agent] of agents) {
        if (agent.abstract) {
            served.set(name, agent);
            continue;
        }
        const providerName = String(agent.table.provider_instance);
        if (dropped.has(providerName)) {
            leftOut.add(name);
            continue;
        }
        const original = originalApis.get(providerName);
        const endpoint = agent.table.endpoint;
        if (!original || endpoint === undefined) {
            // An unknown or disabled provider, or no endpoint: the agent's own error, or the disabled provider's notice, says so.
            served.set(name, agent);
            continue;
        }
        if (endpoint !== CLIENT_API_INFO[original].chatEndpoint) {
            leftOut.add(name);
            issues.push({
                severity: 'notice', file: agent.file.label,
                message: `agent "${name}" is left out in gateway mode: its endpoint ${String(endpoint)} is not the chat endpoint of ${original} (${CLIENT_API_INFO[original].chatEndpoint}), and the gateway at ${originOf(gateway.url) ?? gateway.url} serves only the ${speaks} API's chat`,
                fix: 'use a chat agent through the gateway, or unset QODEASSIST_GATEWAY_URL'
            });
            continue;
        }
        const gatewayEndpoint = CLIENT_API_INFO[providers.get(providerName)!.instance.client_api].chatEndpoint;
        served.set(name, { ...agent, table: { ...agent.table, endpoint: gatewayEndpoint } });
    }
    return { leftOut, agents: served };
}

/** The identity header every request through the gateway carries. */
export function gatewayHeaders(gateway: GatewaySettings | undefined): Record<string, string> {
    return gateway?.user ? { [gateway.userHeader]: gateway.user } : {};
}

/**
 * The identity header for a request to `url` outside an agent (a model list, the Quick Setup's
 * probe): a request to the gateway carries it, one to any other origin (a URL the user typed) does not.
 */
export function gatewayHeadersFor(url: string, gateway = gatewaySettings()): Record<string, string> {
    return gateway && originOf(url) !== undefined && originOf(url) === originOf(gateway.url) ? gatewayHeaders(gateway) : {};
}
