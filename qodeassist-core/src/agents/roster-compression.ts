import { HistoryMessage } from '../context/conversation-history';
import { TokenEstimator } from '../context/token-estimator';
import { compressHistory, CompressionResult, summarizeWith } from '../session/history-compressor';
import { SessionManager } from '../session/session-manager';
import { CancelledError, QodeAssistError } from '../wire/error-info';
import { Configuration } from './configuration-loader';
import { pickAgent, RoutingContext } from './agent-router';

const COMPRESSION_LAYER = 'You write summaries of coding conversations. Output only the summary.';

export interface RosterCompressionOptions {
    configuration: Configuration;
    sessions: SessionManager;
    estimator: TokenEstimator;
    compressedFrom: string;
    routing?: RoutingContext;
    /** Tokens the last turns may take to stay as they were after the summary (see CompressionOptions). */
    keepRecentTokens?: number;
    /** Stops the summary: its request is cancelled and the compression rejects with CancelledError. */
    signal?: AbortSignal;
}

/** Summarizes a chat with the compression roster's agent, in a pooled session of its own. */
export async function compressWithRoster(history: readonly HistoryMessage[], options: RosterCompressionOptions): Promise<CompressionResult> {
    const agent = pickAgent(options.configuration, 'compression', options.routing);
    if (!agent) {
        throw new QodeAssistError({ category: 'Config', message: 'No compression agent is available. Add one to [compression] in rosters.toml.' });
    }
    stopIfAborted(options.signal);
    const session = await options.sessions.acquire(agent.name, () => undefined);
    try {
        stopIfAborted(options.signal);
        session.setLayer('compression', COMPRESSION_LAYER);
        const result = await compressHistory(history, {
            compressedFrom: options.compressedFrom, estimator: options.estimator, keepRecentTokens: options.keepRecentTokens,
            limitTokens: agent.contextWindow - agent.maxOutputTokens, summarize: summarizeWith(session, options.signal)
        });
        // A stop that came with the answer (or while a digest was built) still wins: nothing was made of it yet.
        stopIfAborted(options.signal);
        return result;
    } finally {
        await options.sessions.release(session);
    }
}

function stopIfAborted(signal: AbortSignal | undefined): void {
    if (signal?.aborted) {
        throw new CancelledError();
    }
}
