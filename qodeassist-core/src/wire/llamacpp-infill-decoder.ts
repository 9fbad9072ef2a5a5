import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

interface InfillChunk {
    content?: string;
    stop?: boolean;
    stop_type?: string;
    tokens_evaluated?: number;
    tokens_predicted?: number;
    timings?: { prompt_n?: number; predicted_n?: number };
    error?: { code?: number; message?: string; type?: string } | string;
}

const STOP_REASONS: Record<string, StopReason> = { eos: 'end_turn', limit: 'max_tokens', word: 'stop_sequence' };

/** Decodes `data:` payloads of llama.cpp's native /infill (and /completion) stream. */
export class LlamaCppInfillDecoder implements StreamDecoder {
    private readonly blocks = new AssistantBlocksBuilder();
    private final: InfillChunk | undefined;
    private stopReason: StopReason | undefined;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        const chunk = parseRecord(data, 'llama.cpp infill') as InfillChunk;
        if (chunk.error) {
            throw streamedProviderError(typeof chunk.error === 'string' ? chunk.error : chunk.error.message, chunk.error);
        }
        const events: ResponseEvent[] = [];
        if (chunk.content) {
            this.blocks.text(chunk.content);
            events.push({ type: 'TextDelta', requestId: this.requestId, text: chunk.content });
        }
        if (chunk.stop) {
            this.final = chunk;
        }
        return events;
    }

    finish(): ResponseEvent[] {
        if (!this.final) {
            throw truncatedStream();
        }
        const providerReason = this.final.stop_type ?? 'eos';
        this.stopReason = STOP_REASONS[providerReason] ?? 'other';
        return [
            {
                type: 'Usage', requestId: this.requestId,
                inputTokens: this.final.timings?.prompt_n ?? this.final.tokens_evaluated ?? 0,
                outputTokens: this.final.timings?.predicted_n ?? this.final.tokens_predicted ?? 0
            },
            {
                type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason,
                ...(this.stopReason === 'other' ? { providerReason } : {})
            }
        ];
    }

    turn(): AssistantTurn {
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native: undefined };
    }
}
