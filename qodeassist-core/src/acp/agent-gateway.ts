import { GATEWAY_KEY_REF, GatewaySettings, gatewaySettings } from '../config/gateway';
import {
    GATEWAY_AGENT_APIS_VARIABLE, GATEWAY_AGENT_VARIABLES, GatewayAgentApi, gatewayAgentApis, gatewayAgentBaseUrl, gatewayBindingProblem
} from '../config/gateway-agents';
import { KEY_FILE_SUFFIX } from '../config/key-files';
import { EnvironmentSecretsStore, environmentVariableFor } from '../config/secrets-store';
import { childEnvironment, environmentValue } from '../tools/child-environment';
import { PROCESS_SECRETS } from '../wire/redaction';
import { AcpAgentDefinition } from './acp-definition';
import { AcpAgentError } from './acp-errors';

/** Gateway mode as an agent's start sees it: the administrator's gateway and the APIs it serves to agents. */
export interface AgentGateway {
    settings: GatewaySettings;
    apis: ReadonlySet<GatewayAgentApi>;
}

/** Gateway mode from the backend's environment (QODEASSIST_GATEWAY_URL), or undefined outside it; a bad API list throws its Config error. */
export function agentGatewayFrom(env: Readonly<Record<string, string | undefined>>): AgentGateway | undefined {
    const settings = gatewaySettings(env);
    return settings ? { settings, apis: gatewayAgentApis(env) } : undefined;
}

const API_NAMES: Readonly<Record<GatewayAgentApi, string>> = { anthropic: 'Anthropic', openai: 'OpenAI', gemini: 'Gemini' };

/** The gateway's own key variable, as the administrator provides it (a mounted Secret's file). */
const GATEWAY_KEY_FILE_VARIABLE = `${environmentVariableFor(GATEWAY_KEY_REF)}${KEY_FILE_SUFFIX}`;

/** An agent refused in gateway mode; `reason` says why it cannot be pointed at the gateway. */
export class AgentGatewayError extends AcpAgentError {
    constructor(definition: Pick<AcpAgentDefinition, 'name'>, readonly reason: string, fix: string) {
        super(definition.name, 'Config', `ACP agent "${definition.name}" was not started in gateway mode: it ${reason}. ${fix}`);
        this.name = 'AgentGatewayError';
    }
}

/** Why the agent cannot be pointed at the gateway, with what to do; undefined when it can. */
export function gatewayRefusal(definition: Pick<AcpAgentDefinition, 'name' | 'gateway'>, gateway: AgentGateway): { reason: string; fix: string } | undefined {
    const binding = definition.gateway;
    if (!binding) {
        return {
            reason: `cannot be pointed at the gateway: ${definition.name} has no base-URL setting`,
            fix: 'In gateway mode every model call goes through the gateway, and this agent names no variable for its base URL and key ([gateway] in its acp/*.toml). Pick another agent, or ask your administrator.'
        };
    }
    const problem = gatewayBindingProblem(binding);
    if (problem) {
        return { reason: `cannot be pointed at the gateway: its [gateway] table is not allowed (${problem.message})`, fix: 'Fix the [gateway] table of its acp/*.toml.' };
    }
    if (!gateway.apis.has(binding.api)) {
        return {
            reason: `cannot be pointed at the gateway: ${definition.name} speaks the ${API_NAMES[binding.api]} API, which the gateway does not serve to agents (${GATEWAY_AGENT_APIS_VARIABLE} = ${[...gateway.apis].join(',') || 'nothing'})`,
            fix: `Pick another agent, or ask your administrator to add ${binding.api} to ${GATEWAY_AGENT_APIS_VARIABLE} if the gateway serves it.`
        };
    }
    return undefined;
}

/** Header names are tokens, values one line: the identity never adds a header line of its own. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex
const HEADER_VALUE = /^[^\u0000-\u001f\u007f]+$/;

/** The identity header as one `Name: value` line, or undefined when no user is known. */
function identityHeaderLine(definition: Pick<AcpAgentDefinition, 'name'>, gateway: GatewaySettings): string | undefined {
    if (!gateway.user) {
        return undefined;
    }
    if (!HEADER_NAME.test(gateway.userHeader) || !HEADER_VALUE.test(gateway.user)) {
        throw new AgentGatewayError(definition, 'cannot send the user\'s identity: the identity header name or the user is not a single header line',
            'Set QODEASSIST_GATEWAY_USER_HEADER to a header name and QODEASSIST_GATEWAY_USER to a value without line breaks or control characters.');
    }
    return `${gateway.userHeader}: ${gateway.user}`;
}

/** Every variable a binding may set, of any API: in gateway mode only QodeAssist sets them. */
const GATEWAY_CONTROLLED = new Set(Object.values(GATEWAY_AGENT_VARIABLES).flatMap(names => [...names.baseUrl, ...names.key, ...names.headers, ...Object.keys(names.settings)]));

export interface GatewayVariableOptions {
    /** Key values that never reach the agent under any other variable. */
    secrets: readonly string[];
    platform: NodeJS.Platform;
}

/**
 * Gateway mode: the variables the agent gets on top of the scrubbed set. Its own named variables pass
 * only when they carry no credential (the user's direct provider keys stay behind: all traffic goes to
 * the gateway) and are none of the gateway variables; then the binding's variables get the gateway's
 * URL joined for the agent's API, the gateway's key — from the administrator's environment or key
 * file, never a key the user stored — and the identity header where the agent reads headers, and the
 * API's switches that keep the agent off its vendor's servers are set.
 */
export async function gatewayAgentVariables(definition: AcpAgentDefinition, source: Readonly<Record<string, string | undefined>>, gateway: AgentGateway, options: GatewayVariableOptions): Promise<Record<string, string>> {
    const refusal = gatewayRefusal(definition, gateway);
    if (refusal) {
        throw new AgentGatewayError(definition, refusal.reason, refusal.fix);
    }
    const binding = definition.gateway!;
    const key = await new EnvironmentSecretsStore(source).get(GATEWAY_KEY_REF);
    if (!key) {
        throw new AgentGatewayError(definition, 'has no gateway key to send',
            `Ask your administrator to provide the gateway's key as a file named by ${GATEWAY_KEY_FILE_VARIABLE} (or as ${environmentVariableFor(GATEWAY_KEY_REF)}) where QodeAssist runs.`);
    }
    PROCESS_SECRETS.add(key);
    const header = binding.headers ? identityHeaderLine(definition, gateway.settings) : undefined;
    const upper = (name: string) => options.platform === 'win32' ? name.toUpperCase() : name;
    const named: Record<string, string | undefined> = {};
    for (const name of definition.env ?? []) {
        if (upper(name) !== upper('PATH') && ![...GATEWAY_CONTROLLED].some(controlled => upper(controlled) === upper(name))) {
            named[name] = environmentValue(source, name, options.platform);
        }
    }
    const passed = childEnvironment(named, { allow: definition.env, secrets: [...options.secrets, key], platform: options.platform });
    return {
        ...passed,
        ...GATEWAY_AGENT_VARIABLES[binding.api].settings,
        [binding.base_url]: gatewayAgentBaseUrl(gateway.settings, binding.api),
        [binding.key]: key,
        ...(binding.headers && header ? { [binding.headers]: header } : {})
    };
}
