import { ResponseEvent } from './events';
import { OpenAIChatDecoder } from './openai-chat-decoder';
import { streamSseRequest, WireRequest } from './wire-client';

/** Streams an OpenAI Chat Completions request (`stream: true`) as normalized events. */
export function streamOpenAIChat(request: WireRequest): AsyncGenerator<ResponseEvent> {
    return streamSseRequest(request, requestId => new OpenAIChatDecoder(requestId));
}
