import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, parseToolArguments, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

interface ToolCallFragment {
    index?: number;
    id?: string;
    function?: { name?: string; arguments?: string | Record<string, unknown> };
}

/** Mistral's reasoning models stream content as a list of typed chunks instead of a string. */
type ContentChunk = { type?: string; text?: string; thinking?: Array<{ type?: string; text?: string }> };

interface ChatChunk {
    choices?: Array<{
        delta?: {
            content?: string | ContentChunk[] | null;
            reasoning_content?: string | null;
            reasoning?: string | null;
            /** OpenAI's refusal, streamed instead of content. */
            refusal?: string | null;
            tool_calls?: ToolCallFragment[];
        };
        finish_reason?: string | null;
    }>;
    usage?: {
        prompt_tokens?: number;
        completion_tokens?: number;
        prompt_tokens_details?: { cached_tokens?: number };
        completion_tokens_details?: { reasoning_tokens?: number };
    } | null;
    error?: { message?: string; type?: string; code?: unknown };
}

interface PendingToolCall {
    callId: string;
    name: string;
    argumentText: string;
}

/** The assistant message in OpenAI Chat shape, as a continuation replays it. */
export interface OpenAIChatAssistantMessage {
    role: 'assistant';
    content: string | null;
    refusal?: string;
    tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

const PROTOCOL = 'OpenAI Chat Completions';

const STOP_REASONS: Record<string, StopReason> = {
    stop: 'end_turn',
    length: 'max_tokens',
    tool_calls: 'tool_use',
    function_call: 'tool_use',
    content_filter: 'content_filter'
};

/**
 * Decodes `data:` payloads of an OpenAI Chat Completions stream — also spoken by
 * Ollama's /v1, llama.cpp, LM Studio, OpenRouter, DeepSeek, Qwen and Mistral (chat and FIM).
 */
export class OpenAIChatDecoder implements StreamDecoder {
    private readonly toolCalls = new Map<number, PendingToolCall>();
    private readonly blocks = new AssistantBlocksBuilder();
    private text = '';
    private refusal = '';
    private finishReason: string | undefined;
    private done = false;
    private stopReason: StopReason | undefined;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        if (data.trim() === '[DONE]') {
            this.done = true;
            return [];
        }
        const chunk = parseRecord(data, PROTOCOL) as ChatChunk;
        if (chunk.error) {
            throw streamedProviderError(chunk.error.message, chunk.error);
        }
        const events: ResponseEvent[] = [];
        for (const choice of chunk.choices ?? []) {
            const delta = choice.delta ?? {};
            const thinking = delta.reasoning_content ?? delta.reasoning;
            if (thinking) {
                events.push(this.thinkingDelta(thinking));
            }
            if (typeof delta.content === 'string' && delta.content) {
                events.push(this.textDelta(delta.content));
            } else if (Array.isArray(delta.content)) {
                events.push(...this.contentChunks(delta.content));
            }
            if (delta.refusal) {
                events.push(this.refusalDelta(delta.refusal));
            }
            for (const fragment of delta.tool_calls ?? []) {
                events.push(...this.addToolCallFragment(fragment));
            }
            if (choice.finish_reason) {
                this.finishReason = choice.finish_reason;
            }
        }
        if (chunk.usage) {
            events.push({
                type: 'Usage',
                requestId: this.requestId,
                inputTokens: chunk.usage.prompt_tokens ?? 0,
                outputTokens: chunk.usage.completion_tokens ?? 0,
                cachedTokens: chunk.usage.prompt_tokens_details?.cached_tokens,
                reasoningTokens: chunk.usage.completion_tokens_details?.reasoning_tokens
            });
        }
        return events;
    }

    finish(): ResponseEvent[] {
        if (!this.done && this.finishReason === undefined) {
            throw truncatedStream();
        }
        const events: ResponseEvent[] = [];
        for (const [, call] of this.orderedToolCalls()) {
            const args = parseToolArguments(call.name, call.argumentText);
            this.blocks.toolCall({ callId: call.callId, name: call.name, arguments: args });
            events.push({ type: 'ToolCallEnd', requestId: this.requestId, callId: call.callId, name: call.name, arguments: args });
        }
        // A refusal ends with finish_reason "stop"; it is reported like Anthropic's `refusal` stop.
        // Only refusal text counts: some servers send `"refusal": ""` in every answer.
        const refused = this.refusal !== '' && (this.finishReason ?? 'stop') === 'stop';
        const providerReason = refused ? 'refusal' : this.finishReason ?? 'stop';
        this.stopReason = refused ? 'content_filter' : STOP_REASONS[providerReason] ?? 'other';
        events.push({
            type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason,
            ...(this.stopReason === 'other' || refused ? { providerReason } : {})
        });
        return events;
    }

    turn(): AssistantTurn {
        const calls = this.orderedToolCalls();
        const native: OpenAIChatAssistantMessage = { role: 'assistant', content: this.text || null };
        if (this.refusal) {
            native.refusal = this.refusal;
        }
        if (calls.length > 0) {
            native.tool_calls = calls.map(([, call]) => ({
                id: call.callId, type: 'function', function: { name: call.name, arguments: call.argumentText.trim() || '{}' }
            }));
        }
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native };
    }

    private orderedToolCalls(): Array<[number, PendingToolCall]> {
        return [...this.toolCalls].sort(([a], [b]) => a - b);
    }

    private textDelta(text: string): ResponseEvent {
        this.text += text;
        this.blocks.text(text);
        return { type: 'TextDelta', requestId: this.requestId, text };
    }

    /** Refusal text is shown as the answer (an empty reply would hide it), and replayed as `refusal`. */
    private refusalDelta(text: string): ResponseEvent {
        this.refusal += text;
        this.blocks.text(text);
        return { type: 'TextDelta', requestId: this.requestId, text };
    }

    private thinkingDelta(text: string): ResponseEvent {
        this.blocks.thinking(text);
        return { type: 'ThinkingDelta', requestId: this.requestId, text };
    }

    private contentChunks(chunks: ContentChunk[]): ResponseEvent[] {
        const events: ResponseEvent[] = [];
        for (const chunk of chunks) {
            if (chunk.type === 'text' && chunk.text) {
                events.push(this.textDelta(chunk.text));
            } else if (chunk.type === 'thinking') {
                const text = (chunk.thinking ?? []).map(part => part.text ?? '').join('');
                if (text) {
                    events.push(this.thinkingDelta(text));
                }
            }
        }
        return events;
    }

    private addToolCallFragment(fragment: ToolCallFragment): ResponseEvent[] {
        let index = fragment.index ?? this.toolCalls.size;
        // Some servers restart at index 0 for every call; a new id means a new call.
        const atIndex = this.toolCalls.get(index);
        if (atIndex && fragment.id && fragment.id !== atIndex.callId) {
            index = Math.max(...this.toolCalls.keys()) + 1;
        }
        const argumentsText = typeof fragment.function?.arguments === 'object'
            ? JSON.stringify(fragment.function.arguments) : fragment.function?.arguments ?? '';
        const existing = this.toolCalls.get(index);
        if (existing) {
            existing.argumentText += argumentsText;
            return [];
        }
        const call: PendingToolCall = {
            callId: fragment.id ?? `call_${index}`,
            name: fragment.function?.name ?? '',
            argumentText: argumentsText
        };
        this.toolCalls.set(index, call);
        return [{ type: 'ToolCallStart', requestId: this.requestId, callId: call.callId, name: call.name }];
    }
}
