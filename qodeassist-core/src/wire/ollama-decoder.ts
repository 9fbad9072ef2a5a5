import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, parseToolArguments, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

interface OllamaToolCall {
    id?: string;
    function: { index?: number; name: string; arguments?: Record<string, unknown> | string };
}

interface OllamaLine {
    message?: { role?: string; content?: string; thinking?: string; tool_calls?: OllamaToolCall[] };
    /** /api/generate streams text here instead of `message`. */
    response?: string;
    thinking?: string;
    done?: boolean;
    done_reason?: string;
    prompt_eval_count?: number;
    eval_count?: number;
    error?: string;
}

/** The assistant message in Ollama's /api/chat shape, as a continuation replays it. */
export interface OllamaAssistantMessage {
    role: 'assistant';
    content: string;
    thinking?: string;
    tool_calls?: Array<{ function: { name: string; arguments: Record<string, unknown> } }>;
}

const STOP_REASONS: Record<string, StopReason> = { stop: 'end_turn', length: 'max_tokens' };

/** Decodes NDJSON lines of Ollama's /api/chat and /api/generate (FIM via `suffix`). */
export class OllamaDecoder implements StreamDecoder {
    private readonly blocks = new AssistantBlocksBuilder();
    private readonly calls: Array<{ callId: string; name: string; arguments: Record<string, unknown> }> = [];
    private content = '';
    private thinking = '';
    private final: OllamaLine | undefined;
    private stopReason: StopReason | undefined;

    constructor(private readonly requestId: RequestId, private readonly protocol = 'Ollama') { }

    decode(data: string): ResponseEvent[] {
        const line = parseRecord(data, this.protocol) as OllamaLine;
        if (line.error) {
            throw streamedProviderError(line.error, line);
        }
        const events: ResponseEvent[] = [];
        const thinking = line.message?.thinking ?? line.thinking;
        if (thinking) {
            this.thinking += thinking;
            this.blocks.thinking(thinking);
            events.push({ type: 'ThinkingDelta', requestId: this.requestId, text: thinking });
        }
        const text = line.message?.content ?? line.response;
        if (text) {
            this.content += text;
            this.blocks.text(text);
            events.push({ type: 'TextDelta', requestId: this.requestId, text });
        }
        for (const call of line.message?.tool_calls ?? []) {
            events.push(...this.addToolCall(call));
        }
        if (line.done) {
            this.final = line;
        }
        return events;
    }

    finish(): ResponseEvent[] {
        if (!this.final) {
            throw truncatedStream();
        }
        const providerReason = this.final.done_reason ?? 'stop';
        const normalized = STOP_REASONS[providerReason] ?? 'other';
        this.stopReason = normalized === 'end_turn' && this.calls.length > 0 ? 'tool_use' : normalized;
        return [
            {
                type: 'Usage', requestId: this.requestId,
                inputTokens: this.final.prompt_eval_count ?? 0, outputTokens: this.final.eval_count ?? 0
            },
            {
                type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason,
                ...(normalized === 'other' ? { providerReason } : {})
            }
        ];
    }

    turn(): AssistantTurn {
        const native: OllamaAssistantMessage = { role: 'assistant', content: this.content };
        if (this.thinking) {
            native.thinking = this.thinking;
        }
        if (this.calls.length > 0) {
            native.tool_calls = this.calls.map(call => ({ function: { name: call.name, arguments: call.arguments } }));
        }
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native };
    }

    private addToolCall(call: OllamaToolCall): ResponseEvent[] {
        const name = call.function.name;
        const raw = call.function.arguments ?? {};
        const args = typeof raw === 'string' ? parseToolArguments(name, raw) : raw;
        const callId = call.id ?? `call_${this.calls.length}`;
        this.calls.push({ callId, name, arguments: args });
        this.blocks.toolCall({ callId, name, arguments: args });
        return [
            { type: 'ToolCallStart', requestId: this.requestId, callId, name },
            { type: 'ToolCallEnd', requestId: this.requestId, callId, name, arguments: args }
        ];
    }
}
