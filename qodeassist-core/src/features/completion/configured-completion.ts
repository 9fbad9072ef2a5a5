import { ResolvedAgent } from '../../agents/configuration-loader';
import { agentForPipeline } from '../../agents/agent-router';
import { ConfigurationService } from '../../agents/configuration-service';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { SessionEvent } from '../../session/session-events';
import { CompletionEngine, CompletionRequest, CompletionSettings } from './completion-engine';

export interface ConfiguredCompletionOptions {
    /** The settings of the request being served (the IDE's preferences, the bench's defaults). */
    settings(): CompletionSettings;
    /** An agent named by the caller (the bench's --agent); otherwise the completion roster decides per file. */
    agent?: string;
    /** Every session event of the requests made. */
    onEvents?(events: readonly SessionEvent[]): void;
}

/**
 * The completion engine of one configuration, on a host's runtime: the completion roster picks
 * the agent per file, sessions come from the runtime's completion pool, and the cache empties
 * when the configuration changes. The IDE's completion service and the bench make theirs here.
 */
export function configuredCompletionEngine(runtime: QodeAssistRuntime, configuration: ConfigurationService, options: ConfiguredCompletionOptions): { engine: CompletionEngine; dispose(): void } {
    const engine = new CompletionEngine({
        sessions: runtime.sessions(configuration, 'completion'), estimator: runtime.estimator, settings: options.settings, onEvents: options.onEvents,
        agentFor: request => completionAgentFor(configuration, request, options.agent)
    });
    const stop = configuration.onDidChange(() => engine.cache.clear());
    return { engine, dispose: () => { stop(); engine.cancel(); } };
}

function completionAgentFor(configuration: ConfigurationService, request: CompletionRequest, named: string | undefined): ResolvedAgent {
    return agentForPipeline(configuration.current, 'completion', { file: request.relativePath, project: request.project }, named, 'completion', 'Add one to .qodeassist/agents/rosters.toml.');
}
