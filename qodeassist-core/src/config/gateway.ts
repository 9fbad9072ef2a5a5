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
    /** The base the API's paths are joined to: `https://litellm.corp.example/v1` for `openai`, `https://litellm.corp.example` for `anthropic`. */
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
 * Every provider as the gateway serves it: at the gateway's URL, speaking the gateway's API, with the
 * gateway's key (its own key ref is never read). A provider whose API the gateway does not speak is
 * left out with its agents, with a notice; the names and models stay, so the gateway routes by model.
 */
export function throughGateway<P extends { instance: ProviderInstance; url: string; file: ConfigFile }>(providers: Map<string, P>, gateway: GatewaySettings, issues: ConfigIssue[]): Set<string> {
    const leftOut = new Set<string>();
    for (const [name, provider] of providers) {
        const api = gatewayApi(gateway.kind, provider.instance.client_api);
        if (!api) {
            providers.delete(name);
            leftOut.add(name);
            issues.push({
                severity: 'notice', file: provider.file.label,
                message: `provider "${name}" is left out in gateway mode: it speaks ${provider.instance.client_api}, and the gateway at ${originOf(gateway.url) ?? gateway.url} speaks the ${gateway.kind === 'openai' ? 'OpenAI' : 'Anthropic'} API`,
                fix: 'use an agent on a provider the gateway speaks for, or unset QODEASSIST_GATEWAY_URL'
            });
            continue;
        }
        // No local server is started for it ([launch] dropped): the gateway answers.
        const instance = { ...provider.instance, client_api: api, url: gateway.url, api_key_ref: GATEWAY_KEY_REF };
        delete instance.launch;
        providers.set(name, { ...provider, url: gateway.url, instance });
    }
    return leftOut;
}

/** The identity header every request through the gateway carries. */
export function gatewayHeaders(gateway: GatewaySettings | undefined): Record<string, string> {
    return gateway?.user ? { [gateway.userHeader]: gateway.user } : {};
}
