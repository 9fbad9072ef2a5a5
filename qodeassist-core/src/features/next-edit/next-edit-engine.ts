import { ResolvedAgent } from '../../agents/configuration-loader';
import { requestEnd, SessionEvent } from '../../session/session-events';
import { SessionManager } from '../../session/session-manager';
import { CancelledError, QodeAssistError } from '../../wire/error-info';
import { CHAT_PROTOCOLS } from '../../wire/wire-protocols';
import { DEFAULT_EDIT_EVENTS, EditEventsOptions, editEvents } from './edit-events';
import { DEFAULT_REGION, editableRegion, lineAt, lineStarts, RegionOptions } from './edit-region';
import { rewrittenRegion } from './next-edit-answer';
import { DEFAULT_OTHER_FILE_EDITS, OtherFileEdit, otherFileEvents, OtherFileEditsOptions } from './other-file-edits';
import { smallestEdits, TextEdit } from './smallest-edits';

/** One ask for the next edit: the document as it is now, and as it was before the user's recent edits. */
export interface NextEditRequest {
    /** Absolute path. */
    file: string;
    /** Workspace-relative path, for the agents' [match] rules and the prompt. */
    relativePath: string;
    language: string;
    text: string;
    /** The cursor, as an offset into `text`. */
    offset: number;
    /** The document before the recent edits (the recent edits are its diff to `text`); `text` itself when unknown. */
    previous: string;
    /** The editor's version of `text`: a suggestion for another version is stale. */
    version: number;
    project?: string;
    /** Recent edits of other files the model may see (the caller checked each against the workspace and its ignore rules). */
    otherEdits?: readonly OtherFileEdit[];
}

export interface NextEditSettings {
    region: RegionOptions;
    events: EditEventsOptions;
    /** Other files' recent edits; absent: the defaults. */
    otherFiles?: OtherFileEditsOptions;
}

export const DEFAULT_NEXT_EDIT_SETTINGS: NextEditSettings = { region: DEFAULT_REGION, events: DEFAULT_EDIT_EVENTS, otherFiles: DEFAULT_OTHER_FILE_EDITS };

/** The model's next edit as the smallest replacements in the document it was asked for. */
export interface NextEditSuggestion {
    /** The document version the offsets are for. */
    version: number;
    /** Offsets into the request's `text`, in document order; empty when the model kept the region as it was. */
    edits: TextEdit[];
    /** The editable region (offsets into the request's `text`) and its text then: a changed region makes the suggestion stale. */
    regionStart: number;
    regionEnd: number;
    regionText: string;
    agent: string;
    requestId?: string;
}

export interface NextEditEngineDeps {
    /** The next_edit roster's agent for this request (throws a Config error when there is none). */
    agentFor(request: NextEditRequest): ResolvedAgent;
    sessions: SessionManager;
    settings?(): NextEditSettings;
    onEvents?(events: readonly SessionEvent[]): void;
}

/**
 * Next edit suggestions: the recent edits and the editable region around the cursor go to the
 * next_edit agent; its rewrite of the region comes back as the smallest edits. One request at a
 * time: a new one cancels the one under way (its answer would be for an older text).
 */
export class NextEditEngine {
    private running: AbortController | undefined;

    constructor(private readonly deps: NextEditEngineDeps) { }

    async suggest(request: NextEditRequest, signal?: AbortSignal): Promise<NextEditSuggestion> {
        this.cancel();
        const controller = new AbortController();
        this.running = controller;
        const abort = () => controller.abort();
        signal?.addEventListener('abort', abort, { once: true });
        try {
            if (signal?.aborted) {
                throw new CancelledError();
            }
            return await this.request(request, controller.signal);
        } finally {
            signal?.removeEventListener('abort', abort);
            if (this.running === controller) {
                this.running = undefined;
            }
        }
    }

    cancel(): void {
        this.running?.abort();
        this.running = undefined;
    }

    private async request(request: NextEditRequest, signal: AbortSignal): Promise<NextEditSuggestion> {
        const settings = this.deps.settings?.() ?? DEFAULT_NEXT_EDIT_SETTINGS;
        const agent = this.deps.agentFor(request);
        const region = editableRegion(request.text, request.offset, settings.region);
        const cursorLine = lineAt(lineStarts(request.text), request.offset);
        const events = editEvents(request.relativePath, request.previous, request.text, cursorLine, settings.events);
        const otherEvents = otherFileEvents((request.otherEdits ?? []).filter(edit => edit.relativePath !== request.relativePath), settings.otherFiles ?? DEFAULT_OTHER_FILE_EDITS);
        const regionText = request.text.slice(region.start, region.end);
        let answer = '';
        let requestId: string | undefined;
        const { ended, observe } = requestEnd();
        const session = await this.deps.sessions.acquire(agent.name, (batch: readonly SessionEvent[]) => {
            this.deps.onEvents?.(batch);
            for (const event of batch) {
                observe(event);
                if (event.type === 'RequestStarted') {
                    requestId = event.requestId;
                } else if (event.type === 'TextDelta') {
                    answer += event.text;
                }
            }
        });
        const abort = () => void session.cancel();
        try {
            if (signal.aborted) {
                throw new CancelledError();
            }
            signal.addEventListener('abort', abort, { once: true });
            await session.send([], {}, {
                prefix: '', suffix: '', language: request.language, filePath: request.relativePath,
                nextEdit: {
                    events, other_events: otherEvents, before: region.before, after: region.after, region_before_cursor: region.beforeCursor, region_after_cursor: region.afterCursor,
                    start_of_file: region.startOfFile
                }
            });
            const end = await ended;
            if (end.error) {
                throw new QodeAssistError(end.error);
            }
            if (end.cancelled || signal.aborted) {
                throw new CancelledError();
            }
            const rewritten = rewrittenRegion(answer, CHAT_PROTOCOLS.has(agent.protocol) ? 'fenced' : 'region-markers', regionText);
            const edits = smallestEdits(regionText, rewritten).map(edit => ({ ...edit, offset: edit.offset + region.start }));
            return { version: request.version, edits, regionStart: region.start, regionEnd: region.end, regionText, agent: agent.name, requestId };
        } finally {
            signal.removeEventListener('abort', abort);
            await this.deps.sessions.release(session);
        }
    }
}

/**
 * Why a suggestion no longer fits the document, or undefined when it still does: another version
 * (the user typed since it was asked), or the region's text changed under it.
 */
export function staleReason(suggestion: Pick<NextEditSuggestion, 'version' | 'regionStart' | 'regionEnd' | 'regionText'>, current: { version: number; text: string }): 'typed' | 'changed' | undefined {
    if (current.version !== suggestion.version) {
        return 'typed';
    }
    return current.text.slice(suggestion.regionStart, suggestion.regionEnd) === suggestion.regionText ? undefined : 'changed';
}
