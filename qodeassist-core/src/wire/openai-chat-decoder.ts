import { QodeAssistError } from './error-info';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, StreamDecoder, truncatedStream } from './stream-decoder';

interface ToolCallFragment {
    index?: number;
    id?: string;
    function?: { name?: string; arguments?: string };
}

interface ChatChunk {
    choices?: Array<{
        delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: ToolCallFragment[] };
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

const PROTOCOL = 'OpenAI Chat Completions';

const STOP_REASONS: Record<string, StopReason> = {
    stop: 'end_turn',
    length: 'max_tokens',
    tool_calls: 'tool_use',
    function_call: 'tool_use',
    content_filter: 'content_filter'
};

/** Decodes `data:` payloads of an OpenAI Chat Completions stream (also llama.cpp, LM Studio, DeepSeek, Qwen, Mistral…). */
export class OpenAIChatDecoder implements StreamDecoder {
    private readonly toolCalls = new Map<number, PendingToolCall>();
    private finishReason: string | undefined;
    private done = false;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        if (data.trim() === '[DONE]') {
            this.done = true;
            return [];
        }
        const chunk = parseRecord(data, PROTOCOL) as ChatChunk;
        if (chunk.error) {
            throw new QodeAssistError({
                category: 'Provider',
                message: `The provider reported an error mid-stream: ${chunk.error.message ?? 'no message'}. Try again.`,
                providerDetail: JSON.stringify(chunk.error)
            });
        }
        const events: ResponseEvent[] = [];
        for (const choice of chunk.choices ?? []) {
            const delta = choice.delta ?? {};
            const thinking = delta.reasoning_content ?? delta.reasoning;
            if (thinking) {
                events.push({ type: 'ThinkingDelta', requestId: this.requestId, text: thinking });
            }
            if (delta.content) {
                events.push({ type: 'TextDelta', requestId: this.requestId, text: delta.content });
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
        for (const [, call] of [...this.toolCalls].sort(([a], [b]) => a - b)) {
            events.push({
                type: 'ToolCallEnd', requestId: this.requestId, callId: call.callId, name: call.name,
                arguments: parseToolArguments(call)
            });
        }
        const providerReason = this.finishReason ?? 'stop';
        const stopReason = STOP_REASONS[providerReason] ?? 'other';
        events.push({
            type: 'MessageStop', requestId: this.requestId, stopReason,
            ...(stopReason === 'other' ? { providerReason } : {})
        });
        return events;
    }

    private addToolCallFragment(fragment: ToolCallFragment): ResponseEvent[] {
        const index = fragment.index ?? this.toolCalls.size;
        const existing = this.toolCalls.get(index);
        if (existing) {
            existing.argumentText += fragment.function?.arguments ?? '';
            return [];
        }
        const call: PendingToolCall = {
            callId: fragment.id ?? `call_${index}`,
            name: fragment.function?.name ?? '',
            argumentText: fragment.function?.arguments ?? ''
        };
        this.toolCalls.set(index, call);
        return [{ type: 'ToolCallStart', requestId: this.requestId, callId: call.callId, name: call.name }];
    }
}

function parseToolArguments(call: PendingToolCall): Record<string, unknown> {
    const text = call.argumentText.trim();
    if (!text) {
        return {};
    }
    try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === 'object' && !Array.isArray(value)) {
            return value as Record<string, unknown>;
        }
    } catch {
        // Reported below.
    }
    throw new QodeAssistError({
        category: 'Provider',
        message: `The model produced arguments for tool "${call.name}" that are not a JSON object. Try again, or use a model with better tool support.`,
        providerDetail: text.slice(0, 200)
    });
}
