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

/** The outcome of one tool call, as fed back to the model in the next round. */
export interface ToolResult {
    type: 'ToolResult';
    requestId: RequestId;
    callId: string;
    name: string;
    content: string;
    isError: boolean;
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
