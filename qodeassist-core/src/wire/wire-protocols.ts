import { AnthropicDecoder } from './anthropic-decoder';
import { AssistantTurn, ToolResultInput } from './assistant-turn';
import { GeminiDecoder } from './gemini-decoder';
import { HostModelDecoder, hostContinuation } from './host-models';
import { LlamaCppInfillDecoder } from './llamacpp-infill-decoder';
import { OllamaDecoder } from './ollama-decoder';
import { OpenAIChatDecoder } from './openai-chat-decoder';
import { OpenAIResponsesDecoder } from './openai-responses-decoder';
import { RequestBody } from './request-body';
import { StreamDecoderFactory } from './stream-decoder';

export type WireProtocolName =
    | 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'
    | 'ollama-chat' | 'ollama-generate' | 'mistral-fim' | 'llamacpp-infill'
    | 'theia-language-model';

export type { RequestBody } from './request-body';

/** Protocols that hold a conversation (messages in, an assistant message out); the others only fill in code. */
export const CHAT_PROTOCOLS: ReadonlySet<WireProtocolName> = new Set<WireProtocolName>(['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'ollama-chat', 'theia-language-model']);

/**
 * One wire protocol: how its stream is framed and decoded, and how a tool round is
 * replayed — the original payload plus the assistant message plus the tool results,
 * all in the protocol's own shape. Protocols without tools have no continuation.
 */
export interface WireProtocol {
    readonly name: WireProtocolName;
    /** How records arrive: over HTTP as SSE or NDJSON, or from the IDE's own models (`host`). */
    readonly framing: 'sse' | 'ndjson' | 'host';
    readonly createDecoder: StreamDecoderFactory;
    buildContinuation?(payload: RequestBody, turn: AssistantTurn, results: readonly ToolResultInput[]): RequestBody | undefined;
}

function messagesOf(payload: RequestBody, key = 'messages'): unknown[] | undefined {
    const value = payload[key];
    return Array.isArray(value) ? value : undefined;
}

/**
 * The replay all protocols share: the payload's own list under `key`, then the assistant
 * turn, then the results — each protocol says only how the turn and the results look.
 * Without a list, a turn or results there is nothing to continue: undefined, never an empty body.
 */
function replay(
    payload: RequestBody, key: string, turn: AssistantTurn, results: readonly ToolResultInput[],
    shape: (native: unknown, results: readonly ToolResultInput[]) => unknown[], list = messagesOf(payload, key)
): RequestBody | undefined {
    if (!list || !turn.native || results.length === 0) {
        return undefined;
    }
    return { ...payload, [key]: [...list, ...shape(turn.native, results)] };
}

/** OpenAI Chat: the assistant message with `tool_calls`, then one `role: tool` message per call. */
const openAIChat: WireProtocol = {
    name: 'openai-chat',
    framing: 'sse',
    createDecoder: requestId => new OpenAIChatDecoder(requestId),
    buildContinuation: (payload, turn, results) => replay(payload, 'messages', turn, results, (native, done) =>
        [native, ...done.map(result => ({ role: 'tool', tool_call_id: result.callId, content: result.content }))])
};

/** Claude: the assistant content blocks, then ONE user message holding every `tool_result` block. */
const anthropicMessages: WireProtocol = {
    name: 'anthropic-messages',
    framing: 'sse',
    createDecoder: requestId => new AnthropicDecoder(requestId),
    buildContinuation: (payload, turn, results) => replay(payload, 'messages', turn, results, (native, done) => [native, {
        role: 'user',
        content: done.map(result => ({
            type: 'tool_result', tool_use_id: result.callId, content: result.content, ...(result.isError ? { is_error: true } : {})
        }))
    }])
};

/** Responses: the output items verbatim (reasoning, messages, function calls), then a `function_call_output` per call. */
const openAIResponses: WireProtocol = {
    name: 'openai-responses',
    framing: 'sse',
    createDecoder: requestId => new OpenAIResponsesDecoder(requestId),
    buildContinuation: (payload, turn, results) => Array.isArray(turn.native) ? replay(payload, 'input', turn, results, (native, done) => [
        ...native as unknown[], ...done.map(result => ({ type: 'function_call_output', call_id: result.callId, output: result.content }))
    ], typeof payload.input === 'string' ? [{ role: 'user', content: payload.input }] : messagesOf(payload, 'input')) : undefined
};

/** Gemini: the model content with its parts (signatures kept), then a user content of `functionResponse` parts. */
const gemini: WireProtocol = {
    name: 'gemini',
    framing: 'sse',
    createDecoder: requestId => new GeminiDecoder(requestId),
    buildContinuation: (payload, turn, results) => replay(payload, 'contents', turn, results, (native, done) => {
        const names = new Map(turn.blocks.flatMap(block => block.type === 'tool_call' ? [[block.callId, block.name] as const] : []));
        const nativeIds = new Set((native as { parts: Array<{ functionCall?: { id?: string } }> }).parts.flatMap(part => part.functionCall?.id ? [part.functionCall.id] : []));
        return [native, {
            role: 'user',
            parts: done.map(result => ({
                functionResponse: {
                    ...(nativeIds.has(result.callId) ? { id: result.callId } : {}),
                    name: names.get(result.callId) ?? result.name,
                    response: result.isError ? { error: result.content } : { result: result.content }
                }
            }))
        }];
    })
};

/** Ollama: the assistant message with `tool_calls`, then a `role: tool` message per call naming the tool. */
const ollamaChat: WireProtocol = {
    name: 'ollama-chat',
    framing: 'ndjson',
    createDecoder: requestId => new OllamaDecoder(requestId, 'Ollama chat'),
    buildContinuation: (payload, turn, results) => replay(payload, 'messages', turn, results, (native, done) =>
        [native, ...done.map(result => ({ role: 'tool', content: result.content, tool_name: result.name }))])
};

const ollamaGenerate: WireProtocol = {
    name: 'ollama-generate',
    framing: 'ndjson',
    createDecoder: requestId => new OllamaDecoder(requestId, 'Ollama generate')
};

/** Mistral's /v1/fim/completions streams chat-completion chunks. */
const mistralFim: WireProtocol = {
    name: 'mistral-fim',
    framing: 'sse',
    createDecoder: requestId => new OpenAIChatDecoder(requestId)
};

const llamaCppInfill: WireProtocol = {
    name: 'llamacpp-infill',
    framing: 'sse',
    createDecoder: requestId => new LlamaCppInfillDecoder(requestId)
};

/** Theia AI's language models, reached through the IDE (client_api "theia"): Theia's message shape, no HTTP. */
const theiaLanguageModel: WireProtocol = {
    name: 'theia-language-model',
    framing: 'host',
    createDecoder: requestId => new HostModelDecoder(requestId),
    buildContinuation: hostContinuation
};

export const WIRE_PROTOCOLS: Readonly<Record<WireProtocolName, WireProtocol>> = {
    'openai-chat': openAIChat,
    'theia-language-model': theiaLanguageModel,
    'openai-responses': openAIResponses,
    'anthropic-messages': anthropicMessages,
    'gemini': gemini,
    'ollama-chat': ollamaChat,
    'ollama-generate': ollamaGenerate,
    'mistral-fim': mistralFim,
    'llamacpp-infill': llamaCppInfill
};
