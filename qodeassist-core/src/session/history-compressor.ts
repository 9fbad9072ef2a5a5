import { QodeAssistError } from '../wire/error-info';
import { HistoryMessage, messageText } from '../context/conversation-history';
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
}

export interface CompressionResult {
    history: HistoryMessage[];
    summary: string;
    /** True when the summarizing request would not fit and the summary was built without a model. */
    deterministic: boolean;
}

const INSTRUCTION = 'Summarize the conversation below so that the work can continue without it. Keep the goal, decisions, '
    + 'files and identifiers, errors still open, and the next steps. Exact names, paths and messages matter more than prose.';
const FALLBACK_REQUESTS = 40;
const FALLBACK_CHARS = 400;

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
 * without a model. The new history records `compressedFrom`; the original is not touched.
 */
export async function compressHistory(history: readonly HistoryMessage[], options: CompressionOptions): Promise<CompressionResult> {
    const transcript = transcriptOf(history);
    if (!transcript) {
        throw new QodeAssistError({ category: 'Validation', message: 'There is nothing to summarize yet.' });
    }
    const prompt = `${INSTRUCTION}\n\n<conversation>\n${transcript}\n</conversation>`;
    const fits = options.estimator.estimateText(prompt) <= options.limitTokens;
    const summary = fits ? (await options.summarize(prompt)).trim() : deterministicDigest(history);
    return {
        summary,
        deterministic: !fits,
        history: [
            { role: 'user', blocks: [{ type: 'text', text: `Summary of the conversation so far:\n\n${summary}` }], compressedFrom: options.compressedFrom },
            { role: 'assistant', blocks: [{ type: 'text', text: 'Understood; I will continue from this summary.' }] }
        ]
    };
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

/** Runs one prompt on a session and resolves with the answer text; a failure or cancel rejects. */
export function summarizeWith(session: Session): (prompt: string) => Promise<string> {
    return prompt => new Promise((resolve, reject) => {
        session.listen(events => {
            for (const event of events) {
                if (event.type === 'Finished') {
                    const answer = session.history[session.history.length - 1];
                    resolve(answer ? messageText(answer) : '');
                } else if (event.type === 'Failed') {
                    reject(new QodeAssistError(event.error));
                } else if (event.type === 'Cancelled') {
                    reject(new QodeAssistError({ category: 'Validation', message: 'The summary was cancelled; the chat is unchanged.' }));
                }
            }
        });
        session.send([{ type: 'text', text: prompt }]).catch(reject);
    });
}
