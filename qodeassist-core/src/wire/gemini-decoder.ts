import { AssistantBlocksBuilder, AssistantTurn } from './assistant-turn';
import { QodeAssistError } from './error-info';
import { RequestId, ResponseEvent, StopReason } from './events';
import { parseRecord, StreamDecoder, streamedProviderError, truncatedStream } from './stream-decoder';

/** A part of a Gemini `Content`, kept in the API's shape (signatures stay on their part). */
export interface GeminiPart {
    text?: string;
    thought?: boolean;
    thoughtSignature?: string;
    functionCall?: GeminiFunctionCall;
    [key: string]: unknown;
}

/**
 * A function call, whole or (Vertex `streamFunctionCallArguments`) one fragment of it: the first
 * fragment names the call, later ones add `partialArgs`, and `willContinue` is true until the last.
 */
interface GeminiFunctionCall {
    id?: string;
    name?: string;
    args?: Record<string, unknown>;
    partialArgs?: PartialArg[];
    willContinue?: boolean;
}

/** One argument value at a JSON path; a string arrives in pieces while `willContinue` is true. */
interface PartialArg {
    jsonPath?: string;
    stringValue?: string;
    numberValue?: number;
    boolValue?: boolean;
    nullValue?: unknown;
    willContinue?: boolean;
}

/** The call being assembled; `args` is shared with its native part, so replay sends the whole arguments. */
interface OpenCall {
    callId: string;
    id?: string;
    name: string;
    args: Record<string, unknown>;
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
    IMAGE_SAFETY: 'content_filter',
    IMAGE_PROHIBITED_CONTENT: 'content_filter',
    IMAGE_RECITATION: 'content_filter'
};

/** Decodes `data:` payloads of a Gemini `streamGenerateContent?alt=sse` stream. */
export class GeminiDecoder implements StreamDecoder {
    private readonly parts: GeminiPart[] = [];
    private readonly blocks = new AssistantBlocksBuilder();
    private usage: GeminiChunk['usageMetadata'];
    private finishReason: string | undefined;
    private blockReason: string | undefined;
    private calls = 0;
    private open: OpenCall | undefined;
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
        const closing = this.closeCall();
        const providerReason = this.blockReason ?? this.finishReason ?? 'STOP';
        const normalized = this.blockReason ? 'content_filter' : STOP_REASONS[providerReason] ?? 'other';
        this.stopReason = normalized === 'end_turn' && this.calls > 0 ? 'tool_use' : normalized;
        const usage = this.usage ?? {};
        return [
            ...closing,
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
            return this.addFunctionCall(part, part.functionCall);
        }
        // Parts come in order: anything else means the model has moved past the call.
        const events = this.closeCall();
        if (typeof part.text !== 'string') {
            this.parts.push(part);
            return events;
        }
        this.mergeTextPart(part);
        if (part.thought) {
            this.blocks.thinking(part.text, part.thoughtSignature);
            events.push({ type: 'ThinkingDelta', requestId: this.requestId, text: part.text, ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}) });
            return events;
        }
        this.blocks.text(part.text);
        if (part.text) {
            events.push({ type: 'TextDelta', requestId: this.requestId, text: part.text });
        }
        if (part.thoughtSignature) {
            events.push({ type: 'ThinkingDelta', requestId: this.requestId, text: '', signature: part.thoughtSignature });
        }
        return events;
    }

    /** A whole call is opened and closed at once; a streamed one stays open while `willContinue` is true. */
    private addFunctionCall(part: GeminiPart, fragment: GeminiFunctionCall): ResponseEvent[] {
        const events: ResponseEvent[] = [];
        if (this.open && !continues(this.open, fragment)) {
            events.push(...this.closeCall());
        }
        let call = this.open;
        if (!call) {
            if (!fragment.name && !fragment.id && !fragment.args && !fragment.partialArgs?.length) {
                // The empty `functionCall: {}` that ends a streamed call, with no call left open.
                return events;
            }
            call = this.openCall(part, fragment);
            events.push({ type: 'ToolCallStart', requestId: this.requestId, callId: call.callId, name: call.name });
        }
        for (const [key, value] of Object.entries(fragment.args ?? {})) {
            setOwn(call.args, key, value);
        }
        for (const arg of fragment.partialArgs ?? []) {
            applyPartialArg(call.args, arg, call.name);
        }
        if (fragment.willContinue !== true) {
            events.push(...this.closeCall());
        }
        return events;
    }

    private openCall(part: GeminiPart, fragment: GeminiFunctionCall): OpenCall {
        const name = fragment.name ?? '';
        const call: OpenCall = { callId: fragment.id ?? `${name}_${this.calls}`, id: fragment.id, name, args: {} };
        this.calls++;
        // The native part keeps the signature and the whole arguments, never the fragments.
        this.parts.push({ ...part, functionCall: { ...(fragment.id ? { id: fragment.id } : {}), name, args: call.args } });
        this.open = call;
        return call;
    }

    private closeCall(): ResponseEvent[] {
        const call = this.open;
        if (!call) {
            return [];
        }
        this.open = undefined;
        this.blocks.toolCall({ callId: call.callId, name: call.name, arguments: call.args });
        return [{ type: 'ToolCallEnd', requestId: this.requestId, callId: call.callId, name: call.name, arguments: call.args }];
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

/** A fragment continues the open call unless it names another call (some servers repeat the name on every fragment). */
function continues(call: OpenCall, fragment: GeminiFunctionCall): boolean {
    return (!fragment.id || fragment.id === call.id) && (!fragment.name || fragment.name === call.name);
}

function applyPartialArg(args: Record<string, unknown>, arg: PartialArg, tool: string): void {
    const keys = pathKeys(arg.jsonPath ?? '');
    if (!keys) {
        throw new QodeAssistError({
            category: 'Provider',
            message: `The model streamed an argument of tool "${tool}" at a JSON path that cannot be placed. Try again.`,
            providerDetail: (arg.jsonPath ?? '').slice(0, 200)
        });
    }
    const value = valueOf(arg);
    if (value === undefined) {
        return;
    }
    // An array grows one element at a time: an index past its end (`[4294967294]`) would make a huge sparse array.
    if (keys.some(key => typeof key === 'number' && key > 10_000)) {
        throw new QodeAssistError({
            category: 'Provider',
            message: `The model streamed an argument of tool "${tool}" at an array index past 10000. Try again.`,
            providerDetail: (arg.jsonPath ?? '').slice(0, 200)
        });
    }
    let holder: Record<string, unknown> = args;
    for (let i = 0; i < keys.length - 1; i++) {
        const next = getOwn(holder, keys[i]);
        if (typeof next === 'object' && next !== null) {
            holder = next as Record<string, unknown>;
        } else {
            const created = typeof keys[i + 1] === 'number' ? [] : {};
            setOwn(holder, keys[i], created);
            holder = created as Record<string, unknown>;
        }
    }
    const last = keys[keys.length - 1];
    const current = getOwn(holder, last);
    // Appending to the string a path holds also tolerates servers that leave out `willContinue`.
    setOwn(holder, last, typeof value === 'string' && typeof current === 'string' ? current + value : value);
}

function valueOf(arg: PartialArg): unknown {
    if (arg.stringValue !== undefined) {
        return arg.stringValue;
    }
    if (arg.numberValue !== undefined) {
        return arg.numberValue;
    }
    if (arg.boolValue !== undefined) {
        return arg.boolValue;
    }
    return 'nullValue' in arg ? null : undefined;
}

const PATH_SEGMENT = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;

/**
 * The keys of an RFC 9535 path as Vertex writes it (`$.recipe.steps[0]`, `$['a b']`), or undefined
 * for anything else. Hand-written: JSONPath libraries query documents but do not build them.
 */
function pathKeys(path: string): Array<string | number> | undefined {
    if (!path.startsWith('$') || path.length === 1) {
        return undefined;
    }
    const keys: Array<string | number> = [];
    PATH_SEGMENT.lastIndex = 1;
    while (PATH_SEGMENT.lastIndex < path.length) {
        const match = PATH_SEGMENT.exec(path);
        if (!match) {
            return undefined;
        }
        const quoted = match[3] ?? match[4];
        keys.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : quoted.replace(/\\(.)/g, '$1')));
    }
    return keys;
}

/** Own properties only, so a path such as `$.__proto__.x` can never reach a prototype. */
function getOwn(holder: Record<string, unknown>, key: string | number): unknown {
    return Object.prototype.hasOwnProperty.call(holder, key) ? holder[key] : undefined;
}

function setOwn(holder: Record<string, unknown>, key: string | number, value: unknown): void {
    Object.defineProperty(holder, key, { value, enumerable: true, writable: true, configurable: true });
}
