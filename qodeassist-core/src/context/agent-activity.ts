/**
 * What an external coding agent (Agent Client Protocol) did in a turn, as plain data: its tool
 * calls as it last described them, and its plan. The ACP client reports them as events; a chat
 * keeps them in its history (`agent_tool_call`, `agent_plan` blocks) so a reopened chat shows them.
 */

export type AcpToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';
export type AcpToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** A file a tool call works on; the chat opens it on click. */
export interface AcpLocation {
    /** Absolute, as the agent sent it. */
    path: string;
    /** 1-based. */
    line?: number;
}

/** A piece of message content (a chunk of the agent's answer, a replayed user message, a tool call's output). */
export type AcpContent =
    | { type: 'text'; text: string }
    | { type: 'image'; mimeType: string; data?: string; uri?: string }
    | { type: 'audio'; mimeType: string }
    /** A resource link, or an embedded resource with its text. */
    | { type: 'resource'; uri: string; name?: string; mimeType?: string; text?: string };

/** What a tool call shows: content, a file diff (with its unified patch when small enough), or a terminal the client runs. */
export type AcpToolContent =
    | { type: 'content'; content: AcpContent }
    | { type: 'diff'; path: string; oldText?: string; newText: string; patch?: string }
    | { type: 'terminal'; terminalId: string };

/** A tool call as known after its latest update (ACP updates replace the fields they carry). */
export interface AcpToolCallState {
    callId: string;
    title: string;
    kind: AcpToolKind;
    status: AcpToolStatus;
    locations: AcpLocation[];
    content: AcpToolContent[];
    rawInput?: unknown;
    rawOutput?: unknown;
}

export interface AcpPlanEntry {
    content: string;
    priority: 'high' | 'medium' | 'low';
    status: 'pending' | 'in_progress' | 'completed';
}

/** One line saying what an external agent's tool call was and how it ended, for a model that takes the chat over and for exports. */
export function describeAgentToolCall(agent: string, call: AcpToolCallState): string {
    const where = call.locations.length > 0 ? ` (${call.locations.slice(0, 3).map(place => place.path + (place.line ? `:${place.line}` : '')).join(', ')}${call.locations.length > 3 ? ', …' : ''})` : '';
    return `[${agent} ran a ${call.kind} tool: ${call.title}${where} — ${call.status.replace('_', ' ')}]`;
}

/** The plan as a checklist, for exports and a model that takes the chat over. */
export function describeAgentPlan(agent: string, entries: readonly AcpPlanEntry[]): string {
    const marks = { completed: 'x', in_progress: '~', pending: ' ' } as const;
    return [`[${agent}'s plan]`, ...entries.map(entry => `- [${marks[entry.status]}] ${entry.content}`)].join('\n');
}
