import { AssistantTurn } from './assistant-turn';
import { CancelledError, toErrorInfo } from './error-info';
import { RequestId, ResponseEvent } from './events';
import { HttpStreamRequest, streamHttpBody } from './http-transport';
import { readNdjsonLines } from './ndjson-reader';
import { readServerSentEvents } from './sse-reader';
import { WireProtocol } from './wire-protocols';

export interface WireRequest extends HttpStreamRequest {
    requestId: RequestId;
}

/** Yields the stream's records as (data, event name) pairs, whatever the framing. */
async function* readRecords(protocol: WireProtocol, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<{ data: string; event?: string }> {
    if (protocol.framing === 'ndjson') {
        for await (const line of readNdjsonLines(chunks)) {
            yield { data: line };
        }
    } else {
        for await (const message of readServerSentEvents(chunks)) {
            yield { data: message.data, event: message.event };
        }
    }
}

/**
 * One streaming request over one wire protocol. Yields normalized events and always
 * ends with exactly one `MessageStop` or `Error` event; returns the assistant turn
 * after a `MessageStop`. When the caller's signal fires it throws CancelledError and
 * emits nothing more.
 */
export async function* streamWire(protocol: WireProtocol, request: WireRequest): AsyncGenerator<ResponseEvent, AssistantTurn | undefined> {
    const decoder = protocol.createDecoder(request.requestId);
    try {
        for await (const record of readRecords(protocol, streamHttpBody(request))) {
            yield* decoder.decode(record.data, record.event);
        }
        yield* decoder.finish();
        return decoder.turn();
    } catch (error) {
        if (error instanceof CancelledError || request.signal?.aborted) {
            throw new CancelledError();
        }
        yield { type: 'Error', requestId: request.requestId, error: toErrorInfo(error) };
        return undefined;
    }
}
