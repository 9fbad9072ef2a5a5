import type { ClientContext, PromptCapabilities, SendRequestOptions, RequestPermissionRequest, RequestPermissionResponse, SessionModeState, SessionUpdate, StopReason as AcpStopReason } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { Logger } from '../ports/logger';
import { toErrorInfo, untilAborted } from '../wire/error-info';
import { RequestId, StopReason } from '../wire/events';
import { AcpAgentDefinition, AcpLimits } from './acp-definition';
import { AcpAgentError, tooManyUpdatesError, agentIdleError } from './acp-errors';
import { AcpCommand, AcpEvent, AcpMode, AcpToolCallState, AcpTurnEnd } from './acp-events';
import { AcpFileAccess, ReadRequest } from './acp-files';
import { AcpHost, AcpPermissionAnswer, AcpPermissionOption, permissionAllows } from './acp-host';
import { AcpPromptInput, buildPrompt } from './acp-prompt';
import { AcpTerminals, TerminalExitStatus, TerminalOutput, TerminalRequest } from './acp-terminals';
import { AgentActivity, Turn } from './acp-turn';
import { AcpUpdateMapper } from './acp-updates';
import { PermissionGate } from './permission-gate';

const NOT_ALLOWED = -32602;

/** What a session needs of the client that owns the agent. */
export interface AcpSessionContext extends AgentActivity {
    definition: AcpAgentDefinition;
    host: AcpHost;
    limits: AcpLimits;
    files: AcpFileAccess;
    terminals: AcpTerminals;
    logger?: Logger;
    promptCapabilities(): PromptCapabilities | undefined;
    /** Sends a request and turns every failure (the agent's error, its crash, a malformed message) into an AcpAgentError. */
    request<T>(method: string, call: (agent: ClientContext, send: SendRequestOptions) => Promise<T>, timeout?: { seconds: number; setting: string }): Promise<T>;
    /** Runs work the agent waits on (a prompt the user answers, a command it waits for): the agent's silence meanwhile is no idleness. */
    hostWork<T>(work: () => Promise<T>): Promise<T>;
    /** The agent's last error output, for messages. */
    stderrTail(): string;
}

export interface AcpTurnOptions {
    requestId: RequestId;
    /** Stop: `session/cancel` is sent, open permission prompts close, the session's commands end. */
    signal?: AbortSignal;
}

/** The modes a session offers and the current one. */
export interface AcpModes {
    currentModeId: string;
    availableModes: AcpMode[];
}

const STOP_REASONS: Record<Exclude<AcpStopReason, 'cancelled'>, StopReason> = {
    end_turn: 'end_turn', max_tokens: 'max_tokens', max_turn_requests: 'other', refusal: 'content_filter'
};

/**
 * One conversation with an external agent (`session/new` or `session/load`). `prompt` runs a
 * turn: RequestStarted, the agent's updates as typed events, then exactly one of Finished,
 * Failed, Cancelled. The session also serves the agent's requests for it: permission prompts,
 * file reads and writes, terminals.
 */
export class AcpSession {
    private readonly listeners = new Set<(event: AcpEvent) => void>();
    private readonly mapper: AcpUpdateMapper;
    private readonly gate = new PermissionGate();
    private turn: Turn | undefined;
    private turnDone: Promise<unknown> = Promise.resolve();
    private modeState: AcpModes | undefined;
    private commandList: AcpCommand[] = [];
    private permissionCount = 0;
    /** Events outside a turn (after `session/new`, the replay of `session/load`) carry this id. */
    idleRequestId: RequestId;

    constructor(readonly id: string, private readonly context: AcpSessionContext) {
        this.mapper = new AcpUpdateMapper({ maxTrackedToolCalls: context.limits.maxTrackedToolCalls, roots: context.host.files.roots });
        this.idleRequestId = `acp-session:${id}`;
    }

    onEvent(listener: (event: AcpEvent) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    get modes(): AcpModes | undefined {
        return this.modeState;
    }

    /** The slash commands the agent offers now. */
    get commands(): readonly AcpCommand[] {
        return this.commandList;
    }

    /** Whether a turn is running. */
    get busy(): boolean {
        return this.turn?.active === true;
    }

    /** Records the modes a `session/new` or `session/load` answer named, and tells the listeners. */
    setModes(state: SessionModeState | null | undefined): void {
        if (!state) {
            return;
        }
        const availableModes = state.availableModes.map(mode => ({ id: mode.id, name: mode.name, ...(mode.description ? { description: mode.description } : {}) }));
        this.modeState = { currentModeId: state.currentModeId, availableModes };
        this.emit({ type: 'AcpMode', requestId: this.currentRequestId(), currentModeId: state.currentModeId, availableModes });
    }

    /** Runs one prompt turn; a turn still running is cancelled first. Never throws: failures end as a Failed event. */
    async prompt(input: AcpPromptInput, options: AcpTurnOptions): Promise<AcpTurnEnd> {
        this.cancel();
        await this.turnDone;
        const context = this.context;
        const turn = new Turn(options.requestId, context, context.limits.turnIdleSeconds * 1000,
            () => agentIdleError(context.definition, context.limits.turnIdleSeconds, context.stderrTail()));
        this.turn = turn;
        const done = this.runTurn(turn, input, options.signal);
        this.turnDone = done;
        return done;
    }

    /** Stops the running turn (as Stop does). */
    cancel(): void {
        this.turn?.cancel.abort();
    }

    /** Switches the agent's mode (`session/set_mode`); the listeners hear the change. */
    async setMode(modeId: string): Promise<void> {
        if (this.modeState && !this.modeState.availableModes.some(mode => mode.id === modeId)) {
            throw new AcpAgentError(this.context.definition.name, 'Validation', `ACP agent "${this.context.definition.name}" has no mode "${modeId}"; its modes are ${this.modeState.availableModes.map(mode => mode.id).join(', ')}.`);
        }
        await this.context.request('session/set_mode', (agent, send) => agent.request('session/set_mode', { sessionId: this.id, modeId }, send),
            { seconds: this.context.limits.sessionSeconds, setting: 'sessionSeconds' });
        this.modeState = this.modeState && { ...this.modeState, currentModeId: modeId };
        this.emit({ type: 'AcpMode', requestId: this.currentRequestId(), currentModeId: modeId });
    }

    /** A `session/update` for this session. */
    update(update: SessionUpdate): void {
        const turn = this.turn?.active ? this.turn : undefined;
        if (turn && ++turn.updates > this.context.limits.maxUpdatesPerTurn) {
            turn.fail(tooManyUpdatesError(this.context.definition, this.context.limits.maxUpdatesPerTurn));
            return;
        }
        if (update.sessionUpdate === 'current_mode_update' && this.modeState) {
            this.modeState = { ...this.modeState, currentModeId: update.currentModeId };
        }
        for (const event of this.mapper.map(update, this.currentRequestId())) {
            if (event.type === 'AcpCommands') {
                this.commandList = event.commands;
            }
            this.emit(event);
        }
    }

    /** `session/request_permission`: the host's prompt with the agent's own options; closed (cancelled) when the turn is cancelled. */
    async requestPermission(params: RequestPermissionRequest, requestSignal: AbortSignal): Promise<RequestPermissionResponse> {
        const options: AcpPermissionOption[] = params.options.map(option => ({ optionId: option.optionId, name: option.name, kind: option.kind }));
        const toolCall = this.mapper.preview(params.toolCall);
        const answer = await this.ask(toolCall, options, requestSignal);
        return 'cancelled' in answer ? { outcome: { outcome: 'cancelled' } } : { outcome: { outcome: 'selected', optionId: answer.optionId } };
    }

    async readFile(params: ReadRequest): Promise<string> {
        return this.context.files.read(params);
    }

    /** Held while a permission prompt is open; refused when the user rejected it. */
    async writeFile(path: string, content: string, signal: AbortSignal): Promise<void> {
        await this.whenAllowed('written', signal);
        const edit = await this.context.files.write(path, content, async (protectedPath, record, texts) => {
            const toolCall: AcpToolCallState = {
                callId: `qodeassist-protected-write-${++this.permissionCount}`, title: `Write ${protectedPath}`, kind: 'edit', status: 'pending',
                locations: [{ path: record.absolutePath }],
                content: [{ type: 'diff', path: record.absolutePath, ...(texts.before !== undefined ? { oldText: texts.before } : {}), newText: texts.after, patch: record.diff }]
            };
            const options: AcpPermissionOption[] = [{ optionId: 'allow', name: 'Allow this write', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }];
            return permissionAllows(await this.ask(toolCall, options, signal, protectedPath), options);
        });
        this.emit({ type: 'AcpFileWrite', requestId: this.currentRequestId(), edit });
    }

    /** Held while a permission prompt is open; refused when the user rejected it. */
    async createTerminal(request: TerminalRequest, signal: AbortSignal): Promise<string> {
        await this.whenAllowed('run', signal);
        return this.context.terminals.create(this.id, request);
    }

    terminalOutput(terminalId: string): TerminalOutput {
        return this.context.terminals.output(this.id, terminalId);
    }

    waitForTerminalExit(terminalId: string, signal: AbortSignal): Promise<TerminalExitStatus> {
        return this.context.hostWork(() => this.context.terminals.waitForExit(this.id, terminalId, signal));
    }

    killTerminal(terminalId: string): Promise<void> {
        return this.context.terminals.kill(this.id, terminalId);
    }

    releaseTerminal(terminalId: string): Promise<void> {
        return this.context.terminals.release(this.id, terminalId);
    }

    /** Ends the running turn with this failure (the agent died or broke the protocol). */
    failTurn(error: AcpAgentError): void {
        this.turn?.fail(error);
    }

    private async runTurn(turn: Turn, input: AcpPromptInput, signal: AbortSignal | undefined): Promise<AcpTurnEnd> {
        const context = this.context;
        const requestId = turn.requestId;
        const onAbort = () => turn.cancel.abort();
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) {
            turn.cancel.abort();
        }
        this.emit({ type: 'RequestStarted', requestId, agent: context.definition.name });
        let end: AcpTurnEnd;
        try {
            end = await this.exchange(turn, input);
        } catch (error) {
            end = { type: 'Failed', requestId, error: toErrorInfo(error) };
        } finally {
            signal?.removeEventListener('abort', onAbort);
        }
        turn.end();
        this.emit(end);
        return end;
    }

    private async exchange(turn: Turn, input: AcpPromptInput): Promise<AcpTurnEnd> {
        const context = this.context;
        const requestId = turn.requestId;
        if (turn.cancel.signal.aborted) {
            return { type: 'Cancelled', requestId };
        }
        const built = await buildPrompt(input, context.promptCapabilities(), context.host.files.roots, path => context.files.read({ path }));
        for (const note of built.notes) {
            this.emit({ type: 'AcpNotice', requestId, severity: 'warning', title: note });
        }
        const answer = context.request('session/prompt', agent => agent.request('session/prompt', { sessionId: this.id, prompt: built.blocks }));
        answer.catch(() => undefined);
        const cancelled = new Promise<'cancelled'>(resolve => {
            if (turn.cancel.signal.aborted) {
                resolve('cancelled');
            }
            turn.cancel.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
        });
        try {
            const first = await Promise.race([answer, turn.failure, cancelled]);
            if (first !== 'cancelled') {
                return first.stopReason === 'cancelled' ? { type: 'Cancelled', requestId } : { type: 'Finished', requestId, stopReason: STOP_REASONS[first.stopReason as keyof typeof STOP_REASONS] ?? 'other' };
            }
        } catch (error) {
            if (turn.error === error) {
                // A bound crossed or the agent went quiet: ask it to stop, and report why.
                this.stopAgentTurn();
            }
            throw error;
        }
        this.stopAgentTurn();
        // The agent should answer the prompt with `cancelled` now; it gets a few seconds, then the turn ends anyway.
        const grace = new Promise(resolve => setTimeout(resolve, context.limits.cancelGraceSeconds * 1000).unref());
        await Promise.race([answer.catch(() => undefined), grace, turn.failure.catch(() => undefined)]);
        return { type: 'Cancelled', requestId };
    }

    /** `session/cancel`, open prompts closed, and the session's commands ended. */
    private stopAgentTurn(): void {
        this.turn?.cancel.abort();
        this.context.terminals.killSession(this.id);
        void this.context.request('session/cancel', agent => agent.notify('session/cancel', { sessionId: this.id })).catch(() => undefined);
    }

    private async ask(toolCall: AcpToolCallState, options: AcpPermissionOption[], requestSignal: AbortSignal, protectedPath?: string): Promise<AcpPermissionAnswer> {
        const turnSignal = this.turn?.active ? this.turn.cancel.signal : undefined;
        const signal = turnSignal ? AbortSignal.any([requestSignal, turnSignal]) : requestSignal;
        let settle!: (allowed: boolean) => void;
        this.gate.opened(toolCall.title, new Promise<boolean>(resolve => { settle = resolve; }));
        let answer: AcpPermissionAnswer = { cancelled: true };
        try {
            const request = { agent: this.context.definition.name, sessionId: this.id, toolCall, options, ...(protectedPath !== undefined ? { protectedPath } : {}) };
            const given = await this.context.hostWork(() => untilAborted(this.context.host.requestPermission(request, signal), signal));
            // An option the agent did not offer counts as no answer.
            answer = 'optionId' in given && !options.some(option => option.optionId === given.optionId) ? { cancelled: true } : given;
        } catch (error) {
            if (!signal.aborted) {
                this.context.logger?.log('warn', 'qodeassist.tools', `ACP agent ${this.context.definition.name}: the permission prompt failed: ${error instanceof Error ? error.message : String(error)}`);
            }
        } finally {
            settle(permissionAllows(answer, options));
        }
        return answer;
    }

    private async whenAllowed(what: 'written' | 'run', signal: AbortSignal): Promise<void> {
        if (this.turn?.cancel.signal.aborted) {
            // Stop means stop: an agent that goes on after session/cancel changes nothing more.
            throw new RequestError(NOT_ALLOWED, `The user stopped this turn; nothing more is ${what} until the next prompt.`);
        }
        const rejected = await this.context.hostWork(() => untilAborted(this.gate.cleared(), signal));
        if (rejected !== undefined) {
            throw new RequestError(NOT_ALLOWED, `The user did not allow "${rejected}", which was still being asked when this request came; nothing was ${what}.`);
        }
    }

    private currentRequestId(): RequestId {
        return this.turn?.active ? this.turn.requestId : this.idleRequestId;
    }

    private emit(event: AcpEvent): void {
        for (const listener of this.listeners) {
            try {
                listener(event);
            } catch (error) {
                this.context.logger?.log('warn', 'qodeassist.tools', `An ACP event listener failed: ${error instanceof Error ? error.message : String(error)}`);
            }
        }
    }
}
