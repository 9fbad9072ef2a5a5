import { HistoryMessage } from '../context/conversation-history';
import { TokenEstimator } from '../context/token-estimator';
import { compressHistory, CompressionResult, summarizeWith } from '../session/history-compressor';
import { SessionManager } from '../session/session-manager';
import { QodeAssistError } from '../wire/error-info';
import { Configuration } from './agent-factory';
import { pickAgent, RoutingContext } from './agent-router';

const COMPRESSION_LAYER = 'You write summaries of coding conversations. Output only the summary.';

/** Summarizes a chat with the compression roster's agent, in a pooled session of its own. */
export async function compressWithRoster(
    history: readonly HistoryMessage[],
    options: { configuration: Configuration; sessions: SessionManager; estimator: TokenEstimator; compressedFrom: string; routing?: RoutingContext }
): Promise<CompressionResult> {
    const agent = pickAgent(options.configuration, 'compression', options.routing);
    if (!agent) {
        throw new QodeAssistError({ category: 'Config', message: 'No compression agent is available. Add one to [compression] in rosters.toml.' });
    }
    const session = await options.sessions.acquire(agent.name, () => undefined);
    try {
        session.setLayer('compression', COMPRESSION_LAYER);
        return await compressHistory(history, {
            compressedFrom: options.compressedFrom, estimator: options.estimator,
            limitTokens: agent.contextWindow - agent.maxOutputTokens, summarize: summarizeWith(session)
        });
    } finally {
        await options.sessions.release(session);
    }
}
