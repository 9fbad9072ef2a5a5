import { z } from 'zod';
import { gatewayBaseUrl, GatewaySettings } from './gateway';
import { QodeAssistError } from '../wire/error-info';

/**
 * Gateway mode for external (ACP) agents: an agent that reads its model server's base URL and key
 * from variables is pointed at the gateway through them. What its `acp/*.toml` may say is an
 * allowlist per API: the file names variables only, never a URL or a key — the URL is always the
 * administrator's gateway and the key always the gateway's own.
 */

/** The API an agent speaks to its model server; it decides how the gateway's URL is joined for it. */
export const GATEWAY_AGENT_APIS = ['anthropic', 'openai', 'gemini'] as const;
export type GatewayAgentApi = typeof GATEWAY_AGENT_APIS[number];

/** The variables an agent of each API may name for the base URL, the key and the identity header. */
export interface GatewayAgentVariables {
    baseUrl: readonly string[];
    key: readonly string[];
    /** Variables read as custom headers, `Name: value` lines (none: the agent cannot send the identity). */
    headers: readonly string[];
    /** Set in gateway mode whatever the file or the environment says: they keep the agent from also calling its vendor. */
    settings: Readonly<Record<string, string>>;
}

/**
 * The allowlist, from the agents' own documentation:
 * - Anthropic (Claude Code, code.claude.com/docs/en/env-vars): ANTHROPIC_BASE_URL "to route requests
 *   through a proxy or gateway"; ANTHROPIC_AUTH_TOKEN (sent as `Authorization: Bearer`, what LiteLLM's
 *   Claude Code setup uses) or ANTHROPIC_API_KEY (sent as `x-api-key`); ANTHROPIC_CUSTOM_HEADERS, "Name: Value",
 *   newline-separated.
 * - OpenAI (Codex, Qwen Code): OPENAI_BASE_URL, including its `/v1` (LiteLLM's Codex and Qwen Code setups),
 *   and OPENAI_API_KEY. Codex sends custom headers only from its config.toml (`env_http_headers`), no variable.
 * - Gemini (Gemini CLI, docs.litellm.ai/docs/tutorials/litellm_gemini_cli): GOOGLE_GEMINI_BASE_URL, the
 *   gateway's root, and GEMINI_API_KEY; its documented variables name no custom headers.
 * Claude Code pointed elsewhere still asks api.anthropic.com about "fast mode" and sends non-essential
 * traffic there unless both switches below are set (measured with its published adapter; see README).
 */
export const GATEWAY_AGENT_VARIABLES: Readonly<Record<GatewayAgentApi, GatewayAgentVariables>> = {
    anthropic: {
        baseUrl: ['ANTHROPIC_BASE_URL'], key: ['ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_API_KEY'], headers: ['ANTHROPIC_CUSTOM_HEADERS'],
        settings: { CLAUDE_CODE_DISABLE_FAST_MODE: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }
    },
    openai: { baseUrl: ['OPENAI_BASE_URL'], key: ['OPENAI_API_KEY'], headers: [], settings: {} },
    gemini: { baseUrl: ['GOOGLE_GEMINI_BASE_URL'], key: ['GEMINI_API_KEY'], headers: [], settings: {} }
};

/** An `acp/*.toml`'s `[gateway]` table: how the agent is pointed at the gateway, by variable names. */
export interface AcpGatewayBinding {
    api: GatewayAgentApi;
    /** The variable that takes the gateway's URL, joined for `api`. */
    base_url: string;
    /** The variable that takes the gateway's key. */
    key: string;
    /** The variable that takes the identity header as a `Name: value` line; absent: the agent sends none. */
    headers?: string;
}

/** Why a binding is not one the allowlist knows, and the field at fault; undefined when it is (checked at load and again at start). */
export function gatewayBindingProblem(binding: AcpGatewayBinding): { field: keyof AcpGatewayBinding; message: string } | undefined {
    const allowed = Object.hasOwn(GATEWAY_AGENT_VARIABLES, binding.api) ? GATEWAY_AGENT_VARIABLES[binding.api] : undefined;
    if (!allowed) {
        return { field: 'api', message: `api must be one of ${GATEWAY_AGENT_APIS.join(', ')}` };
    }
    const checks: Array<[keyof AcpGatewayBinding, string | undefined, readonly string[]]> = [
        ['base_url', binding.base_url, allowed.baseUrl], ['key', binding.key, allowed.key], ['headers', binding.headers, allowed.headers]
    ];
    for (const [field, value, names] of checks) {
        if (value !== undefined && !names.includes(value)) {
            return {
                field, message: names.length === 0
                    ? `${field}: QodeAssist knows no ${field} variable of a ${binding.api} agent; remove it`
                    : `${field} = "${value}" is not a ${binding.api} agent's ${field} variable; use ${names.map(name => `"${name}"`).join(' or ')}`
            };
        }
    }
    return undefined;
}

/** The `[gateway]` table of an `acp/*.toml`, checked against the allowlist. */
export const AcpGatewaySchema = z.strictObject({
    api: z.enum(GATEWAY_AGENT_APIS),
    base_url: z.string(),
    key: z.string(),
    headers: z.string().optional()
}).superRefine((binding, context) => {
    const problem = gatewayBindingProblem(binding);
    if (problem) {
        context.addIssue({ code: 'custom', path: [problem.field], message: `${problem.message} (the URL and the key are the gateway's, never the file's)` });
    }
});

/**
 * The gateway's URL as an agent of `api` takes it: the root for Anthropic (it appends `/v1/messages`) and
 * Gemini (it appends `/v1beta/models/…`), the root with `/v1` for OpenAI (it appends `/responses` or
 * `/chat/completions`) — the same joining QodeAssist's own providers get.
 */
export function gatewayAgentBaseUrl(gateway: GatewaySettings, api: GatewayAgentApi): string {
    return gatewayBaseUrl({ ...gateway, kind: api === 'openai' ? 'openai' : 'anthropic' });
}

/** The variable naming the APIs the gateway serves to external agents, comma-separated; all of them when unset (LiteLLM serves all three). */
export const GATEWAY_AGENT_APIS_VARIABLE = 'QODEASSIST_GATEWAY_AGENT_APIS';

/** The APIs the gateway serves to external agents; a name the list does not know is a Config error. */
export function gatewayAgentApis(env: Readonly<Record<string, string | undefined>> = process.env): ReadonlySet<GatewayAgentApi> {
    const value = env[GATEWAY_AGENT_APIS_VARIABLE]?.trim();
    if (!value) {
        return new Set(GATEWAY_AGENT_APIS);
    }
    const names = value.split(',').map(name => name.trim().toLowerCase()).filter(Boolean);
    const unknown = names.filter(name => !(GATEWAY_AGENT_APIS as readonly string[]).includes(name));
    if (unknown.length > 0) {
        throw new QodeAssistError({
            category: 'Config',
            message: `${GATEWAY_AGENT_APIS_VARIABLE} names ${unknown.map(name => `"${name}"`).join(', ')}, which is no API QodeAssist points agents at. Use a comma-separated list of ${GATEWAY_AGENT_APIS.join(', ')}, or unset it.`
        });
    }
    return new Set(names as GatewayAgentApi[]);
}
