import { AssistantTurn, ToolCall, ToolResultInput, toolCallsOf } from './assistant-turn';
import { CancelledError, ErrorInfo } from './error-info';
import { FileEditRecord, RequestId, ResponseEvent } from './events';
import { EventBatch, streamWire, WireRequest } from './wire-client';
import { RequestBody, WireProtocol } from './wire-protocols';
import { DEFAULT_LIMITS, raiseLimitAdvice } from './request-limits';
import { keptToolImages, ToolResultImage } from './tool-result-images';

/** Runs one tool call for the loop. The IDE side (permissions, confinement) lives behind this port. */
export interface ToolExecutor {
    execute(call: ToolCall, context: { requestId: RequestId; signal?: AbortSignal }): Promise<ToolExecution>;
}

/** What a tool call produced: the text the model reads, the images it returned, and for a write the record the chat shows. */
export interface ToolExecution {
    content: string;
    isError?: boolean;
    fileEdit?: FileEditRecord;
    images?: ToolResultImage[];
}

export interface ToolLoopOptions {
    /** Tool rounds allowed per request before it is stopped with an error; default 30. */
    maxRounds?: number;
}

export const DEFAULT_MAX_TOOL_ROUNDS = DEFAULT_LIMITS.maxToolRounds;

interface LoopState {
    rounds: number;
}

/**
 * The tool loop, on one screen: stream a round; when the model asked for tools, run
 * them, replay the original payload plus the assistant message plus the results in
 * the protocol's own shape, and stream again — until the model stops asking, the
 * round limit is hit, or the continuation cannot be built. State is keyed by request
 * id, so interleaved requests never collide, and it is dropped however the request ends.
 */
export class ToolLoopRunner {
    private readonly loops = new Map<RequestId, LoopState>();
    readonly maxRounds: number;

    constructor(private readonly executor: ToolExecutor, options: ToolLoopOptions = {}) {
        this.maxRounds = options.maxRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
    }

    /** Requests whose loop is running now. */
    get activeRequests(): RequestId[] {
        return [...this.loops.keys()];
    }

    /**
     * Streams the request and every continuation. `onRound` hears each completed tool
     * round (the assistant turn that asked and the results it got), in order.
     */
    async *run(
        protocol: WireProtocol, request: WireRequest, onRound?: (turn: AssistantTurn, results: readonly ToolResultInput[]) => void,
        /** Builds each continuation anew (the host re-assembles its history); absent or undefined: the payload plus the round, replayed. */
        nextPayload?: () => Promise<RequestBody | undefined>
    ): AsyncGenerator<EventBatch, AssistantTurn | undefined> {
        const { requestId } = request;
        if (this.loops.has(requestId)) {
            throw new Error(`A tool loop for request ${requestId} is already running.`);
        }
        const state: LoopState = { rounds: 0 };
        this.loops.set(requestId, state);
        try {
            let payload = request.body as RequestBody;
            for (;;) {
                const turn = yield* streamWire(protocol, { ...request, body: payload });
                const calls = turn ? toolCallsOf(turn) : [];
                if (!turn || turn.stopReason !== 'tool_use' || calls.length === 0) {
                    return turn;
                }
                if (++state.rounds > this.maxRounds) {
                    yield [this.error(requestId, {
                        category: 'Tool',
                        limit: 'maxToolRounds',
                        message: `The model kept calling tools for ${this.maxRounds} rounds (the max_tool_rounds limit), so the request was stopped. Ask for a smaller step, or ${(request.limitAdvice ?? raiseLimitAdvice)('maxToolRounds')}`
                    })];
                    return undefined;
                }
                const results: ToolResultInput[] = [];
                for (const call of calls) {
                    const result = yield* this.execute(call, request);
                    results.push(result);
                }
                onRound?.(turn, results);
                const next = (nextPayload ? await nextPayload() : undefined) ?? protocol.buildContinuation?.(payload, turn, results);
                if (!next) {
                    yield [this.error(requestId, {
                        category: 'Provider',
                        message: `Could not build the tool continuation for ${protocol.name}: the request has no message list or the protocol has no tools. Check the agent's request template.`
                    })];
                    return undefined;
                }
                payload = next;
            }
        } finally {
            this.loops.delete(requestId);
        }
    }

    private async *execute(call: ToolCall, request: WireRequest): AsyncGenerator<EventBatch, ToolResultInput> {
        let result: ToolExecution;
        try {
            result = await this.executor.execute(call, { requestId: request.requestId, signal: request.signal });
        } catch (error) {
            if (error instanceof CancelledError || request.signal?.aborted) {
                throw new CancelledError();
            }
            // The model reads the failure and can try again; the loop goes on.
            result = { content: `Tool "${call.name}" failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
        }
        if (request.signal?.aborted) {
            throw new CancelledError();
        }
        const images = keptToolImages(result.images);
        const input: ToolResultInput = { callId: call.callId, name: call.name, content: result.content, isError: result.isError ?? false, ...(images.length > 0 ? { images } : {}) };
        // The view is told how many images went with the result; their bytes stay in the history.
        yield [{
            type: 'ToolResult', requestId: request.requestId, callId: input.callId, name: input.name, content: input.content, isError: input.isError,
            ...(images.length > 0 ? { imageCount: images.length } : {}), ...(result.fileEdit ? { fileEdit: result.fileEdit } : {})
        }];
        return input;
    }

    private error(requestId: RequestId, error: ErrorInfo): ResponseEvent {
        return { type: 'Error', requestId, error };
    }
}
