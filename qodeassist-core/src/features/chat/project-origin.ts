import { commandLineOf } from '../../acp/acp-definition';
import { AcpAgentEntry } from '../../config/acp-agent-config';
import { originOf } from '../../config/key-origins';
import { ProjectOrigin } from '../../config/project-trust';
import { Configuration, ResolvedAgent } from '../../agents/configuration-loader';

/** Where a model agent sends, when the trusted project's own provider file decides it; undefined for the user's and bundled providers. */
export function agentProjectOrigin(agent: ResolvedAgent, configuration: Pick<Configuration, 'projectOverrides'>): ProjectOrigin | undefined {
    const provider = agent.provider;
    if (provider.layer !== 'project') {
        return undefined;
    }
    const replaced = configuration.projectOverrides.find(override => override.kind === 'provider' && override.name === provider.instance.name);
    return { file: provider.file.label, sendsTo: originOf(provider.url) ?? provider.url, ...(replaced?.insteadOf ? { insteadOf: replaced.insteadOf } : {}) };
}

/** What a project's external agent runs; undefined for the user's and bundled ones. */
export function acpProjectOrigin(entry: AcpAgentEntry): ProjectOrigin | undefined {
    return entry.layer === 'project'
        ? { file: entry.file.label, runs: commandLineOf({ name: entry.name, command: entry.command, args: [...entry.args] }) }
        : undefined;
}
