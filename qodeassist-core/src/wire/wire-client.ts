import { CancelledError, toErrorInfo } from './error-info';
import { RequestId, ResponseEvent } from './events';
import { HttpStreamRequest, streamHttpBody } from './http-transport';
import { readServerSentEvents } from './sse-reader';
import { StreamDecoderFactory } from './stream-decoder';

export interface WireRequest extends HttpStreamRequest {
    requestId: RequestId;
}

/**
 * One streaming request over one wire protocol. Yields normalized events and always
 * ends with exactly one `MessageStop` or `Error` event — unless the caller's signal
 * fired, in which case it throws CancelledError and emits nothing more.
 */
export async function* streamSseRequest(request: WireRequest, decoderFor: StreamDecoderFactory): AsyncGenerator<ResponseEvent> {
    const decoder = decoderFor(request.requestId);
    try {
        for await (const message of readServerSentEvents(streamHttpBody(request))) {
            yield* decoder.decode(message.data, message.event);
        }
        yield* decoder.finish();
    } catch (error) {
        if (error instanceof CancelledError || request.signal?.aborted) {
            throw new CancelledError();
        }
        yield { type: 'Error', requestId: request.requestId, error: toErrorInfo(error) };
    }
}

