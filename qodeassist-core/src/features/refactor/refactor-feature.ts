import { ResolvedAgent } from '../../agents/configuration-loader';
import { messageText } from '../../context/conversation-history';
import { ENV_PROJECT_LAYER, EnvFacts, formatProject } from '../../context/env-block';
import { ToolPolicy } from '../../session/session';
import { requestEnd, SessionEvent } from '../../session/session-events';
import { SessionManager } from '../../session/session-manager';
import { CancelledError, QodeAssistError } from '../../wire/error-info';
import { cleanRefactorResponse, hasFencedBlock } from './refactor-response';
import { DEFAULT_LINES_AROUND, IndentStyle, refactorLayer, RefactorTarget, selectionIndent } from './refactor-prompt';

/** One quick refactor: what to rewrite and how. */
export interface RefactorRequest {
    target: RefactorTarget;
    instruction: string;
    indent: IndentStyle;
    /** Whole lines shown around the selection; default 60. */
    linesAround?: number;
    openFiles?: ReadonlyArray<{ path: string; content: string }>;
    /** Where the user works (`environmentFacts`): set as the `env.project` layer; the file line stays in the `refactor` layer. */
    environment?: EnvFacts;
}

export interface RefactorRun {
    agent: ResolvedAgent;
    sessions: SessionManager;
    /** Tools the model may call, with the executor that asks the user before writing or running anything. */
    tools?: ToolPolicy;
    /** Thinking on or off for this request; absent: as the agent is configured. */
    thinking?: boolean;
    /** The cleaned replacement so far, after every chunk of the answer. */
    onProposal?(text: string): void;
    /** Every session event, for progress (tool calls, the agent answering). */
    onEvents?(events: readonly SessionEvent[]): void;
    signal?: AbortSignal;
}

export interface RefactorResult {
    /** The code that replaces the selection. */
    text: string;
    /** The model's final answer as it came. */
    raw: string;
    agent: string;
    requestId?: string;
}

/**
 * What a refactor sends and how its answer is read: the `refactor` system layer, and the
 * cleaner that turns an answer (whole, or still streaming) into the selection's replacement.
 * The IDE's refactor and the bench CLI's use the same.
 */
export function refactorPlan(request: RefactorRequest): { layer: string; clean(answer: string, partial: boolean): string } {
    const { target } = request;
    const { indent, startsMidLine } = selectionIndent(target);
    const endsWithNewline = target.text.slice(target.selection.start, target.selection.end).endsWith('\n');
    return {
        layer: refactorLayer(target, { linesAround: request.linesAround ?? DEFAULT_LINES_AROUND, indent: request.indent, openFiles: request.openFiles }),
        clean: (answer, partial) => cleanRefactorResponse(answer, { baseIndent: indent, startsMidLine, endsWithNewline, indent: request.indent, partial })
    };
}

/**
 * The refactor pipeline (seeds §5.3): a fresh session of the refactor agent, the `refactor`
 * layer with the marked selection, the instruction as the user message, tools through the
 * caller's gated executor; the proposal streams out cleaned, and the result is read from the
 * history's last assistant message once the request finished. Nothing is written anywhere:
 * applying the result is the editor's business.
 */
export async function runRefactor(request: RefactorRequest, run: RefactorRun): Promise<RefactorResult> {
    const instruction = request.instruction.trim();
    if (!instruction) {
        throw new QodeAssistError({ category: 'Validation', message: 'The refactor instruction is empty. Type what to change, or pick a saved instruction.' });
    }
    const { layer, clean } = refactorPlan(request);
    let round = '';
    let requestId: string | undefined;
    const { ended, observe } = requestEnd();
    const session = await run.sessions.acquire(run.agent.name, events => {
        run.onEvents?.(events);
        let grew = false;
        for (const event of events) {
            observe(event);
            if (event.type === 'RequestStarted') {
                requestId = event.requestId;
            } else if (event.type === 'TextDelta') {
                round += event.text;
                grew = true;
            } else if (event.type === 'ToolCallStart') {
                // Text before a tool call is the model thinking aloud; the answer comes after the last round.
                round = '';
                grew = true;
            }
        }
        if (grew) {
            run.onProposal?.(clean(round, true));
        }
    });
    const abort = () => void session.cancel();
    try {
        if (run.signal?.aborted) {
            throw new CancelledError();
        }
        run.signal?.addEventListener('abort', abort, { once: true });
        session.setLayer('refactor', layer);
        if (request.environment) {
            session.setLayer(ENV_PROJECT_LAYER, formatProject({ ...request.environment, activeFile: undefined, language: undefined }));
        }
        session.setThinking(run.thinking);
        await session.send([{ type: 'text', text: instruction }], run.tools ?? {});
        const end = await ended;
        if (end.error) {
            throw new QodeAssistError(end.error);
        }
        if (end.cancelled) {
            throw new CancelledError();
        }
        const last = session.history.at(-1);
        const raw = last?.role === 'assistant' ? messageText(last) : '';
        const text = clean(raw, false);
        if (!text.trim() && !hasFencedBlock(raw)) {
            // An empty fenced block is an answer (delete the selection); no code at all is not.
            throw new QodeAssistError({ category: 'Provider', message: `The agent "${run.agent.name}" answered without any code${raw.trim() ? `: "${raw.trim().slice(0, 200)}"` : ''}. Try again, or say more precisely what to change.` });
        }
        return { text, raw, agent: run.agent.name, requestId };
    } finally {
        run.signal?.removeEventListener('abort', abort);
        await run.sessions.release(session);
    }
}
