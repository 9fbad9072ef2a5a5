import { ResolvedAgent } from '../../agents/configuration-loader';
import { managedAgentRefusal, managedRosterNote, pickAgent } from '../../agents/agent-router';
import { ConfigurationService } from '../../agents/configuration-service';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { SessionEvent } from '../../session/session-events';
import { QodeAssistError } from '../../wire/error-info';
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
    if (named) {
        const agent = configuration.current.agents.get(named);
        if (!agent) {
            throw new QodeAssistError({ category: 'Config', message: managedAgentRefusal(configuration.current, named) ?? `There is no agent named "${named}".` });
        }
        return agent;
    }
    const agent = pickAgent(configuration.current, 'completion', { file: request.relativePath, project: request.project });
    if (!agent) {
        throw new QodeAssistError({
            category: 'Config',
            message: `No completion agent is available: the [completion] roster is empty or none of its agents fits this file.${managedRosterNote(configuration.current, 'completion')} Add one to .qodeassist/agents/rosters.toml.`
        });
    }
    return agent;
}
