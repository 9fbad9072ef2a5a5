import { ErrorInfo } from './error-info';

/** Correlates feature → session → provider → client → events → logs. */
export type RequestId = string;

/** Provider stop reasons normalized across protocols. */
export type StopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'stop_sequence' | 'content_filter' | 'other';

export interface TextDelta {
    type: 'TextDelta';
    requestId: RequestId;
    text: string;
}

export interface ThinkingDelta {
    type: 'ThinkingDelta';
    requestId: RequestId;
    text: string;
    /** Present where the protocol signs thinking (Claude, Gemini). */
    signature?: string;
}

export interface ToolCallStart {
    type: 'ToolCallStart';
    requestId: RequestId;
    callId: string;
    name: string;
}

export interface ToolCallEnd {
    type: 'ToolCallEnd';
    requestId: RequestId;
    callId: string;
    name: string;
    arguments: Record<string, unknown>;
}

/** A file a tool created or changed: enough for the chat to show the diff and undo or reapply it. */
export interface FileEditRecord {
    /** Workspace-relative, as the user reads it. */
    path: string;
    absolutePath: string;
    /** Unified diff from the previous content to the new one. */
    diff: string;
    /** The file did not exist before. */
    created: boolean;
}

/** The outcome of one tool call, as fed back to the model in the next round. */
export interface ToolResult {
    type: 'ToolResult';
    requestId: RequestId;
    callId: string;
    name: string;
    content: string;
    isError: boolean;
    /** Set when the call wrote a file. */
    fileEdit?: FileEditRecord;
    /** How many images went with the result (their bytes are in the history, not in the event). */
    imageCount?: number;
}

export interface Usage {
    type: 'Usage';
    requestId: RequestId;
    inputTokens: number;
    outputTokens: number;
    cachedTokens?: number;
    reasoningTokens?: number;
}

export interface MessageStop {
    type: 'MessageStop';
    requestId: RequestId;
    stopReason: StopReason;
    /** The provider's own word for it, when it differs from the normalized one. */
    providerReason?: string;
}

export interface ErrorEvent {
    type: 'Error';
    requestId: RequestId;
    error: ErrorInfo;
}

/** What every wire client emits, whatever the protocol. */
export type ResponseEvent = TextDelta | ThinkingDelta | ToolCallStart | ToolCallEnd | ToolResult | Usage | MessageStop | ErrorEvent;
