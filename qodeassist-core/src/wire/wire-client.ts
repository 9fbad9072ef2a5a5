import { AssistantTurn } from './assistant-turn';
import { CancelledError, toErrorInfo } from './error-info';
import { RequestId, ResponseEvent, ToolResult } from './events';
import { HostModels, readHostRecords } from './host-models';
import { HttpStreamRequest, streamHttpBody } from './http-transport';
import { readNdjsonLines } from './ndjson-reader';
import { answerLimitError, DEFAULT_LIMITS, LimitAdvice, raiseLimitAdvice, recordLimitError } from './request-limits';
import { readServerSentEvents } from './sse-reader';
import { WireProtocol } from './wire-protocols';

export interface WireRequest extends HttpStreamRequest {
    requestId: RequestId;
    /** The IDE's own language models, for protocols framed `host` (client_api "theia"). */
    hostModels?: HostModels;
    /** Longest one record (SSE event, NDJSON line, host part) may be (the max_record_bytes limit); by default the built-in one. */
    maxRecordBytes?: number;
}

/** The events of one network chunk (never empty when yielded), in order. */
export type EventBatch = ResponseEvent[];

/** Yields each network chunk's records as (data, event name) pairs, whatever the framing, within the record and answer limits. */
async function* readRecords(protocol: WireProtocol, request: WireRequest): AsyncGenerator<Array<{ data: string; event?: string }>> {
    const maxRecordBytes = request.maxRecordBytes ?? DEFAULT_LIMITS.maxRecordBytes;
    const advice = request.limitAdvice ?? raiseLimitAdvice;
    if (protocol.framing === 'host') {
        yield* boundedHostRecords(readHostRecords(request.hostModels, request.body, request.signal), maxRecordBytes, request.maxAnswerBytes ?? DEFAULT_LIMITS.maxAnswerBytes, advice);
    } else if (protocol.framing === 'ndjson') {
        for await (const lines of readNdjsonLines(streamHttpBody(request), maxRecordBytes, advice)) {
            yield lines.map(data => ({ data }));
        }
    } else {
        yield* readServerSentEvents(streamHttpBody(request), maxRecordBytes, advice);
    }
}

/** The IDE's models hand over whole parts, not bytes: the same limits, counted on the parts' JSON. */
async function* boundedHostRecords(
    records: AsyncGenerator<Array<{ data: string }>>, maxRecordBytes: number, maxAnswerBytes: number, advice: LimitAdvice
): AsyncGenerator<Array<{ data: string }>> {
    let received = 0;
    for await (const batch of records) {
        for (const [index, record] of batch.entries()) {
            received += record.data.length;
            const error = record.data.length > maxRecordBytes ? recordLimitError(maxRecordBytes, advice)
                : received > maxAnswerBytes ? answerLimitError(maxAnswerBytes, advice) : undefined;
            if (error) {
                yield batch.slice(0, index);
                throw error;
            }
        }
        yield batch;
    }
}

/**
 * One streaming request over one wire protocol. Yields normalized events in batches
 * (one per network chunk, so a fast stream costs one await per chunk, not per token)
 * and always ends with exactly one `MessageStop` or `Error` event; returns the
 * assistant turn after a `MessageStop`. When the caller's signal fires it throws
 * CancelledError and emits nothing more.
 */
export async function* streamWire(protocol: WireProtocol, request: WireRequest): AsyncGenerator<EventBatch, AssistantTurn | undefined> {
    const decoder = protocol.createDecoder(request.requestId);
    const calls = new OpenToolCalls();
    let batch: ResponseEvent[] = [];
    try {
        for await (const records of readRecords(protocol, request)) {
            for (const record of records) {
                batch.push(...decoder.decode(record.data, record.event));
            }
            if (batch.length > 0) {
                calls.see(batch);
                yield batch;
                batch = [];
            }
        }
        batch.push(...decoder.finish());
        yield batch;
        return decoder.turn();
    } catch (error) {
        if (error instanceof CancelledError || request.signal?.aborted) {
            throw new CancelledError();
        }
        // Events decoded before the failure in the same chunk still reach the caller, then each call left open as not run, then the error.
        calls.see(batch);
        batch.push(...calls.notRun(request.requestId), { type: 'Error', requestId: request.requestId, error: toErrorInfo(error) });
        yield batch;
        return undefined;
    }
}

/** What a call the answer broke off in gets as its result: it was never run. */
export const NOT_RUN_RESULT = 'Not run: the answer ended before the model finished writing this call (the error says why).';

/**
 * Tool calls that have started and not ended. When an answer fails, each is closed with a
 * ToolResult that says it was not run, so no call is left looking as if it were still running.
 */
export class OpenToolCalls {
    private readonly open = new Map<string, string>();

    see(events: readonly ResponseEvent[]): void {
        for (const event of events) {
            if (event.type === 'ToolCallStart') {
                this.open.set(event.callId, event.name);
            } else if (event.type === 'ToolCallEnd') {
                this.open.delete(event.callId);
            }
        }
    }

    /** A not-run result for each call still open; none are open afterwards. */
    notRun(requestId: RequestId): ToolResult[] {
        const results = [...this.open].map(([callId, name]): ToolResult => ({ type: 'ToolResult', requestId, callId, name, content: NOT_RUN_RESULT, isError: true }));
        this.open.clear();
        return results;
    }
}
