import { ResolvedAgent } from '../../agents/configuration-loader';
import { managedAgentRefusal, managedRosterNote, pickAgent } from '../../agents/agent-router';
import { ConfigurationService } from '../../agents/configuration-service';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { SessionEvent } from '../../session/session-events';
import { QodeAssistError } from '../../wire/error-info';
import { NextEditEngine, NextEditRequest, NextEditSettings } from './next-edit-engine';

export interface ConfiguredNextEditOptions {
    settings?(): NextEditSettings;
    /** An agent named by the caller (the bench's --agent); otherwise the next_edit roster decides per file. */
    agent?: string;
    onEvents?(events: readonly SessionEvent[]): void;
}

/**
 * The next-edit engine of one configuration, on a host's runtime: the [next_edit] roster picks the
 * agent per file and sessions come from the completion pool (the same short limits: a suggestion
 * that takes half a minute is not one). The IDE's service and the bench make theirs here.
 */
export function configuredNextEditEngine(runtime: QodeAssistRuntime, configuration: ConfigurationService, options: ConfiguredNextEditOptions = {}): NextEditEngine {
    return new NextEditEngine({
        sessions: runtime.sessions(configuration, 'completion'), settings: options.settings, onEvents: options.onEvents,
        agentFor: request => nextEditAgentFor(configuration, request, options.agent)
    });
}

function nextEditAgentFor(configuration: ConfigurationService, request: NextEditRequest, named: string | undefined): ResolvedAgent {
    if (named) {
        const agent = configuration.current.agents.get(named);
        if (!agent) {
            throw new QodeAssistError({ category: 'Config', message: managedAgentRefusal(configuration.current, named) ?? `There is no agent named "${named}".` });
        }
        return agent;
    }
    const agent = pickAgent(configuration.current, 'next_edit', { file: request.relativePath, project: request.project });
    if (!agent) {
        throw new QodeAssistError({
            category: 'Config',
            message: `No next-edit agent is available: the [next_edit] roster is empty or none of its agents fits this file.${managedRosterNote(configuration.current, 'next_edit')} Add one (e.g. "ollama-zeta" or "ollama-next-edit") to .qodeassist/agents/rosters.toml.`
        });
    }
    return agent;
}
