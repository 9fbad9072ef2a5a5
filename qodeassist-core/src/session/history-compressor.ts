import { CancelledError, QodeAssistError } from '../wire/error-info';
import { HistoryMessage, isUserTurn, messageText } from '../context/conversation-history';
import { TokenEstimator } from '../context/token-estimator';
import { Session } from './session';

export interface CompressionOptions {
    /** The id of the chat being compressed; the summary records it as `compressedFrom`. */
    compressedFrom: string;
    /** Tokens the summarizing request may use (the compression agent's window minus its reply). */
    limitTokens: number;
    estimator: TokenEstimator;
    /** Sends the prompt to the compression agent and returns its answer. */
    summarize(prompt: string): Promise<string>;
    /**
     * Tokens the most recent turns may take to stay word for word after the summary (auto-compression:
     * the next message usually refers to them). Absent or 0: the summary replaces the whole conversation.
     */
    keepRecentTokens?: number;
}

export interface CompressionResult {
    history: HistoryMessage[];
    summary: string;
    /** True when the summarizing request would not fit and the summary was built without a model. */
    deterministic: boolean;
    /** How many of the last messages follow the summary as they were. */
    kept: number;
}

const INSTRUCTION = 'Summarize the conversation below so that the work can continue without it. Keep the goal, decisions, '
    + 'files and identifiers, errors still open, and the next steps. Exact names, paths and messages matter more than prose.';
const FALLBACK_REQUESTS = 40;
const FALLBACK_CHARS = 400;
/** At most this many recent turns stay word for word; older ones are what a summary is for. */
const MAX_RECENT_TURNS = 2;

/** The conversation as plain text for summarizing: tool traffic, thinking and edit records are left out. */
export function transcriptOf(history: readonly HistoryMessage[]): string {
    return history
        .map(message => ({ role: message.role, text: messageText(message).trim() }))
        .filter(entry => entry.text.length > 0)
        .map(entry => `${entry.role === 'user' ? 'User' : 'Assistant'}: ${entry.text}`)
        .join('\n\n');
}

/**
 * Replaces a history by a summary of it, through the compression agent — or, when even
 * the summarizing request would overflow that agent, by a deterministic digest built
 * without a model. With `keepRecentTokens`, the last turns that fit stay after the summary
 * as they were. The new history records `compressedFrom`; the original is not touched.
 */
export async function compressHistory(history: readonly HistoryMessage[], options: CompressionOptions): Promise<CompressionResult> {
    const start = options.keepRecentTokens ? recentStart(history, options.estimator, options.keepRecentTokens) : history.length;
    const older = history.slice(0, start);
    const transcript = transcriptOf(older);
    if (!transcript) {
        throw new QodeAssistError({ category: 'Validation', message: 'There is nothing to summarize yet.' });
    }
    const prompt = `${INSTRUCTION}\n\n<conversation>\n${transcript}\n</conversation>`;
    const fits = options.estimator.estimateText(prompt) <= options.limitTokens;
    const summary = fits ? (await options.summarize(prompt)).trim() : deterministicDigest(older);
    return {
        summary,
        deterministic: !fits,
        kept: history.length - start,
        history: [
            { role: 'user', blocks: [{ type: 'text', text: `Summary of the conversation so far:\n\n${summary}` }], compressedFrom: options.compressedFrom },
            { role: 'assistant', blocks: [{ type: 'text', text: 'Understood; I will continue from this summary.' }] },
            ...history.slice(start)
        ]
    };
}

/**
 * Where the turns kept word for word begin: at a message the user wrote (so no tool call is
 * parted from its result), the last turns together within `tokens` (their JSON, a safe
 * overestimate), something with text left before them to summarize; `history.length` for none.
 */
export function recentStart(history: readonly HistoryMessage[], estimator: TokenEstimator, tokens: number): number {
    let start = history.length;
    let turns = 0;
    for (let index = history.length - 1; index > 0 && turns < MAX_RECENT_TURNS; index--) {
        if (!isUserTurn(history[index])) {
            continue;
        }
        if (estimator.estimateText(JSON.stringify(history.slice(index).map(message => message.blocks))) > tokens || !transcriptOf(history.slice(0, index))) {
            break;
        }
        start = index;
        turns++;
    }
    return start;
}

/** A digest without a model: the user's requests (most recent last) and the last answer, each abridged. */
export function deterministicDigest(history: readonly HistoryMessage[]): string {
    const abridge = (text: string) => text.length > FALLBACK_CHARS ? `${text.slice(0, FALLBACK_CHARS)}…` : text;
    const requests = history.filter(message => message.role === 'user').map(messageText).map(text => text.trim()).filter(Boolean);
    const shown = requests.slice(-FALLBACK_REQUESTS);
    const lastAnswer = [...history].reverse().find(message => message.role === 'assistant' && messageText(message).trim());
    const lines = [
        `(Built without a model: the conversation was too long to summarize in one request. ${requests.length} user messages in total.)`,
        '',
        `Requests${shown.length < requests.length ? ` (the last ${shown.length})` : ''}:`,
        ...shown.map(text => `- ${abridge(text).replace(/\n+/g, ' ')}`)
    ];
    if (lastAnswer) {
        lines.push('', `Last answer: ${abridge(messageText(lastAnswer).trim())}`);
    }
    return lines.join('\n');
}

/**
 * Runs one prompt on a session and resolves with the answer text; a failure rejects with its
 * error, a stop (the session's request cancelled, or `signal`) with CancelledError.
 */
export function summarizeWith(session: Session, signal?: AbortSignal): (prompt: string) => Promise<string> {
    return prompt => new Promise<string>((resolve, reject) => {
        if (signal?.aborted) {
            reject(new CancelledError());
            return;
        }
        const stop = () => void session.cancel();
        signal?.addEventListener('abort', stop, { once: true });
        const settle = (end: () => void) => {
            signal?.removeEventListener('abort', stop);
            end();
        };
        session.listen(events => {
            for (const event of events) {
                if (event.type === 'Finished') {
                    const answer = session.history[session.history.length - 1];
                    settle(() => resolve(answer ? messageText(answer) : ''));
                } else if (event.type === 'Failed') {
                    settle(() => reject(new QodeAssistError(event.error)));
                } else if (event.type === 'Cancelled') {
                    settle(() => reject(new CancelledError()));
                }
            }
        });
        session.send([{ type: 'text', text: prompt }]).then(() => {
            // A stop that came while the request was being set up found nothing in flight to cancel.
            if (signal?.aborted) {
                stop();
            }
        }, error => settle(() => reject(error)));
    });
}
