import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { QodeAssistError } from './error-info';
import { RequestId, ResponseEvent, StopReason } from './events';
import type { RequestBody } from './request-body';
import { parseRecord, parseToolArguments, StreamDecoder, truncatedStream } from './stream-decoder';

/**
 * One message of a host-model request, in the shape Theia AI's language models take
 * (`LanguageModelMessage`): the request body of `client_api = "theia"` agents is a list of these.
 */
export type HostMessage =
    | { actor: 'system' | 'user' | 'ai'; type: 'text'; text: string }
    | { actor: 'ai'; type: 'thinking'; thinking: string; signature: string }
    | { actor: 'ai'; type: 'tool_use'; id: string; name: string; input: unknown }
    | { actor: 'user'; type: 'tool_result'; tool_use_id: string; name: string; content: string; is_error?: boolean };

/** The body a `client_api = "theia"` agent renders: the model's id in the IDE, the messages and the tools. */
export interface HostModelRequest {
    model: string;
    messages: HostMessage[];
    tools?: Array<{ name: string; description: string; parameters: Record<string, unknown> }>;
    settings?: Record<string, unknown>;
}

/** What a host model streams, one round at a time: the host runs no tools, it hands the calls back and ends. */
export type HostModelPart =
    | { type: 'text'; text: string }
    | { type: 'thinking'; text: string; signature?: string }
    | { type: 'tool_call'; id: string; name: string; arguments: string }
    | { type: 'usage'; inputTokens: number; outputTokens: number; cachedTokens?: number }
    | { type: 'end'; reason: StopReason };

/**
 * Language models the IDE itself provides (Theia AI's `LanguageModelRegistry`): the port behind
 * `client_api = "theia"`. Outside an IDE (the bench CLI) there is none, and such agents say so.
 */
export interface HostModels {
    /** The models the IDE has now, for the model list of a `theia` provider. */
    list(): Promise<Array<{ id: string; name?: string; ready: boolean }>>;
    /** Streams one round; ends with an `end` part. Throws a QodeAssistError (Config, Provider…) when the model cannot answer. */
    stream(request: HostModelRequest, signal?: AbortSignal): AsyncIterable<HostModelPart[]>;
}

/** Yields each batch of parts as records for the host decoder, or fails with what to do when there is no host. */
export async function* readHostRecords(hostModels: HostModels | undefined, body: unknown, signal?: AbortSignal): AsyncGenerator<Array<{ data: string }>> {
    if (!hostModels) {
        throw new QodeAssistError({
            category: 'Config',
            message: 'This agent uses client_api = "theia": the IDE\'s own language models, which only exist inside a Theia IDE with Theia AI. Pick an agent with an HTTP provider here.'
        });
    }
    const request = body as HostModelRequest;
    if (typeof request?.model !== 'string' || !Array.isArray(request.messages)) {
        throw new QodeAssistError({
            category: 'Config',
            message: 'A client_api = "theia" agent must render a body with "model" and "messages" (extend the bundled theia-base agent).'
        });
    }
    for await (const parts of hostModels.stream(request, signal)) {
        yield parts.map(part => ({ data: JSON.stringify(part) }));
    }
}

/** Decodes host-model parts into the common events; the turn replays as host messages. */
export class HostModelDecoder implements StreamDecoder {
    private readonly blocks = new AssistantBlocksBuilder();
    private readonly native: HostMessage[] = [];
    private stopReason: StopReason | undefined;
    private calls = 0;

    constructor(private readonly requestId: RequestId) { }

    decode(data: string): ResponseEvent[] {
        const part = parseRecord(data, 'Theia language model') as HostModelPart;
        switch (part.type) {
            case 'text':
                this.blocks.text(part.text);
                this.appendText(part.text);
                return part.text ? [{ type: 'TextDelta', requestId: this.requestId, text: part.text }] : [];
            case 'thinking':
                this.blocks.thinking(part.text, part.signature);
                this.native.push({ actor: 'ai', type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
                return [{ type: 'ThinkingDelta', requestId: this.requestId, text: part.text, ...(part.signature ? { signature: part.signature } : {}) }];
            case 'tool_call': {
                const args = parseToolArguments(part.name, part.arguments);
                this.calls++;
                this.blocks.toolCall({ callId: part.id, name: part.name, arguments: args });
                this.native.push({ actor: 'ai', type: 'tool_use', id: part.id, name: part.name, input: args });
                return [
                    { type: 'ToolCallStart', requestId: this.requestId, callId: part.id, name: part.name },
                    { type: 'ToolCallEnd', requestId: this.requestId, callId: part.id, name: part.name, arguments: args }
                ];
            }
            case 'usage':
                return [{
                    type: 'Usage', requestId: this.requestId, inputTokens: part.inputTokens, outputTokens: part.outputTokens,
                    ...(part.cachedTokens ? { cachedTokens: part.cachedTokens } : {})
                }];
            case 'end':
                this.stopReason = part.reason === 'end_turn' && this.calls > 0 ? 'tool_use' : part.reason;
                return [];
            default:
                return [];
        }
    }

    finish(): ResponseEvent[] {
        if (!this.stopReason) {
            throw truncatedStream();
        }
        return [{ type: 'MessageStop', requestId: this.requestId, stopReason: this.stopReason }];
    }

    turn(): AssistantTurn {
        return { blocks: this.blocks.blocks, stopReason: this.stopReason ?? 'other', native: this.native };
    }

    private appendText(text: string): void {
        const last = this.native[this.native.length - 1];
        if (last?.type === 'text') {
            last.text += text;
        } else if (text) {
            this.native.push({ actor: 'ai', type: 'text', text });
        }
    }
}

/** The host-model continuation: the assistant's messages as they came, then one tool_result message per call. */
export function hostContinuation(payload: RequestBody, turn: AssistantTurn, results: ReadonlyArray<{ callId: string; name: string; content: string; isError: boolean }>): RequestBody | undefined {
    const messages = payload.messages;
    if (!Array.isArray(messages) || !Array.isArray(turn.native) || results.length === 0) {
        return undefined;
    }
    return {
        ...payload,
        messages: [
            ...messages, ...turn.native as HostMessage[],
            ...results.map(result => ({ actor: 'user', type: 'tool_result', tool_use_id: result.callId, name: result.name, content: result.content, ...(result.isError ? { is_error: true } : {}) }))
        ]
    };
}
