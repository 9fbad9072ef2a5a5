import { ResolvedAgent } from '../../agents/configuration-loader';
import { CompletionInput } from '../../context/context-assembler';
import { ENV_PROJECT_LAYER, EnvFacts, formatProject } from '../../context/env-block';
import { filesWithinBudget } from '../../context/open-files';
import { TokenEstimator } from '../../context/token-estimator';
import { requestEnd, SessionEvent } from '../../session/session-events';
import { SessionManager } from '../../session/session-manager';
import { CancelledError, QodeAssistError, untilAborted } from '../../wire/error-info';
import { CHAT_PROTOCOLS } from '../../wire/wire-protocols';
import { CompletionCache } from './completion-cache';
import { completionContextFor, CrossFileFacts, DEFAULT_CONTEXT_BUDGET } from './context/cross-file-context';
import { ContextSnippetRecord } from './context/context-snippet';
import { CompletionContextRetriever } from './context/context-retriever';
import { CompletionContextOptions, cursorWindow, DEFAULT_CONTEXT } from './completion-context';
import { DEFAULT_POSTPROCESS, isSingleLine, postprocessCompletion, PostprocessOptions, stripThinking } from './completion-postprocess';

/** One ask for a completion: where the cursor is, in which file. */
export interface CompletionRequest extends CrossFileFacts {
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
    /** Tokens of cross-file context (definitions, recent edits, similar code) for agents without `completion_context_tokens`; 0: none. */
    contextBudget?: number;
}

export const DEFAULT_COMPLETION_SETTINGS: CompletionSettings = { context: DEFAULT_CONTEXT, postprocess: DEFAULT_POSTPROCESS, openFilesBudget: 0, contextBudget: DEFAULT_CONTEXT_BUDGET };

export interface CompletionOutcome {
    /** What to insert at the cursor; empty when the model had nothing useful. */
    text: string;
    /** Where it came from: the cache, a request already under way for an earlier prefix, or a new request. */
    source: 'cache' | 'in-flight' | 'model';
    agent?: string;
    requestId?: string;
    /** The cross-file context the request sent, snippet by snippet with its tokens (the completion log lists it). */
    context?: ContextSnippetRecord[];
}

interface InFlight {
    file: string;
    /** The document before and after the cursor it was asked at: typing ahead is judged on these, not on the window (which shifts at a new line). */
    before: string;
    after: string;
    controller: AbortController;
    result: Promise<CompletionOutcome>;
    /** Callers waiting for it (the one that started it and those typing ahead into it): it is cancelled when the last one gives up. */
    waiters: number;
    /** A newer request took its place: its waiters get a cancellation, not a reason to ask again. */
    replaced: boolean;
}

export interface CompletionEngineDeps {
    /** The completion roster's agent for this request (throws a Config error when there is none). */
    agentFor(request: CompletionRequest): ResolvedAgent;
    sessions: SessionManager;
    estimator: TokenEstimator;
    cache?: CompletionCache;
    /** Cross-file context and its file cache; one is made when not given. */
    retriever?: CompletionContextRetriever;
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

    readonly retriever: CompletionContextRetriever;

    constructor(private readonly deps: CompletionEngineDeps) {
        this.cache = deps.cache ?? new CompletionCache();
        this.retriever = deps.retriever ?? new CompletionContextRetriever(text => deps.estimator.estimateText(text));
    }

    async complete(request: CompletionRequest, signal?: AbortSignal): Promise<CompletionOutcome> {
        const settings = this.deps.settings?.() ?? DEFAULT_COMPLETION_SETTINGS;
        const { prefix, suffix } = cursorWindow(request.text, request.offset, settings.context);
        const reused = await this.reuse(request, signal);
        if (reused) {
            return reused;
        }
        if (signal?.aborted) {
            // The caller gave up while waiting for the request under way: start nothing new.
            throw new CancelledError();
        }
        this.cancel();
        const controller = new AbortController();
        const result = this.request(request, { prefix, suffix }, settings, controller.signal).then(outcome => {
            this.cache.put(request.file, prefix, suffix, outcome.text);
            return outcome;
        });
        const entry: InFlight = {
            file: request.file, before: request.text.slice(0, request.offset), after: request.text.slice(request.offset), controller, result, waiters: 0, replaced: false
        };
        this.inFlight = entry;
        // The request lives until it settles, not until its first caller leaves: callers typing ahead may still wait for it.
        result.finally(() => {
            if (this.inFlight === entry) {
                this.inFlight = undefined;
            }
        }).catch(() => undefined);
        return this.wait(entry, signal);
    }

    /**
     * What can be had without asking the model: the cache, or the request under way when the user typed ahead into
     * its answer (the typed text is a start of it: the rest is served). Undefined when neither fits.
     */
    async reuse(request: CompletionRequest, signal?: AbortSignal): Promise<CompletionOutcome | undefined> {
        const settings = this.deps.settings?.() ?? DEFAULT_COMPLETION_SETTINGS;
        const { prefix, suffix } = cursorWindow(request.text, request.offset, settings.context);
        const cached = this.cache.get(request.file, prefix, suffix);
        if (cached !== undefined) {
            return { text: cached, source: 'cache' };
        }
        return this.typeAheadInto(request, signal);
    }

    /** Cancels the request under way, if any. */
    cancel(): void {
        if (this.inFlight) {
            this.inFlight.replaced = true;
            this.inFlight.controller.abort();
        }
        this.inFlight = undefined;
    }

    /** One more caller waits for the request under way; when every caller has given up, the request goes too. */
    private async wait(entry: InFlight, signal?: AbortSignal): Promise<CompletionOutcome> {
        entry.waiters++;
        try {
            return await untilAborted(entry.result, signal);
        } finally {
            if (--entry.waiters === 0 && signal?.aborted) {
                entry.controller.abort();
            }
        }
    }

    /** The user typed on from where a request is still running: its answer, minus what was typed, if it still fits. */
    private async typeAheadInto(request: CompletionRequest, signal?: AbortSignal): Promise<CompletionOutcome | undefined> {
        const running = this.inFlight;
        const before = request.text.slice(0, request.offset);
        if (!running || running.file !== request.file || before.length <= running.before.length
            || request.text.slice(request.offset) !== running.after || !before.startsWith(running.before)) {
            return undefined;
        }
        const typed = before.slice(running.before.length);
        let outcome: CompletionOutcome;
        try {
            outcome = await this.wait(running, signal);
        } catch {
            if (running.replaced || signal?.aborted) {
                // A newer position took over, or this caller left: nothing to ask for here.
                throw new CancelledError();
            }
            // Its failure leaves nothing to reuse: the caller asks anew.
            return undefined;
        }
        if (!outcome.text.startsWith(typed) || outcome.text.length === typed.length) {
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
        // Open files sent whole need no similar windows of their own.
        const context = await completionContextFor(this.retriever, agent, { ...request, openFiles: request.openFiles?.filter(file => !completion.files!.includes(file)) },
            around, settings.contextBudget, signal);
        if (context) {
            completion.repoFiles = context.repoFiles;
            completion.repoName = context.repoName;
        }
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
            return { text: postprocessCompletion(text, { ...around, language: request.language }, settings.postprocess), source: 'model', agent: agent.name, requestId, ...context?.records.length ? { context: context.records } : {} };
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
