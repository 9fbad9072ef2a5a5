import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { QodeAssistError } from './error-info';
import { RequestId, ResponseEvent, StopReason, TextDelta } from './events';
import { parseRecord, parseToolArguments, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

/** A content block of a Claude message, in the API's own shape. */
export type AnthropicContentBlock =
    | { type: 'text'; text: string; citations?: unknown[] }
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    | AnthropicProviderToolUse
    | AnthropicProviderToolResult;

/** A tool the provider runs itself (web search, code execution, MCP connector); kept as sent so a continuation replays it. */
export interface AnthropicProviderToolUse {
    type: 'server_tool_use' | 'mcp_tool_use';
    id: string;
    name: string;
    input: Record<string, unknown>;
    [field: string]: unknown;
}

/** The provider's result of its own tool (`web_search_tool_result`, `code_execution_tool_result`, …), kept as sent. */
export interface AnthropicProviderToolResult {
    type: `${string}_tool_result`;
    tool_use_id: string;
    content?: unknown;
    [field: string]: unknown;
}

/** A content block as `content_block_start` or a pre-filled `message_start` delivers it. */
interface WireBlock {
    type: string;
    text?: string;
    thinking?: string;
    signature?: string;
    data?: string;
    id?: string;
    name?: string;
    input?: unknown;
    citations?: unknown[];
    content?: unknown;
    is_error?: boolean;
    [field: string]: unknown;
}

interface OpenBlock {
    start: WireBlock;
    text: string;
    signature?: string;
    /** The signature already went out in a ThinkingDelta. */
    signatureSent: boolean;
    json: string;
    citations: unknown[];
}

interface AnthropicEvent {
    type: string;
    index?: number;
    message?: { usage?: AnthropicUsage; content?: WireBlock[]; stop_reason?: string | null };
    content_block?: WireBlock;
    delta?: {
        type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string;
        citation?: unknown; stop_reason?: string | null;
    };
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
const PROVIDER_TOOL_USES = new Set(['server_tool_use', 'mcp_tool_use']);
const RESULT_SUFFIX = '_tool_result';
const MAX_SHOWN_INPUT = 200;

// `pause_turn` (a server-tool loop hit its limit) is left to 'other': nothing here resumes it.
const STOP_REASONS: Record<string, StopReason> = {
    end_turn: 'end_turn',
    max_tokens: 'max_tokens',
    model_context_window_exceeded: 'max_tokens',
    tool_use: 'tool_use',
    stop_sequence: 'stop_sequence',
    refusal: 'content_filter'
};

/**
 * Decodes the server-sent events of a Claude Messages stream. Tools the provider
 * runs itself are not client calls: each is reported as one marked line of answer
 * text, `[Provider tool <name>: <input JSON>]` and `[<tool> results: N items]`.
 */
export class AnthropicDecoder implements StreamDecoder {
    private readonly open = new Map<number, OpenBlock>();
    private readonly content: AnthropicContentBlock[] = [];
    private readonly blocks = new AssistantBlocksBuilder();
    private usage: AnthropicUsage = {};
    private providerStop: string | undefined;
    private stopped = false;
    private stopReason: StopReason | undefined;
    /** A client tool call whose block ended with arguments that do not parse: cut by the token limit, or the model's mistake. */
    private brokenCall: { name: string; error: unknown } | undefined;
    private lastChar = '';

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        const event = parseRecord(data, PROTOCOL) as AnthropicEvent;
        switch (event.type) {
            case 'message_start':
                return this.startMessage(event.message ?? {});
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
                this.settleBrokenCall();
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
        this.settleBrokenCall();
        if (!this.stopped || this.openToolCall()) {
            throw truncatedStream();
        }
        if (this.brokenCall) {
            throw this.brokenCall.error;
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
                ...(providerReason !== this.stopReason ? { providerReason } : {})
            }
        ];
    }

    turn(): AssistantTurn {
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native: { role: 'assistant', content: this.content } };
    }

    /** The message may arrive already filled (content, stop reason): its blocks are complete, so each is started and stopped at once. */
    private startMessage(message: NonNullable<AnthropicEvent['message']>): ResponseEvent[] {
        this.usage = { ...message.usage };
        if (message.stop_reason) {
            this.providerStop = message.stop_reason;
        }
        return (message.content ?? []).flatMap((block, index) => [...this.startBlock(index, block), ...this.stopBlock(index)]);
    }

    private startBlock(index: number, block: WireBlock): ResponseEvent[] {
        const open: OpenBlock = {
            start: block, text: block.text ?? block.thinking ?? '', signature: block.signature, signatureSent: false,
            json: '', citations: [...block.citations ?? []]
        };
        this.open.set(index, open);
        if (block.type === 'tool_use') {
            return [{ type: 'ToolCallStart', requestId: this.requestId, callId: block.id ?? `toolu_${index}`, name: block.name ?? '' }];
        } else if (block.type === 'text' && open.text) {
            return [this.textDelta(open.text)];
        } else if (block.type === 'thinking' && open.text) {
            return [{ type: 'ThinkingDelta', requestId: this.requestId, text: open.text }];
        }
        return [];
    }

    private applyDelta(index: number, delta: NonNullable<AnthropicEvent['delta']>): ResponseEvent[] {
        const block = this.open.get(index) ?? this.unannouncedBlock(index, delta.type);
        if (!block) {
            return [];
        }
        switch (delta.type) {
            case 'text_delta':
                block.text += delta.text ?? '';
                return delta.text ? [this.textDelta(delta.text)] : [];
            case 'citations_delta':
                block.citations.push(delta.citation);
                return [];
            case 'thinking_delta':
                block.text += delta.thinking ?? '';
                return delta.thinking ? [{ type: 'ThinkingDelta', requestId: this.requestId, text: delta.thinking }] : [];
            case 'signature_delta':
                block.signature = (block.signature ?? '') + (delta.signature ?? '');
                block.signatureSent = true;
                return [{ type: 'ThinkingDelta', requestId: this.requestId, text: '', signature: block.signature }];
            case 'input_json_delta':
                block.json += delta.partial_json ?? '';
                return [];
            default:
                return [];
        }
    }

    /** Text or thinking for a block that was never started (or already complete) still reaches the user. */
    private unannouncedBlock(index: number, deltaType: string | undefined): OpenBlock | undefined {
        const type = deltaType === 'text_delta' ? 'text' : deltaType === 'thinking_delta' ? 'thinking' : undefined;
        if (!type) {
            return undefined;
        }
        this.startBlock(index, { type });
        return this.open.get(index);
    }

    private stopBlock(index: number): ResponseEvent[] {
        const block = this.open.get(index);
        this.open.delete(index);
        if (!block) {
            return [];
        }
        const type = block.start.type;
        switch (type) {
            case 'text':
                this.content.push({ type: 'text', text: block.text, ...(block.citations.length > 0 ? { citations: block.citations } : {}) });
                this.blocks.text(block.text);
                return [];
            case 'thinking':
                this.content.push({ type: 'thinking', thinking: block.text, signature: block.signature ?? '' });
                this.blocks.thinking(block.text, block.signature);
                // A thinking block delivered whole carries its signature without a signature_delta.
                return block.signature && !block.signatureSent
                    ? [{ type: 'ThinkingDelta', requestId: this.requestId, text: '', signature: block.signature }] : [];
            case 'redacted_thinking':
                this.content.push({ type: 'redacted_thinking', data: block.start.data ?? '' });
                this.blocks.redactedThinking(block.start.data ?? '');
                return [];
            case 'tool_use': {
                const callId = block.start.id ?? `toolu_${index}`;
                const name = block.start.name ?? '';
                let input: Record<string, unknown>;
                try {
                    input = this.inputOf(block, name);
                } catch (error) {
                    // Whether the token limit cut it is known only from the message_delta that follows: decided there (or at the end).
                    this.brokenCall = { name, error };
                    return [];
                }
                this.content.push({ type: 'tool_use', id: callId, name, input });
                this.blocks.toolCall({ callId, name, arguments: input });
                return [{ type: 'ToolCallEnd', requestId: this.requestId, callId, name, arguments: input }];
            }
            default:
                if (PROVIDER_TOOL_USES.has(type)) {
                    const name = block.start.name ?? '';
                    const input = this.inputOf(block, name);
                    this.content.push({ ...block.start, input } as AnthropicProviderToolUse);
                    return this.reportLine(`[Provider tool ${name}: ${shortJson(input)}]`);
                }
                if (type.endsWith(RESULT_SUFFIX)) {
                    this.content.push(block.start as AnthropicProviderToolResult);
                    return this.reportLine(resultLine(type.slice(0, -RESULT_SUFFIX.length), block.start));
                }
                return [];
        }
    }

    /**
     * Once the stop reason is known: a tool call the token limit cut (its block still open, or
     * closed with arguments that do not parse) ends the answer with an error that says so and how
     * to raise the limit; arguments that do not parse under any other stop reason end it with the
     * malformed-arguments error. The call is never ended, so it is never run with half
     * its arguments; the wire client closes it as not run.
     */
    private settleBrokenCall(): void {
        const name = this.openToolCall()?.start.name ?? this.brokenCall?.name;
        if (name === undefined || !this.providerStop) {
            return;
        }
        if (STOP_REASONS[this.providerStop] !== 'max_tokens') {
            // Not cut: arguments that do not parse are the model's mistake.
            if (this.brokenCall) {
                throw this.brokenCall.error;
            }
            return;
        }
        const tokens = this.usage.output_tokens;
        const limit = this.providerStop === 'max_tokens'
            ? `reached its output token limit (max_tokens${tokens ? `: ${tokens} tokens` : ''})`
            : 'filled the model\'s context window';
        throw new QodeAssistError({
            category: 'Validation',
            message: `The answer ${limit} while the model was writing a call to the tool "${name}", so the call was cut short and not run; `
                + 'what arrived before it is kept. Raise max_tokens in the [body] of the agent\'s file (for a bundled agent, in a copy of it in ~/.qodeassist/agents/), '
                + 'or ask for a smaller step.',
            providerDetail: `stop_reason: ${this.providerStop}`
        });
    }

    private openToolCall(): OpenBlock | undefined {
        return [...this.open.values()].find(block => block.start.type === 'tool_use');
    }

    /** The deltas are the input when any came (the start then carries `{}`); otherwise the start carried all of it. */
    private inputOf(block: OpenBlock, name: string): Record<string, unknown> {
        return parseToolArguments(name, block.json.trim() ? block.json : JSON.stringify(block.start.input ?? {}));
    }

    /** A line of its own in the answer, in the history too, so a reloaded chat reads as it streamed. */
    private reportLine(line: string): ResponseEvent[] {
        const text = `${this.lastChar && this.lastChar !== '\n' ? '\n' : ''}${line}\n`;
        this.blocks.text(text);
        return [this.textDelta(text)];
    }

    private textDelta(text: string): TextDelta {
        this.lastChar = text.slice(-1);
        return { type: 'TextDelta', requestId: this.requestId, text };
    }
}

function shortJson(value: unknown): string {
    const json = JSON.stringify(value);
    return json.length > MAX_SHOWN_INPUT ? `${json.slice(0, MAX_SHOWN_INPUT)}…` : json;
}

function resultLine(tool: string, block: WireBlock): string {
    const content = block.content;
    const code = content && typeof content === 'object' ? (content as { error_code?: unknown }).error_code : undefined;
    if (typeof code === 'string') {
        return `[${tool} error: ${code}]`;
    }
    if (block.is_error) {
        return `[${tool} error]`;
    }
    return Array.isArray(content) ? `[${tool} results: ${content.length} ${content.length === 1 ? 'item' : 'items'}]` : `[${tool} result]`;
}
