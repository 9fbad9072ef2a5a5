import { ResolvedAgent } from '../../agents/configuration-loader';
import { agentForPipeline } from '../../agents/agent-router';
import { ConfigurationService } from '../../agents/configuration-service';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { SessionEvent } from '../../session/session-events';
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
    return agentForPipeline(configuration.current, 'next_edit', { file: request.relativePath, project: request.project }, named, 'next-edit', 'Add one (e.g. "ollama-zeta" or "ollama-next-edit") to .qodeassist/agents/rosters.toml.');
}
