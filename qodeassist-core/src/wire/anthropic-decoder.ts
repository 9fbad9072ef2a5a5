import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, parseToolArguments, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

/** A content block of a Claude message, in the API's own shape. */
export type AnthropicContentBlock =
    | { type: 'text'; text: string }
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

interface OpenBlock {
    type: string;
    text: string;
    signature?: string;
    data?: string;
    id?: string;
    name?: string;
    json: string;
}

interface AnthropicEvent {
    type: string;
    index?: number;
    message?: { usage?: AnthropicUsage };
    content_block?: { type: string; text?: string; thinking?: string; signature?: string; data?: string; id?: string; name?: string };
    delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null };
    usage?: AnthropicUsage;
    error?: { type?: string; message?: string };
}

interface AnthropicUsage {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
}

const PROTOCOL = 'Anthropic Messages';

const STOP_REASONS: Record<string, StopReason> = {
    end_turn: 'end_turn',
    max_tokens: 'max_tokens',
    tool_use: 'tool_use',
    stop_sequence: 'stop_sequence',
    refusal: 'content_filter'
};

/** Decodes the server-sent events of a Claude Messages stream. */
export class AnthropicDecoder implements StreamDecoder {
    private readonly open = new Map<number, OpenBlock>();
    private readonly content: AnthropicContentBlock[] = [];
    private readonly blocks = new AssistantBlocksBuilder();
    private usage: AnthropicUsage = {};
    private providerStop: string | undefined;
    private stopped = false;
    private stopReason: StopReason | undefined;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        const event = parseRecord(data, PROTOCOL) as AnthropicEvent;
        switch (event.type) {
            case 'message_start':
                this.usage = { ...event.message?.usage };
                return [];
            case 'content_block_start':
                return this.startBlock(event.index ?? 0, event.content_block ?? { type: 'text' });
            case 'content_block_delta':
                return this.applyDelta(event.index ?? 0, event.delta ?? {});
            case 'content_block_stop':
                return this.stopBlock(event.index ?? 0);
            case 'message_delta':
                if (event.delta?.stop_reason) {
                    this.providerStop = event.delta.stop_reason;
                }
                this.usage = { ...this.usage, ...event.usage };
                return [];
            case 'message_stop':
                this.stopped = true;
                return [];
            case 'error':
                throw streamedProviderError(event.error?.message, event.error);
            default:
                // ping and event types added later carry nothing we use.
                return [];
        }
    }

    finish(): ResponseEvent[] {
        if (!this.stopped) {
            throw truncatedStream();
        }
        const providerReason = this.providerStop ?? 'end_turn';
        this.stopReason = STOP_REASONS[providerReason] ?? 'other';
        const cached = this.usage.cache_read_input_tokens;
        return [
            {
                type: 'Usage', requestId: this.requestId,
                inputTokens: (this.usage.input_tokens ?? 0) + (cached ?? 0) + (this.usage.cache_creation_input_tokens ?? 0),
                outputTokens: this.usage.output_tokens ?? 0,
                cachedTokens: cached
            },
            {
                type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason,
                ...(this.stopReason === 'other' || providerReason === 'refusal' ? { providerReason } : {})
            }
        ];
    }

    turn(): AssistantTurn {
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native: { role: 'assistant', content: this.content } };
    }

    private startBlock(index: number, block: NonNullable<AnthropicEvent['content_block']>): ResponseEvent[] {
        const open: OpenBlock = {
            type: block.type, text: block.text ?? block.thinking ?? '', signature: block.signature,
            data: block.data, id: block.id, name: block.name, json: ''
        };
        this.open.set(index, open);
        const events: ResponseEvent[] = [];
        if (block.type === 'tool_use') {
            events.push({ type: 'ToolCallStart', requestId: this.requestId, callId: block.id ?? `toolu_${index}`, name: block.name ?? '' });
        } else if (block.type === 'text' && open.text) {
            events.push({ type: 'TextDelta', requestId: this.requestId, text: open.text });
        } else if (block.type === 'thinking' && open.text) {
            events.push({ type: 'ThinkingDelta', requestId: this.requestId, text: open.text });
        }
        return events;
    }

    private applyDelta(index: number, delta: NonNullable<AnthropicEvent['delta']>): ResponseEvent[] {
        const block = this.open.get(index);
        if (!block) {
            return [];
        }
        switch (delta.type) {
            case 'text_delta':
                block.text += delta.text ?? '';
                return delta.text ? [{ type: 'TextDelta', requestId: this.requestId, text: delta.text }] : [];
            case 'thinking_delta':
                block.text += delta.thinking ?? '';
                return delta.thinking ? [{ type: 'ThinkingDelta', requestId: this.requestId, text: delta.thinking }] : [];
            case 'signature_delta':
                block.signature = (block.signature ?? '') + (delta.signature ?? '');
                return [{ type: 'ThinkingDelta', requestId: this.requestId, text: '', signature: block.signature }];
            case 'input_json_delta':
                block.json += delta.partial_json ?? '';
                return [];
            default:
                return [];
        }
    }

    private stopBlock(index: number): ResponseEvent[] {
        const block = this.open.get(index);
        this.open.delete(index);
        if (!block) {
            return [];
        }
        switch (block.type) {
            case 'text':
                this.content.push({ type: 'text', text: block.text });
                this.blocks.text(block.text);
                return [];
            case 'thinking':
                this.content.push({ type: 'thinking', thinking: block.text, signature: block.signature ?? '' });
                this.blocks.thinking(block.text, block.signature);
                return [];
            case 'redacted_thinking':
                this.content.push({ type: 'redacted_thinking', data: block.data ?? '' });
                this.blocks.redactedThinking(block.data ?? '');
                return [];
            case 'tool_use': {
                const callId = block.id ?? `toolu_${index}`;
                const name = block.name ?? '';
                const input = parseToolArguments(name, block.json);
                this.content.push({ type: 'tool_use', id: callId, name, input });
                this.blocks.toolCall({ callId, name, arguments: input });
                return [{ type: 'ToolCallEnd', requestId: this.requestId, callId, name, arguments: input }];
            }
            default:
                return [];
        }
    }
}
