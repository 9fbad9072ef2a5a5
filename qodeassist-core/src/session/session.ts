import { randomUUID } from 'node:crypto';
import { TemplateContext } from '../prompt/template-context';
import { AssistantTurn } from '../wire/assistant-turn';
import { CancelledError, toErrorInfo } from '../wire/error-info';
import { RequestId } from '../wire/events';
import { streamWire, WireRequest } from '../wire/wire-client';
import { WireProtocol } from '../wire/wire-protocols';
import { SessionEvent } from './session-events';

export interface ChatTurn {
    role: 'user' | 'assistant';
    text: string;
}

/** Where a request goes and how its body is made: resolved by the caller from configuration, the key already in the headers. */
export interface SessionTarget {
    protocol: WireProtocol;
    url: string;
    headers: Record<string, string>;
    /** Secret values to redact from every error. */
    secrets: readonly string[];
    systemPrompt: string;
    renderBody(ctx: TemplateContext): Record<string, unknown>;
    /** For the UI: which agent and model answer. */
    agentName?: string;
    model?: string;
}

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
        private readonly emit: (events: readonly SessionEvent[]) => void
    ) { }

    get history(): readonly ChatTurn[] {
        return this.turns;
    }

    get busy(): boolean {
        return this.inFlight !== undefined;
    }

    async send(text: string, target: SessionTarget): Promise<RequestId> {
        await this.cancel();
        const requestId = randomUUID();
        const controller = new AbortController();
        this.turns.push({ role: 'user', text });
        const done = this.run(requestId, controller.signal, target);
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

    /** The template context of the next request; the ContextAssembler takes this job over. */
    private context(target: SessionTarget): TemplateContext {
        return {
            system_prompt: target.systemPrompt,
            history: this.turns.map(turn => ({ role: turn.role, content: [{ type: 'text', text: turn.text }] })),
            files_metadata: [],
            tools: []
        };
    }

    private async run(requestId: RequestId, signal: AbortSignal, target: SessionTarget): Promise<void> {
        this.emit([{ type: 'RequestStarted', requestId, agent: target.agentName, model: target.model }]);
        let answer = '';
        try {
            const request: WireRequest = {
                requestId, url: target.url, headers: target.headers, body: target.renderBody(this.context(target)), signal, secrets: target.secrets
            };
            const stream = streamWire(target.protocol, request);
            for (;;) {
                const next = await stream.next();
                if (signal.aborted) {
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
            if (error instanceof CancelledError || signal.aborted) {
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
