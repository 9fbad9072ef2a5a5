import { ResolvedAgent } from '../../agents/agent-factory';
import { CompletionInput } from '../../context/context-assembler';
import { ENV_PROJECT_LAYER, EnvFacts, formatProject } from '../../context/env-block';
import { filesWithinBudget } from '../../context/open-files';
import { TokenEstimator } from '../../context/token-estimator';
import { requestEnd, SessionEvent } from '../../session/session-events';
import { SessionManager } from '../../session/session-manager';
import { CancelledError, QodeAssistError, untilAborted } from '../../wire/error-info';
import { CHAT_PROTOCOLS } from '../../wire/wire-protocols';
import { CompletionCache } from './completion-cache';
import { CompletionContextOptions, cursorWindow, DEFAULT_CONTEXT } from './completion-context';
import { DEFAULT_POSTPROCESS, isSingleLine, postprocessCompletion, PostprocessOptions, stripThinking } from './completion-postprocess';

/** One ask for a completion: where the cursor is, in which file. */
export interface CompletionRequest {
    /** Absolute path: the cache key. */
    file: string;
    /** Workspace-relative path, for the agents' [match] rules and the prompt. */
    relativePath: string;
    language: string;
    text: string;
    /** The cursor, as an offset into `text`. */
    offset: number;
    project?: string;
    /** Other open files the model may see, most relevant first; cut to the budget. */
    openFiles?: Array<{ path: string; content: string }>;
    /**
     * Where the user works (`environmentFacts`): the `env.project` layer without the workspace root,
     * which only templates that place the system prompt show (instruct agents); FIM bodies stay prefix and suffix.
     */
    environment?: EnvFacts;
}

export interface CompletionSettings {
    context: CompletionContextOptions;
    postprocess: PostprocessOptions;
    /** Tokens of open-file context at most; 0: none. */
    openFilesBudget: number;
}

export const DEFAULT_COMPLETION_SETTINGS: CompletionSettings = { context: DEFAULT_CONTEXT, postprocess: DEFAULT_POSTPROCESS, openFilesBudget: 0 };

export interface CompletionOutcome {
    /** What to insert at the cursor; empty when the model had nothing useful. */
    text: string;
    /** Where it came from: the cache, a request already under way for an earlier prefix, or a new request. */
    source: 'cache' | 'in-flight' | 'model';
    agent?: string;
    requestId?: string;
}

interface InFlight {
    file: string;
    prefix: string;
    suffix: string;
    controller: AbortController;
    result: Promise<CompletionOutcome>;
}

export interface CompletionEngineDeps {
    /** The completion roster's agent for this request (throws a Config error when there is none). */
    agentFor(request: CompletionRequest): ResolvedAgent;
    sessions: SessionManager;
    estimator: TokenEstimator;
    cache?: CompletionCache;
    settings?(): CompletionSettings;
    /** Every session event of the requests made (the bench prints them); the IDE needs only the outcome. */
    onEvents?(events: readonly SessionEvent[]): void;
}

/**
 * The completion pipeline: context → cache → in-flight reuse → agent and session → stream
 * (stopped early when one line is all that can be used) → post-processing → cache. A new
 * request cancels the one under way unless it merely types ahead into it; every request
 * settles, so nothing is left pending.
 */
export class CompletionEngine {
    private inFlight: InFlight | undefined;
    readonly cache: CompletionCache;

    constructor(private readonly deps: CompletionEngineDeps) {
        this.cache = deps.cache ?? new CompletionCache();
    }

    async complete(request: CompletionRequest, signal?: AbortSignal): Promise<CompletionOutcome> {
        const settings = this.deps.settings?.() ?? DEFAULT_COMPLETION_SETTINGS;
        const { prefix, suffix } = cursorWindow(request.text, request.offset, settings.context);
        const cached = this.cache.get(request.file, prefix, suffix);
        if (cached !== undefined) {
            return { text: cached, source: 'cache' };
        }
        const reused = await this.typeAheadInto(request.file, prefix, suffix, signal);
        if (reused) {
            return reused;
        }
        if (signal?.aborted) {
            // The caller gave up while waiting for the request under way: start nothing new.
            throw new CancelledError();
        }
        this.cancel();
        const controller = new AbortController();
        const abort = () => controller.abort();
        signal?.addEventListener('abort', abort, { once: true });
        const result = this.request(request, { prefix, suffix }, settings, controller.signal);
        const entry: InFlight = { file: request.file, prefix, suffix, controller, result };
        this.inFlight = entry;
        try {
            const outcome = await result;
            this.cache.put(request.file, prefix, suffix, outcome.text);
            return outcome;
        } finally {
            signal?.removeEventListener('abort', abort);
            if (this.inFlight === entry) {
                this.inFlight = undefined;
            }
        }
    }

    /** Cancels the request under way, if any. */
    cancel(): void {
        this.inFlight?.controller.abort();
        this.inFlight = undefined;
    }

    /** The user typed on from where a request is still running: its answer, minus what was typed, if it still fits. */
    private async typeAheadInto(file: string, prefix: string, suffix: string, signal?: AbortSignal): Promise<CompletionOutcome | undefined> {
        const running = this.inFlight;
        if (!running || running.file !== file || running.suffix !== suffix || !prefix.startsWith(running.prefix) || prefix === running.prefix) {
            return undefined;
        }
        const typed = prefix.slice(running.prefix.length);
        // Its failure, or this caller giving up, leaves nothing to reuse.
        const outcome = await untilAborted(running.result, signal).catch(() => undefined);
        if (!outcome || !outcome.text.startsWith(typed) || outcome.text.length === typed.length) {
            return undefined;
        }
        return { ...outcome, text: outcome.text.slice(typed.length), source: 'in-flight' };
    }

    private async request(request: CompletionRequest, around: { prefix: string; suffix: string }, settings: CompletionSettings, signal: AbortSignal): Promise<CompletionOutcome> {
        const agent = this.deps.agentFor(request);
        const completion: CompletionInput = {
            ...around, language: request.language, filePath: request.relativePath,
            files: filesWithinBudget(request.openFiles ?? [], settings.openFilesBudget, this.deps.estimator)
        };
        const singleLine = isSingleLine(around, settings.postprocess);
        // A FIM model's first line is code; an instruct model may write a line of prose before its fence.
        const firstLineDone = CHAT_PROTOCOLS.has(agent.protocol) ? hasFirstFencedLine : hasCompleteFirstLine;
        let text = '';
        let requestId: string | undefined;
        const { ended, observe } = requestEnd();
        let stoppedEarly = false;
        const session = await this.deps.sessions.acquire(agent.name, (events: readonly SessionEvent[]) => {
            this.deps.onEvents?.(events);
            for (const event of events) {
                observe(event);
                if (event.type === 'RequestStarted') {
                    requestId = event.requestId;
                } else if (event.type === 'TextDelta') {
                    text += event.text;
                    if (singleLine && !stoppedEarly && firstLineDone(text)) {
                        // One line is all the cursor can take: stop paying for the rest.
                        stoppedEarly = true;
                        void session.cancel();
                    }
                }
            }
        });
        const abort = () => void session.cancel();
        try {
            if (signal.aborted) {
                throw new CancelledError();
            }
            signal.addEventListener('abort', abort, { once: true });
            if (request.environment) {
                // The file line is the completion's own (ctx.file_info). No root: completion requests, sent as the
                // user types, carry no absolute path (it names the user and tells the model nothing about the code).
                session.setLayer(ENV_PROJECT_LAYER, formatProject({ ...request.environment, workspaceRoot: undefined, activeFile: undefined, language: undefined }));
            }
            await session.send([], {}, completion);
            const end = await ended;
            if (end.error) {
                throw new QodeAssistError(end.error);
            }
            if (end.cancelled && !stoppedEarly) {
                throw new CancelledError();
            }
            return { text: postprocessCompletion(text, { ...around, language: request.language }, settings.postprocess), source: 'model', agent: agent.name, requestId };
        } finally {
            signal.removeEventListener('abort', abort);
            await this.deps.sessions.release(session);
        }
    }
}

/** The first line is complete: a newline after some code (a fence or a think block is not code yet). */
function hasCompleteFirstLine(text: string): boolean {
    const thinking = /<think>(?![\s\S]*<\/think>)/.test(text);
    const visible = stripThinking(text, { prefix: '', suffix: '' }, DEFAULT_POSTPROCESS).replace(/^\s+/, '');
    return !thinking && !visible.startsWith('```') && /\S[^\n]*\n/.test(visible);
}

/** An instruct answer's first line of code is complete: the line after an opening fence. Unfenced answers run to their end. */
function hasFirstFencedLine(text: string): boolean {
    const visible = stripThinking(text, { prefix: '', suffix: '' }, DEFAULT_POSTPROCESS);
    return /(^|\n)[ \t]*```[^\n]*\n[ \t]*\S[^\n]*\n/.test(visible);
}
