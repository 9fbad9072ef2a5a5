import { randomUUID } from 'node:crypto';
import { CancelledError, toErrorInfo } from '../wire/error-info';
import { AssistantTurn } from '../wire/assistant-turn';
import { RequestId } from '../wire/events';
import { EventBatch, WireRequest } from '../wire/wire-client';
import { SessionEvent } from './session-events';

export interface ChatTurn {
    role: 'user' | 'assistant';
    text: string;
}

/** Where a request goes: resolved by the caller from configuration; the key stays in this process. */
export interface ChatTarget {
    url: string;
    model: string;
    apiKey?: string;
}

/**
 * Opens the wire stream for one request (a single round or a whole tool loop); the
 * protocol is chosen by whoever builds the session. The stream returns the final
 * assistant turn, or nothing after an Error event.
 */
export type WireStreamer = (request: WireRequest) => AsyncGenerator<EventBatch, AssistantTurn | undefined>;

/** Renders the request body from the history; the agent's [body] template takes this job with the configuration layer. */
export type RequestBodyBuilder = (history: readonly ChatTurn[], target: ChatTarget) => unknown;

/**
 * One conversation. `send` is the only entry point; at most one request is in flight
 * and a new `send` cancels it first. Every request ends in exactly one of
 * Finished / Failed / Cancelled, and an assistant turn joins the history only when
 * the request finished. Events leave in batches, as they arrived from the network.
 */
export class Session {
    private readonly turns: ChatTurn[] = [];
    private inFlight: { requestId: RequestId; controller: AbortController; done: Promise<void> } | undefined;

    constructor(
        readonly id: string,
        private readonly streamer: WireStreamer,
        private readonly buildBody: RequestBodyBuilder,
        private readonly emit: (events: readonly SessionEvent[]) => void
    ) { }

    get history(): readonly ChatTurn[] {
        return this.turns;
    }

    get busy(): boolean {
        return this.inFlight !== undefined;
    }

    async send(text: string, target: ChatTarget): Promise<RequestId> {
        await this.cancel();
        const requestId = randomUUID();
        const controller = new AbortController();
        this.turns.push({ role: 'user', text });
        const request: WireRequest = {
            requestId,
            url: target.url,
            headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
            body: this.buildBody(this.turns, target),
            signal: controller.signal,
            secrets: target.apiKey ? [target.apiKey] : []
        };
        const done = this.run(request);
        this.inFlight = { requestId, controller, done };
        done.finally(() => {
            if (this.inFlight?.requestId === requestId) {
                this.inFlight = undefined;
            }
        });
        return requestId;
    }

    /** Cancels the request in flight, if any, and resolves once its terminal event was emitted. */
    async cancel(): Promise<void> {
        const current = this.inFlight;
        if (current) {
            current.controller.abort();
            await current.done;
        }
    }

    private async run(request: WireRequest): Promise<void> {
        const { requestId } = request;
        this.emit([{ type: 'RequestStarted', requestId }]);
        let answer = '';
        try {
            const stream = this.streamer(request);
            for (;;) {
                const next = await stream.next();
                if (request.signal?.aborted) {
                    await stream.return(undefined);
                    throw new CancelledError();
                }
                if (next.done) {
                    this.emit([this.terminal(requestId, next.value, answer)]);
                    return;
                }
                const batch: SessionEvent[] = next.value;
                for (const event of next.value) {
                    if (event.type === 'TextDelta') {
                        answer += event.text;
                    } else if (event.type === 'Error') {
                        await stream.return(undefined);
                        this.emit([...batch, { type: 'Failed', requestId, error: event.error }]);
                        return;
                    }
                }
                this.emit(batch);
            }
        } catch (error) {
            if (error instanceof CancelledError || request.signal?.aborted) {
                this.emit([{ type: 'Cancelled', requestId }]);
            } else {
                this.emit([{ type: 'Failed', requestId, error: toErrorInfo(error) }]);
            }
        }
    }

    private terminal(requestId: RequestId, turn: AssistantTurn | undefined, answer: string): SessionEvent {
        if (!turn) {
            return { type: 'Failed', requestId, error: { category: 'Provider', message: 'The provider stream ended without a final event. Try again.' } };
        }
        this.turns.push({ role: 'assistant', text: answer });
        return { type: 'Finished', requestId, stopReason: turn.stopReason };
    }
}

/** The OpenAI Chat Completions body for a plain text conversation. */
export function openAIChatBody(history: readonly ChatTurn[], target: ChatTarget): unknown {
    return {
        model: target.model,
        stream: true,
        stream_options: { include_usage: true },
        messages: history.map(turn => ({ role: turn.role, content: turn.text }))
    };
}
