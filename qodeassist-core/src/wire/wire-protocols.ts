import { AnthropicDecoder } from './anthropic-decoder';
import { AssistantTurn, ToolResultInput } from './assistant-turn';
import { GeminiDecoder } from './gemini-decoder';
import { LlamaCppInfillDecoder } from './llamacpp-infill-decoder';
import { OllamaDecoder } from './ollama-decoder';
import { OpenAIChatDecoder } from './openai-chat-decoder';
import { OpenAIResponsesDecoder } from './openai-responses-decoder';
import { StreamDecoderFactory } from './stream-decoder';

export type WireProtocolName =
    | 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'
    | 'ollama-chat' | 'ollama-generate' | 'mistral-fim' | 'llamacpp-infill';

export type RequestBody = Record<string, unknown>;

/**
 * One wire protocol: how its stream is framed and decoded, and how a tool round is
 * replayed — the original payload plus the assistant message plus the tool results,
 * all in the protocol's own shape. Protocols without tools have no continuation.
 */
export interface WireProtocol {
    readonly name: WireProtocolName;
    readonly framing: 'sse' | 'ndjson';
    readonly createDecoder: StreamDecoderFactory;
    buildContinuation?(payload: RequestBody, turn: AssistantTurn, results: readonly ToolResultInput[]): RequestBody | undefined;
}

function messagesOf(payload: RequestBody, key = 'messages'): unknown[] | undefined {
    const value = payload[key];
    return Array.isArray(value) ? value : undefined;
}

/** OpenAI Chat: the assistant message with `tool_calls`, then one `role: tool` message per call. */
const openAIChat: WireProtocol = {
    name: 'openai-chat',
    framing: 'sse',
    createDecoder: requestId => new OpenAIChatDecoder(requestId),
    buildContinuation: (payload, turn, results) => {
        const messages = messagesOf(payload);
        if (!messages || !turn.native || results.length === 0) {
            return undefined;
        }
        return {
            ...payload,
            messages: [...messages, turn.native,
                ...results.map(result => ({ role: 'tool', tool_call_id: result.callId, content: result.content }))]
        };
    }
};

/** Claude: the assistant content blocks, then ONE user message holding every `tool_result` block. */
const anthropicMessages: WireProtocol = {
    name: 'anthropic-messages',
    framing: 'sse',
    createDecoder: requestId => new AnthropicDecoder(requestId),
    buildContinuation: (payload, turn, results) => {
        const messages = messagesOf(payload);
        if (!messages || !turn.native || results.length === 0) {
            return undefined;
        }
        return {
            ...payload,
            messages: [...messages, turn.native, {
                role: 'user',
                content: results.map(result => ({
                    type: 'tool_result', tool_use_id: result.callId, content: result.content,
                    ...(result.isError ? { is_error: true } : {})
                }))
            }]
        };
    }
};

/** Responses: the output items verbatim (reasoning, messages, function calls), then a `function_call_output` per call. */
const openAIResponses: WireProtocol = {
    name: 'openai-responses',
    framing: 'sse',
    createDecoder: requestId => new OpenAIResponsesDecoder(requestId),
    buildContinuation: (payload, turn, results) => {
        const input = typeof payload.input === 'string'
            ? [{ role: 'user', content: payload.input }]
            : messagesOf(payload, 'input');
        if (!input || !Array.isArray(turn.native) || results.length === 0) {
            return undefined;
        }
        return {
            ...payload,
            input: [...input, ...turn.native,
                ...results.map(result => ({ type: 'function_call_output', call_id: result.callId, output: result.content }))]
        };
    }
};

/** Gemini: the model content with its parts (signatures kept), then a user content of `functionResponse` parts. */
const gemini: WireProtocol = {
    name: 'gemini',
    framing: 'sse',
    createDecoder: requestId => new GeminiDecoder(requestId),
    buildContinuation: (payload, turn, results) => {
        const contents = messagesOf(payload, 'contents');
        if (!contents || !turn.native || results.length === 0) {
            return undefined;
        }
        const ids = new Map(turn.blocks.flatMap(block => block.type === 'tool_call' ? [[block.callId, block.name] as const] : []));
        const nativeIds = new Set(((turn.native as { parts: Array<{ functionCall?: { id?: string } }> }).parts)
            .flatMap(part => part.functionCall?.id ? [part.functionCall.id] : []));
        return {
            ...payload,
            contents: [...contents, turn.native, {
                role: 'user',
                parts: results.map(result => ({
                    functionResponse: {
                        ...(nativeIds.has(result.callId) ? { id: result.callId } : {}),
                        name: ids.get(result.callId) ?? result.name,
                        response: result.isError ? { error: result.content } : { result: result.content }
                    }
                }))
            }]
        };
    }
};

/** Ollama: the assistant message with `tool_calls`, then a `role: tool` message per call naming the tool. */
const ollamaChat: WireProtocol = {
    name: 'ollama-chat',
    framing: 'ndjson',
    createDecoder: requestId => new OllamaDecoder(requestId, 'Ollama chat'),
    buildContinuation: (payload, turn, results) => {
        const messages = messagesOf(payload);
        if (!messages || !turn.native || results.length === 0) {
            return undefined;
        }
        return {
            ...payload,
            messages: [...messages, turn.native,
                ...results.map(result => ({ role: 'tool', content: result.content, tool_name: result.name }))]
        };
    }
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

export const WIRE_PROTOCOLS: Readonly<Record<WireProtocolName, WireProtocol>> = {
    'openai-chat': openAIChat,
    'openai-responses': openAIResponses,
    'anthropic-messages': anthropicMessages,
    'gemini': gemini,
    'ollama-chat': ollamaChat,
    'ollama-generate': ollamaGenerate,
    'mistral-fim': mistralFim,
    'llamacpp-infill': llamaCppInfill
};
