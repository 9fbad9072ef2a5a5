import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, parseToolArguments, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

/** An output item of the Responses API, kept verbatim for replay. */
export interface ResponsesOutputItem {
    type: string;
    id?: string;
    call_id?: string;
    name?: string;
    arguments?: string;
    encrypted_content?: string;
    summary?: Array<{ type: string; text: string }>;
    content?: Array<{ type: string; text?: string }>;
    [key: string]: unknown;
}

interface ResponsesEvent {
    type: string;
    delta?: string;
    item_id?: string;
    output_index?: number;
    item?: ResponsesOutputItem;
    arguments?: string;
    response?: {
        status?: string;
        usage?: {
            input_tokens?: number;
            output_tokens?: number;
            input_tokens_details?: { cached_tokens?: number };
            output_tokens_details?: { reasoning_tokens?: number };
        };
        incomplete_details?: { reason?: string } | null;
        error?: ProviderError | null;
    };
    /** `error` events carry code and message at the top level; some servers nest them under `error`. */
    code?: string | null;
    message?: string | null;
    error?: ProviderError | null;
    /** The whole refusal, on `response.refusal.done`. */
    refusal?: string;
    content_index?: number;
}

interface ProviderError {
    code?: string | null;
    message?: string | null;
}

const PROTOCOL = 'OpenAI Responses';

/** Decodes the typed server-sent events of an OpenAI Responses stream (also LM Studio's and Qwen's). */
export class OpenAIResponsesDecoder implements StreamDecoder {
    private readonly output: ResponsesOutputItem[] = [];
    private readonly blocks = new AssistantBlocksBuilder();
    private readonly started = new Set<string>();
    private completed: ResponsesEvent['response'] | undefined;
    /** Refusal text received so far, by content part: `refusal.done` adds only what the deltas missed. */
    private readonly refusals = new Map<string, string>();
    private stopReason: StopReason | undefined;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string, eventName?: string): ResponseEvent[] {
        const event = parseRecord(data, PROTOCOL) as ResponsesEvent;
        const type = event.type ?? eventName;
        switch (type) {
            case 'response.output_text.delta':
                if (!event.delta) {
                    return [];
                }
                this.blocks.text(event.delta);
                return [{ type: 'TextDelta', requestId: this.requestId, text: event.delta }];
            case 'response.reasoning_summary_text.delta':
            case 'response.reasoning_text.delta':
                if (!event.delta) {
                    return [];
                }
                this.blocks.thinking(event.delta);
                return [{ type: 'ThinkingDelta', requestId: this.requestId, text: event.delta }];
            case 'response.refusal.delta':
                return this.refusal(event, event.delta ?? '');
            case 'response.refusal.done': {
                const received = this.refusals.get(refusalKey(event)) ?? '';
                const whole = event.refusal ?? '';
                return this.refusal(event, whole.startsWith(received) ? whole.slice(received.length) : '');
            }
            case 'response.output_item.added':
                return this.itemAdded(event.item);
            case 'response.output_item.done':
                return this.itemDone(event.item);
            case 'response.completed':
            case 'response.incomplete':
                this.completed = event.response ?? {};
                return [];
            case 'response.failed':
                throw streamedProviderError(wordsOf(event.response?.error), event.response?.error ?? event);
            case 'error':
                throw streamedProviderError(wordsOf(event, event.error), event);
            default:
                // created, in_progress, content_part.*, *.done and argument deltas carry nothing new:
                // arguments are taken whole from output_item.done.
                return [];
        }
    }

    finish(): ResponseEvent[] {
        const response = this.completed;
        if (!response) {
            throw truncatedStream();
        }
        const incomplete = response.incomplete_details?.reason;
        const hasToolCalls = this.output.some(item => item.type === 'function_call');
        // A refusal completes normally; it is reported like Anthropic's `refusal` stop.
        const providerReason = incomplete ?? (this.refusals.size > 0 ? 'refusal' : undefined);
        this.stopReason = incomplete === 'max_output_tokens' ? 'max_tokens'
            : incomplete === 'content_filter' || providerReason === 'refusal' ? 'content_filter'
                : incomplete ? 'other'
                    : hasToolCalls ? 'tool_use' : 'end_turn';
        const usage = response.usage ?? {};
        return [
            {
                type: 'Usage', requestId: this.requestId,
                inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0,
                cachedTokens: usage.input_tokens_details?.cached_tokens,
                reasoningTokens: usage.output_tokens_details?.reasoning_tokens
            },
            {
                type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason,
                ...(providerReason && providerReason !== this.stopReason ? { providerReason } : {})
            }
        ];
    }

    turn(): AssistantTurn {
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native: this.output };
    }

    /** Refusal text is shown as the answer: dropping it would leave the user with an empty reply. */
    private refusal(event: ResponsesEvent, text: string): ResponseEvent[] {
        const key = refusalKey(event);
        this.refusals.set(key, (this.refusals.get(key) ?? '') + text);
        if (!text) {
            return [];
        }
        this.blocks.text(text);
        return [{ type: 'TextDelta', requestId: this.requestId, text }];
    }

    private itemAdded(item: ResponsesOutputItem | undefined): ResponseEvent[] {
        if (item?.type !== 'function_call') {
            return [];
        }
        const callId = item.call_id ?? item.id ?? `call_${this.output.length}`;
        this.started.add(callId);
        return [{ type: 'ToolCallStart', requestId: this.requestId, callId, name: item.name ?? '' }];
    }

    private itemDone(item: ResponsesOutputItem | undefined): ResponseEvent[] {
        if (!item) {
            return [];
        }
        this.output.push(item);
        if (item.type === 'reasoning' && item.encrypted_content) {
            this.blocks.thinking('', item.encrypted_content);
            return [{ type: 'ThinkingDelta', requestId: this.requestId, text: '', signature: item.encrypted_content }];
        }
        if (item.type !== 'function_call') {
            return [];
        }
        const callId = item.call_id ?? item.id ?? `call_${this.output.length}`;
        const name = item.name ?? '';
        const args = parseToolArguments(name, item.arguments ?? '');
        this.blocks.toolCall({ callId, name, arguments: args });
        const events: ResponseEvent[] = [];
        if (!this.started.has(callId)) {
            events.push({ type: 'ToolCallStart', requestId: this.requestId, callId, name });
        }
        events.push({ type: 'ToolCallEnd', requestId: this.requestId, callId, name, arguments: args });
        return events;
    }
}

function refusalKey(event: ResponsesEvent): string {
    return `${event.item_id ?? event.output_index ?? ''}:${event.content_index ?? 0}`;
}

/** The provider's own words for an error: the first message given, else the first code. */
function wordsOf(...errors: Array<ProviderError | null | undefined>): string | undefined {
    return errors.find(error => error?.message)?.message ?? errors.find(error => error?.code)?.code ?? undefined;
}
