import { childEnvironment, environmentValue } from '../tools/child-environment';
import { AcpAgentDefinition } from './acp-definition';
import { agentGatewayFrom, gatewayAgentVariables } from './agent-gateway';

export interface AgentEnvironmentOptions {
    /** Key values that never reach the agent (unless, outside gateway mode, the user named their variable). */
    secrets: readonly string[];
    platform: NodeJS.Platform;
}

/**
 * The environment an agent's process gets (before its PATH is contained): the scrubbed set, plus —
 * outside gateway mode — the variables its definition names, whatever they hold (the user named
 * them), or — in gateway mode — the gateway's URL, key and identity header through the variables its
 * `[gateway]` table names, and its named variables only where they carry no credential. An agent
 * that cannot be pointed at the gateway is refused with an AgentGatewayError.
 */
export async function agentEnvironment(definition: AcpAgentDefinition, source: Readonly<Record<string, string | undefined>>, options: AgentEnvironmentOptions): Promise<Record<string, string>> {
    const env = childEnvironment(source, { secrets: options.secrets, platform: options.platform });
    // Gateway mode is what the backend's environment names (QODEASSIST_GATEWAY_URL), as for the providers.
    const gateway = agentGatewayFrom(source);
    if (gateway) {
        return { ...env, ...await gatewayAgentVariables(definition, source, gateway, options) };
    }
    for (const name of definition.env ?? []) {
        const value = environmentValue(source, name, options.platform);
        if (value !== undefined && name.toUpperCase() !== 'PATH') {
            env[name] = value;
        }
    }
    return env;
}
