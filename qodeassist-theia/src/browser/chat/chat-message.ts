import type { ContextManifest, ErrorInfo, FileChangeView, FileEditRecord, StoredFileEdit } from '@qodeassist/core';
import type { AgentPart } from './agent-activity';
import type { RequestUsage, UsageSum } from './chat-usage';

// A chat message as the view shows it, and how to read its parts; ChatTranscript builds them from the session's events.

/** `interrupted`: a saved answer that had not ended when the IDE backend stopped (what had arrived is kept). */
export type ChatMessageStatus = 'streaming' | 'done' | 'cancelled' | 'failed' | 'interrupted';

/** A file edit as the chat shows it: applied by the tool, undone by the user, or a failed undo/reapply. */
export interface FileEditView {
    /** The key the backend keeps the edit under (see editIdOf). */
    id: string;
    record: FileEditRecord;
    state: StoredFileEdit['state'];
    /** Why the last undo or reapply did not work (the file changed since, …). */
    problem?: string;
}

/** One tool call of an answer, as the chat shows it. */
export interface ToolActivity {
    callId: string;
    name: string;
    arguments?: Record<string, unknown>;
    status: 'running' | 'done' | 'error';
    result?: string;
    edit?: FileEditView;
}

/**
 * The pieces of an answer in the order they streamed. A text is kept as the deltas it was
 * built from (`partText` joins them): the view reads only the new ones, so the whole text is
 * never re-read per batch.
 */
export type MessagePart =
    | { kind: 'text' | 'thinking'; chunks: string[] }
    | { kind: 'tool'; tool: ToolActivity }
    | AgentPart;

export interface AttachmentView {
    name: string;
    mediaType: string;
}

export interface ChatMessage {
    id: number;
    role: 'user' | 'assistant';
    parts: MessagePart[];
    status: ChatMessageStatus;
    attachments: AttachmentView[];
    requestId?: string;
    /** Which agent and model answered, from the request's start. */
    agent?: string;
    model?: string;
    error?: ErrorInfo;
    /** The whole turn's usage: every request of its tool loop added up (`requests` has each). */
    usage?: UsageSum;
    requests?: RequestUsage[];
    /** What the assembler put into the request this answer came from. */
    manifest?: ContextManifest;
    /** A skill the user invoked with `/name`. */
    skill?: string;
    /** On a summary: the chat it summarizes. */
    compressedFrom?: string;
    /** On a turn this view sent (its message and answer): the id it went under, to know it again in the chat's events. */
    turnId?: string;
    /** On this view's message: the backend holds it until the answer another window asked for has ended. */
    queued?: boolean;
    /** On a streaming answer: the IDE backend cannot be reached, so nothing arrives for now. */
    stalled?: boolean;
    /** On an answer: its question is in the chat's history, so Retry asks the backend again instead of sending the text anew. */
    recorded?: boolean;
    /** What an external agent reported of its context window (it reports no per-request token counts). */
    agentContext?: { used: number; size: number; cost?: { amount: number; currency: string } };
    /** On an external agent's answer: the files it changed on disk during its turn (checkpoint before vs after), and the turn they belong to. */
    diskChanges?: { turn: number; files: FileChangeView[] };
    /** Goes up with every change, so a view can skip messages that did not change. */
    revision: number;
}

/** The whole text of a text or thinking part. */
export function partText(part: { chunks: readonly string[] }): string {
    return part.chunks.join('');
}

/** All text of a message, in order (for copying, retry and tests). */
export function textOf(message: ChatMessage): string {
    return message.parts.flatMap(part => part.kind === 'text' ? [partText(part)] : []).join('');
}

export function thinkingOf(message: ChatMessage): string {
    return message.parts.flatMap(part => part.kind === 'thinking' ? [partText(part)] : []).join('');
}

export function toolsOf(message: ChatMessage): ToolActivity[] {
    return message.parts.flatMap(part => part.kind === 'tool' ? [part.tool] : []);
}
