import { RequestCancelled, RequestFailed, RequestFinished, RequestStarted } from '../session/session-events';
import type { AcpContent, AcpLocation, AcpPlanEntry, AcpToolCallState, AcpToolContent, AcpToolKind, AcpToolStatus } from '../context/agent-activity';
import { FileEditRecord, RequestId, TextDelta, ThinkingDelta, ToolCallStart, ToolResult } from '../wire/events';

/**
 * What an external agent's session tells the chat. Message and thought text, the start of a
 * tool call and its end reuse the chat's own events (TextDelta, ThinkingDelta, ToolCallStart,
 * ToolResult); what only ACP agents report has its own typed event. Every event is plain data
 * that survives JSON-RPC to the frontend.
 */

export type { AcpContent, AcpLocation, AcpPlanEntry, AcpToolCallState, AcpToolContent, AcpToolKind, AcpToolStatus };

/** A tool call appeared (`first`) or changed: the whole state after the change. */
export interface AcpToolCallEvent {
    type: 'AcpToolCall';
    requestId: RequestId;
    call: AcpToolCallState;
    first: boolean;
}

/** The agent's plan, whole: each plan replaces the previous one. */
export interface AcpPlanEvent {
    type: 'AcpPlan';
    requestId: RequestId;
    entries: AcpPlanEntry[];
}

export interface AcpCommand {
    name: string;
    description: string;
    /** What to type after the command, when it takes input. */
    hint?: string;
}

/** The slash commands the agent offers now (replaces the previous list). */
export interface AcpCommandsEvent {
    type: 'AcpCommands';
    requestId: RequestId;
    commands: AcpCommand[];
}

export interface AcpMode {
    id: string;
    name: string;
    description?: string;
}

/** The session's mode changed (or is first known: then with the modes to choose from). */
export interface AcpModeEvent {
    type: 'AcpMode';
    requestId: RequestId;
    currentModeId: string;
    availableModes?: AcpMode[];
}

/** A chunk of a user message: the agent replays them when a session is loaded. */
export interface AcpUserMessageEvent {
    type: 'AcpUserMessage';
    requestId: RequestId;
    content: AcpContent;
}

/** A chunk of the agent's answer or thought that is not text (an image, a resource). */
export interface AcpContentEvent {
    type: 'AcpContent';
    requestId: RequestId;
    role: 'agent' | 'thought';
    content: AcpContent;
}

/** What the agent reports of its context window; ACP agents report no per-request token counts. */
export interface AcpUsageEvent {
    type: 'AcpUsage';
    requestId: RequestId;
    /** Tokens in the context now. */
    used: number;
    /** The context window. */
    size: number;
    cost?: { amount: number; currency: string };
}

/** Something to tell the user: the agent's own notices, or what QodeAssist left out of a prompt. */
export interface AcpNoticeEvent {
    type: 'AcpNotice';
    requestId: RequestId;
    severity: string;
    title: string;
    description?: string;
}

/** The agent wrote a file through the IDE: the diff the chat shows (the editor holds the undo). */
export interface AcpFileWriteEvent {
    type: 'AcpFileWrite';
    requestId: RequestId;
    edit: FileEditRecord;
}

export type AcpUpdateEvent =
    | TextDelta | ThinkingDelta | ToolCallStart | ToolResult
    | AcpToolCallEvent | AcpPlanEvent | AcpCommandsEvent | AcpModeEvent | AcpUserMessageEvent | AcpContentEvent | AcpUsageEvent | AcpNoticeEvent;

/** Everything an ACP session emits: a turn is framed by RequestStarted and exactly one of Finished, Failed, Cancelled. */
export type AcpEvent = RequestStarted | AcpUpdateEvent | AcpFileWriteEvent | RequestFinished | RequestFailed | RequestCancelled;

export type AcpTurnEnd = RequestFinished | RequestFailed | RequestCancelled;
