import { AssistantTurn } from './assistant-turn';
import { QodeAssistError } from './error-info';
import { RequestId, ResponseEvent } from './events';
import { redactSecrets } from './redaction';

/**
 * Turns one protocol's stream records (an SSE `data` payload, an NDJSON line) into
 * normalized events, and remembers the assistant message for replay. Decoders hold
 * only the state a protocol needs across records.
 */
export interface StreamDecoder {
    /** One record; `event` is the SSE event name where the protocol uses one. */
    decode(data: string, event?: string): ResponseEvent[];
    /** The stream ended; returns the closing events or throws when the stream was cut short. */
    finish(): ResponseEvent[];
    /** After a successful `finish`: the whole assistant message. */
    turn(): AssistantTurn;
}

export type StreamDecoderFactory = (requestId: RequestId) => StreamDecoder;

const MAX_QUOTED_LINE = 200;

/** A record that is not the JSON the protocol promises: a Provider error quoting the (redacted) line. */
export function malformedRecord(data: string, protocol: string): QodeAssistError {
    const shown = redactSecrets(data.length > MAX_QUOTED_LINE ? `${data.slice(0, MAX_QUOTED_LINE)}…` : data);
    return new QodeAssistError({
        category: 'Provider',
        message: `The provider sent a malformed ${protocol} stream record, so the answer was stopped. Try again; if it repeats, the server is not speaking ${protocol}.`,
        providerDetail: shown
    });
}

export function parseRecord(data: string, protocol: string): unknown {
    try {
        return JSON.parse(data);
    } catch {
        throw malformedRecord(data, protocol);
    }
}

export function truncatedStream(): QodeAssistError {
    return new QodeAssistError({
        category: 'Network',
        message: 'The provider closed the stream before finishing the answer. Try again.'
    });
}

/** An error the provider reported inside the stream (HTTP 200 already sent). */
export function streamedProviderError(message: string | undefined, detail: unknown): QodeAssistError {
    return new QodeAssistError({
        category: 'Provider',
        message: `The provider reported an error mid-stream: ${(message ?? 'no message').replace(/[.\s]+$/, '')}. Try again.`,
        providerDetail: redactSecrets(typeof detail === 'string' ? detail : JSON.stringify(detail))
    });
}

/** Tool arguments as an object; anything else is the model's mistake, reported as a Provider error. */
export function parseToolArguments(name: string, text: string): Record<string, unknown> {
    const trimmed = text.trim();
    if (!trimmed) {
        return {};
    }
    try {
        const value: unknown = JSON.parse(trimmed);
        if (value && typeof value === 'object' && !Array.isArray(value)) {
            return value as Record<string, unknown>;
        }
    } catch {
        // Reported below.
    }
    throw new QodeAssistError({
        category: 'Provider',
        message: `The model produced arguments for tool "${name}" that are not a JSON object. Try again, or use a model with better tool support.`,
        providerDetail: trimmed.slice(0, MAX_QUOTED_LINE)
    });
}
