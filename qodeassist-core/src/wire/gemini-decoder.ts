import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

/** A part of a Gemini `Content`, kept in the API's shape (signatures stay on their part). */
export interface GeminiPart {
    text?: string;
    thought?: boolean;
    thoughtSignature?: string;
    functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
    [key: string]: unknown;
}

interface GeminiChunk {
    candidates?: Array<{ content?: { role?: string; parts?: GeminiPart[] }; finishReason?: string }>;
    usageMetadata?: {
        promptTokenCount?: number;
        candidatesTokenCount?: number;
        cachedContentTokenCount?: number;
        thoughtsTokenCount?: number;
    };
    promptFeedback?: { blockReason?: string };
    error?: { code?: number; message?: string; status?: string };
}

const PROTOCOL = 'Gemini streamGenerateContent';

const STOP_REASONS: Record<string, StopReason> = {
    STOP: 'end_turn',
    MAX_TOKENS: 'max_tokens',
    SAFETY: 'content_filter',
    RECITATION: 'content_filter',
    BLOCKLIST: 'content_filter',
    PROHIBITED_CONTENT: 'content_filter',
    SPII: 'content_filter',
    IMAGE_SAFETY: 'content_filter'
};

/** Decodes `data:` payloads of a Gemini `streamGenerateContent?alt=sse` stream. */
export class GeminiDecoder implements StreamDecoder {
    private readonly parts: GeminiPart[] = [];
    private readonly blocks = new AssistantBlocksBuilder();
    private usage: GeminiChunk['usageMetadata'];
    private finishReason: string | undefined;
    private blockReason: string | undefined;
    private calls = 0;
    private stopReason: StopReason | undefined;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        const chunk = parseRecord(data, PROTOCOL) as GeminiChunk;
        if (chunk.error) {
            throw streamedProviderError(chunk.error.message, chunk.error);
        }
        if (chunk.usageMetadata) {
            this.usage = chunk.usageMetadata;
        }
        if (chunk.promptFeedback?.blockReason) {
            this.blockReason = chunk.promptFeedback.blockReason;
        }
        const events: ResponseEvent[] = [];
        const candidate = chunk.candidates?.[0];
        for (const part of candidate?.content?.parts ?? []) {
            events.push(...this.addPart(part));
        }
        if (candidate?.finishReason) {
            this.finishReason = candidate.finishReason;
        }
        return events;
    }

    finish(): ResponseEvent[] {
        if (this.finishReason === undefined && this.blockReason === undefined) {
            throw truncatedStream();
        }
        const providerReason = this.blockReason ?? this.finishReason ?? 'STOP';
        const normalized = this.blockReason ? 'content_filter' : STOP_REASONS[providerReason] ?? 'other';
        this.stopReason = normalized === 'end_turn' && this.calls > 0 ? 'tool_use' : normalized;
        const usage = this.usage ?? {};
        return [
            {
                type: 'Usage', requestId: this.requestId,
                inputTokens: usage.promptTokenCount ?? 0,
                outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
                cachedTokens: usage.cachedContentTokenCount,
                reasoningTokens: usage.thoughtsTokenCount
            },
            {
                type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason,
                ...(normalized === 'other' || normalized === 'content_filter' ? { providerReason } : {})
            }
        ];
    }

    turn(): AssistantTurn {
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native: { role: 'model', parts: this.parts } };
    }

    private addPart(part: GeminiPart): ResponseEvent[] {
        if (part.functionCall) {
            const callId = part.functionCall.id ?? `${part.functionCall.name}_${this.calls}`;
            this.calls++;
            this.parts.push(part);
            const args = part.functionCall.args ?? {};
            this.blocks.toolCall({ callId, name: part.functionCall.name, arguments: args });
            return [
                { type: 'ToolCallStart', requestId: this.requestId, callId, name: part.functionCall.name },
                { type: 'ToolCallEnd', requestId: this.requestId, callId, name: part.functionCall.name, arguments: args }
            ];
        }
        if (typeof part.text !== 'string') {
            this.parts.push(part);
            return [];
        }
        this.mergeTextPart(part);
        if (part.thought) {
            this.blocks.thinking(part.text, part.thoughtSignature);
            return [{ type: 'ThinkingDelta', requestId: this.requestId, text: part.text, ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}) }];
        }
        this.blocks.text(part.text);
        const events: ResponseEvent[] = part.text ? [{ type: 'TextDelta', requestId: this.requestId, text: part.text }] : [];
        if (part.thoughtSignature) {
            events.push({ type: 'ThinkingDelta', requestId: this.requestId, text: '', signature: part.thoughtSignature });
        }
        return events;
    }

    /** Streamed text arrives in many parts; join neighbours of the same kind, but never across a signature. */
    private mergeTextPart(part: GeminiPart): void {
        const last = this.parts[this.parts.length - 1];
        const mergeable = last && typeof last.text === 'string' && !last.functionCall
            && !!last.thought === !!part.thought && !last.thoughtSignature && !part.thoughtSignature;
        if (mergeable) {
            last.text += part.text ?? '';
        } else {
            this.parts.push({ ...part });
        }
    }
}
