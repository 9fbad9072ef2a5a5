import { randomUUID } from 'node:crypto';
import { Assembly, CompletionInput, ContextAssembler, PinnedMaterialization, SystemLayer } from '../context/context-assembler';
import { ContextManifest, formatManifest } from '../context/context-manifest';
import { EstimateInput, TokenEstimator } from '../context/token-estimator';
import { Logger } from '../ports/logger';
import { CtxTool, TemplateContext } from '../prompt/template-context';
import { AssistantTurn, ToolResultInput } from '../wire/assistant-turn';
import { CancelledError, toErrorInfo } from '../wire/error-info';
import { RequestId, Usage } from '../wire/events';
import { ToolExecutor, ToolLoopRunner } from '../wire/tool-loop-runner';
import { EventBatch, streamWire, WireRequest } from '../wire/wire-client';
import { WireProtocol } from '../wire/wire-protocols';
import { HostModels } from '../wire/host-models';
import { EffectiveLimits, effectiveLimits, LimitOverrides, raiseLimitAdvice } from '../wire/request-limits';
import { timeoutsFor } from '../wire/http-transport';
import { HistoryBlock, historyBlocksOf, HistoryMessage, MessageUsage, sendableHistory } from '../context/conversation-history';
import { SessionEvent } from './session-events';
import { costOf, ModelPricing, UsageCost } from '../config/pricing';

/** The agent a session talks to, resolved by the caller: its key is already in the headers. */
export interface SessionAgent {
    name: string;
    model: string;
    protocol: WireProtocol;
    url: string;
    headers: Record<string, string>;
    /** Secret values to redact from every error. */
    secrets: readonly string[];
    contextWindow: number;
    maxOutputTokens: number;
    /** The rendered TOML system_prompt: the `agent.system` layer. */
    systemPrompt: string;
    /** The agent's `[limits]`; the settings (`SessionServices.limits`) win over them. */
    limits?: LimitOverrides;
    /** The agent's file as the user knows it, named by a limit error as where to raise the limit. */
    file?: string;
    /** False: the agent takes no images — they go as a placeholder, and a turn that attaches one is refused. Default: it takes them. */
    images?: boolean;
    /** Its model's price: each request's usage is priced when it arrives. */
    pricing?: ModelPricing;
    /** Before each request: makes sure the provider's server answers (a provider with `[launch]` starts it), or rejects with why it cannot. */
    ensureReachable?(signal: AbortSignal): Promise<void>;
    renderBody(ctx: TemplateContext): Record<string, unknown>;
}

export interface SessionServices {
    assembler: ContextAssembler;
    estimator: TokenEstimator;
    /** Manifests and request bodies go here at debug level, always redacted. */
    logger?: Logger;
    /** Runs the model's tool calls; without it, tool policies are ignored. */
    tools?: ToolExecutor;
    /** The host's default tool round limit (instead of the built-in 30); the agent's `[limits]` and the settings win over it. */
    maxToolRounds?: number;
    /** The host's defaults for the other limits (e.g. completion's tighter answer size and time); the agent's `[limits]` and the settings win over them. */
    limitDefaults?: LimitOverrides;
    /** The user's limit settings (`qodeassist.limits.*`), read at each send; they win over the agent's `[limits]`. */
    limits?: () => LimitOverrides;
    /**
     * Assemble every tool round's continuation from the history again (working set, protected
     * evidence, budget and tool-trace checks before each request) instead of replaying the
     * first payload plus the rounds: what keeps long agentic runs inside the context window.
     */
    reassembleRounds?: boolean;
    /** The IDE's own language models, for agents with client_api "theia"; absent outside an IDE. */
    hostModels?: HostModels;
    /**
     * The user's spend today: each request reserves its estimate before it is sent (a limit may
     * refuse it) and settles to its cost when it ends, however it ends.
     */
    spend?: { reserve(estimate: UsageCost | undefined): { settle(cost: UsageCost | undefined): void } };
}

export interface ToolPolicy {
    /** Offer these tools to the model this turn (empty or absent: none). */
    tools?: readonly CtxTool[];
    /** Runs them for this turn (e.g. a chat's own ToolKit with its permission memory); defaults to the session's. */
    executor?: ToolExecutor;
}

/** Produces a pinned block at every send (e.g. a linked file read now); undefined to skip this time. */
export type PinnedProvider = () => Promise<PinnedMaterialization | undefined>;

/**
 * One conversation: the history (typed blocks, the single source of truth), the system
 * layers, the pinned providers, the request in flight and its tool loop. `send` is the
 * only entry point; a new `send` cancels the request in flight first. Every request ends
 * in exactly one of Finished / Failed / Cancelled. Completed tool rounds stay in the
 * history even when a later round fails or is cancelled, so pairs are never broken.
 */
export class Session {
    private readonly messages: HistoryMessage[] = [];
    private readonly layers = new Map<string, string>();
    private readonly pins = new Map<string, PinnedProvider>();
    private thinking: boolean | undefined;
    private inFlight: { requestId: RequestId; controller: AbortController; done: Promise<void> } | undefined;

    private listener: (events: readonly SessionEvent[]) => void;

    constructor(
        readonly id: string,
        readonly agent: SessionAgent,
        private readonly services: SessionServices,
        listener: (events: readonly SessionEvent[]) => void = () => undefined
    ) {
        this.listener = listener;
        this.layers.set('agent.system', agent.systemPrompt);
    }

    /** Who hears this session's events (a pooled session gets a new listener when acquired). */
    listen(listener: (events: readonly SessionEvent[]) => void): void {
        this.listener = listener;
    }

    private emit(events: readonly SessionEvent[]): void {
        this.listener(events);
    }

    get history(): readonly HistoryMessage[] {
        return this.messages;
    }

    get busy(): boolean {
        return this.inFlight !== undefined;
    }

    /** A system layer (`env.project`, `skills.catalog`, a pipeline's own layer…); placement is the assembler's. */
    setLayer(name: string, text: string): void {
        this.layers.set(name, text);
    }

    removeLayer(name: string): void {
        this.layers.delete(name);
    }

    /** Thinking on or off for the following requests (the template's `agent.enable_thinking`); undefined: as the agent is configured. */
    setThinking(enabled: boolean | undefined): void {
        this.thinking = enabled;
    }

    pinContext(id: string, provider: PinnedProvider): void {
        this.pins.set(id, provider);
    }

    unpinContext(id: string): void {
        this.pins.delete(id);
    }

    /** Seeds the history, e.g. from a saved chat or a summary. Only while idle. */
    restore(history: readonly HistoryMessage[]): void {
        if (this.busy) {
            throw new Error('Cannot restore a history while a request is in flight.');
        }
        this.messages.splice(0, this.messages.length, ...history);
    }

    /**
     * Adds a message after the last request ended (its terminal event was told): how an answer
     * that did not finish ended, kept in the history the owner saves. Such a message is sent
     * again as its text only (see sendableHistory).
     */
    append(message: HistoryMessage): void {
        this.messages.push(message);
    }

    /** Back to an empty conversation with only the agent's layer: what a pooled session looks like when acquired. */
    reset(): void {
        this.restore([]);
        this.layers.clear();
        this.layers.set('agent.system', this.agent.systemPrompt);
        this.pins.clear();
        this.thinking = undefined;
    }

    async send(blocks: readonly HistoryBlock[], policy: ToolPolicy = {}, completion?: CompletionInput): Promise<RequestId> {
        await this.cancel();
        const requestId = randomUUID();
        const controller = new AbortController();
        if (blocks.length > 0) {
            this.messages.push({ role: 'user', blocks: [...blocks] });
        }
        const done = this.run(requestId, controller.signal, policy, completion);
        this.inFlight = { requestId, controller, done };
        done.finally(() => {
            if (this.inFlight?.requestId === requestId) {
                this.inFlight = undefined;
            }
        });
        return requestId;
    }

    /**
     * What the next send would put into the request, without sending: the token counter's
     * live estimate and the manifest popover. The history is not changed.
     */
    async preview(blocks: readonly HistoryBlock[], policy: ToolPolicy = {}): Promise<ContextManifest> {
        const executor = policy.executor ?? this.services.tools;
        const assembly = await this.services.assembler.assemble({
            layers: [...this.layers].map(([name, text]): SystemLayer => ({ name, text })),
            history: sendableHistory(blocks.length > 0 ? [...this.messages, { role: 'user', blocks: [...blocks] }] : this.messages),
            pinned: await this.materializePins(),
            tools: executor ? [...policy.tools ?? []] : [],
            budget: { contextWindow: this.agent.contextWindow, maxOutputTokens: this.agent.maxOutputTokens },
            estimatorKey: this.estimatorKey, imagelessAgent: this.imagelessAgent,
            preview: true
        });
        return assembly.manifest;
    }

    /** Cancels the request in flight, if any, and resolves once its terminal event was emitted. */
    async cancel(): Promise<void> {
        const current = this.inFlight;
        if (current) {
            current.controller.abort();
            await current.done;
        }
    }

    private async run(requestId: RequestId, signal: AbortSignal, policy: ToolPolicy, completion: CompletionInput | undefined): Promise<void> {
        this.emit([{ type: 'RequestStarted', requestId, agent: this.agent.name, model: this.agent.model }]);
        let held: SentRequest | undefined;
        try {
            const executor = policy.executor ?? this.services.tools;
            const tools = executor ? [...policy.tools ?? []] : [];
            const assembly = await this.assemble(tools, completion);
            this.emit([{ type: 'Manifest', requestId, manifest: assembly.manifest }]);
            const logger = this.services.logger;
            logger?.log('info', 'qodeassist.session', `request ${requestId}: ${this.agent.name} (${this.agent.model}) at ${this.agent.url}, ~${assembly.manifest.estimate} tokens of ${assembly.manifest.limit}`);
            logger?.log('debug', 'qodeassist.context', `request ${requestId} (${this.agent.name}) manifest:\n${formatManifest(assembly.manifest)}`);
            // What the request now in flight was measured at, for calibrating the estimator against its Usage; and its hold on the
            // day's spend, taken before anything is sent and settled in consume's finally (or released below if it never starts).
            const sent: SentRequest = { measured: assembly.measured, round: 0, measuredTokens: assembly.manifest.estimate };
            sent.reservation = this.reserve(assembly.manifest.estimate);
            held = sent;
            await this.agent.ensureReachable?.(signal);
            if (signal.aborted) {
                throw new CancelledError();
            }
            const limits = this.limitsNow();
            const request: WireRequest = {
                requestId, url: this.agent.url, headers: this.agent.headers, body: this.agent.renderBody(this.withThinking(assembly.ctx)), signal, secrets: this.agent.secrets,
                hostModels: this.services.hostModels, timeouts: timeoutsFor(limits.values), limitAdvice: limit => raiseLimitAdvice(limit, limits),
                maxRecordBytes: limits.values.maxRecordBytes, maxAnswerBytes: limits.values.maxAnswerBytes
            };
            logger?.log('debug', 'qodeassist.wire', `request ${requestId} POST ${this.agent.url} ${JSON.stringify(request.body)}`);
            const nextPayload = this.services.reassembleRounds
                ? async () => {
                    const next = await this.assemble(tools, completion);
                    sent.measured = next.measured;
                    this.emit([{ type: 'Manifest', requestId, manifest: next.manifest }]);
                    logger?.log('debug', 'qodeassist.context', `request ${requestId} (${this.agent.name}) continuation manifest:\n${formatManifest(next.manifest)}`);
                    return this.agent.renderBody(this.withThinking(next.ctx));
                }
                : undefined;
            const onRound = (turn: AssistantTurn, results: readonly ToolResultInput[]) => {
                this.recordRound(turn, results, sent.usage);
                const previous = sent.usage;
                sent.reservation?.settle(previous?.cost);
                sent.reservation = undefined;
                // The next request of the loop has a usage (and a cost) of its own, if the day's spend allows it: it carries this one's input and output.
                sent.usage = undefined;
                sent.reservation = this.reserve(previous ? previous.inputTokens + previous.outputTokens : sent.measuredTokens);
                sent.round++;
                // A replayed continuation was never measured: its Usage must not calibrate against the first request.
                if (!this.services.reassembleRounds) {
                    sent.measured = undefined;
                }
            };
            const stream = tools.length > 0 && executor
                ? new ToolLoopRunner(executor, { maxRounds: limits.values.maxToolRounds }).run(this.agent.protocol, request, onRound, nextPayload)
                : streamWire(this.agent.protocol, request);
            await this.consume(requestId, stream, signal, sent);
        } catch (error) {
            held?.reservation?.settle(held.usage?.cost);
            if (error instanceof CancelledError || signal.aborted) {
                this.emit([{ type: 'Cancelled', requestId }]);
            } else {
                const info = toErrorInfo(error);
                this.services.logger?.log('warn', 'qodeassist.session', `request ${requestId} failed: ${info.category}: ${info.message}`);
                this.emit([{ type: 'Failed', requestId, error: info }]);
            }
        }
    }

    private async consume(requestId: RequestId, stream: AsyncGenerator<EventBatch, AssistantTurn | undefined>, signal: AbortSignal, sent: SentRequest): Promise<void> {
        try {
            await this.consumeEvents(requestId, stream, signal, sent);
        } finally {
            // A request costs what its last usage report said, however it ended (nothing: its hold is released).
            sent.reservation?.settle(sent.usage?.cost);
        }
    }

    private async consumeEvents(requestId: RequestId, stream: AsyncGenerator<EventBatch, AssistantTurn | undefined>, signal: AbortSignal, sent: SentRequest): Promise<void> {
        for (;;) {
            const next = await stream.next();
            if (signal.aborted) {
                await stream.return(undefined);
                throw new CancelledError();
            }
            if (next.done) {
                this.emit([this.finish(requestId, next.value, sent.usage)]);
                return;
            }
            const batch: SessionEvent[] = next.value.map(event => event.type === 'Usage' ? { ...event, round: sent.round, ...this.priced(event) } : event);
            for (const event of next.value) {
                if (event.type === 'Usage') {
                    sent.usage = usageOf(event, this.agent.pricing);
                    if (sent.measured) {
                        this.services.estimator.calibrate(this.estimatorKey, sent.measured, event.inputTokens);
                    }
                } else if (event.type === 'Error') {
                    await stream.return(undefined);
                    this.emit([...batch, { type: 'Failed', requestId, error: event.error }]);
                    return;
                }
            }
            this.emit(batch);
        }
    }

    /** The limits of a request starting now: the settings are read at each send, so a changed one applies to the next. */
    private limitsNow(): EffectiveLimits {
        const hostRounds = this.services.maxToolRounds;
        return effectiveLimits({
            defaults: { ...this.services.limitDefaults, ...hostRounds !== undefined ? { maxToolRounds: hostRounds } : {} },
            agent: this.agent.limits, settings: this.services.limits?.(), agentFile: this.agent.file
        });
    }

    /** The request's context from the history as it is now: layers, pins materialized again, tools, the budget. */
    private async assemble(tools: CtxTool[], completion: CompletionInput | undefined): Promise<Assembly> {
        return this.services.assembler.assemble({
            layers: [...this.layers].map(([name, text]): SystemLayer => ({ name, text })),
            history: sendableHistory(this.messages), pinned: await this.materializePins(), tools, completion,
            budget: { contextWindow: this.agent.contextWindow, maxOutputTokens: this.agent.maxOutputTokens },
            estimatorKey: this.estimatorKey, imagelessAgent: this.imagelessAgent
        });
    }

    private withThinking(ctx: TemplateContext): TemplateContext {
        return this.thinking === undefined ? ctx : { ...ctx, thinking: this.thinking };
    }

    /** Holds a request's estimated cost against the day's limit: its input estimate and a full reply (max tokens) at the agent's price. */
    private reserve(inputTokens: number | undefined): SpentReservation | undefined {
        const estimate = this.agent.pricing ? costOf({ inputTokens: inputTokens ?? 0, outputTokens: this.agent.maxOutputTokens }, this.agent.pricing) : undefined;
        return this.services.spend?.reserve(estimate);
    }

    /** The cost of a request's usage at the agent's price now; nothing without a price. */
    private priced(usage: Usage): { cost?: UsageCost } {
        return this.agent.pricing ? { cost: costOf(usage, this.agent.pricing) } : {};
    }

    /** The agent's name when it takes no images (the assembler's placeholder and refusal name it). */
    private get imagelessAgent(): string | undefined {
        return this.agent.images === false ? this.agent.name : undefined;
    }

    private recordRound(turn: AssistantTurn, results: readonly ToolResultInput[], usage: MessageUsage | undefined): void {
        this.messages.push({ role: 'assistant', blocks: historyBlocksOf(turn.blocks), ...(usage ? { usage } : {}) });
        this.messages.push({
            role: 'user',
            blocks: results.map((result): HistoryBlock => ({
                type: 'tool_result', toolUseId: result.callId, name: result.name, content: result.content, isError: result.isError,
                ...(result.images?.length ? { images: result.images } : {})
            }))
        });
    }

    private finish(requestId: RequestId, turn: AssistantTurn | undefined, usage: MessageUsage | undefined): SessionEvent {
        if (!turn) {
            return { type: 'Failed', requestId, error: { category: 'Provider', message: 'The provider stream ended without a final event. Try again.' } };
        }
        this.messages.push({ role: 'assistant', blocks: historyBlocksOf(turn.blocks), ...(usage ? { usage } : {}) });
        return { type: 'Finished', requestId, stopReason: turn.stopReason };
    }

    private async materializePins(): Promise<PinnedMaterialization[]> {
        const pinned: PinnedMaterialization[] = [];
        for (const provider of this.pins.values()) {
            const block = await provider();
            if (block) {
                pinned.push(block);
            }
        }
        return pinned;
    }

    private get estimatorKey(): string {
        return `${this.agent.url}|${this.agent.model}`;
    }
}

/** One request of a turn as it streams: what it was measured at, and its usage once reported (the last report wins). */
interface SentRequest {
    measured: EstimateInput | undefined;
    usage?: MessageUsage;
    /** Which request of the turn's tool loop, from 0. */
    round: number;
    /** Its hold on the day's spend limit, settled when it ends. */
    reservation?: SpentReservation;
    /** The first request's input estimate, for a continuation's reservation when no usage came. */
    measuredTokens?: number;
}

type SpentReservation = { settle(cost: UsageCost | undefined): void };

/** A request's usage, priced when it arrives: the price then is the price of the request. */
function usageOf(event: Usage, pricing: ModelPricing | undefined): MessageUsage {
    return {
        inputTokens: event.inputTokens, outputTokens: event.outputTokens,
        ...(event.cachedTokens !== undefined ? { cachedTokens: event.cachedTokens } : {}),
        ...(event.reasoningTokens !== undefined ? { reasoningTokens: event.reasoningTokens } : {}),
        ...(pricing ? { cost: costOf(event, pricing) } : {})
    };
}
