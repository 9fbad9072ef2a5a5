import type { AcpPlanEntry, AcpToolCallState, FileEditRecord, HistoryBlock, StoredFileEdit } from '@qodeassist/core';

/**
 * An external (ACP) agent's work in an answer, as the transcript shows it: each tool call at its
 * latest state where it first appeared, and the plan — one per answer, replaced by each new plan.
 * Pure: the transcript applies events and history blocks here; the view renders the parts.
 */
export type AgentPart =
    | { kind: 'agent-call'; call: AcpToolCallState }
    | { kind: 'plan'; entries: AcpPlanEntry[] };

/** The parts of an answer an agent's tool call or plan goes into: updated in place, else added. */
export function applyAgentCall(parts: Array<{ kind: string }>, call: AcpToolCallState): void {
    const at = parts.findIndex(part => part.kind === 'agent-call' && (part as Extract<AgentPart, { kind: 'agent-call' }>).call.callId === call.callId);
    const part: AgentPart = { kind: 'agent-call', call };
    if (at >= 0) {
        parts[at] = part;
    } else {
        parts.push(part);
    }
}

export function applyPlan(parts: Array<{ kind: string }>, entries: AcpPlanEntry[]): void {
    const at = parts.findIndex(part => part.kind === 'plan');
    const part: AgentPart = { kind: 'plan', entries };
    if (at >= 0) {
        parts[at] = part;
    } else {
        parts.push(part);
    }
}

/** A file an agent wrote through the editor, as the tool activity the transcript shows with Undo, from the chat's edit record. */
export function agentWriteActivity(editId: string, record: FileEditRecord, state: StoredFileEdit['state']) {
    return { callId: editId, name: `${record.created ? 'create' : 'write'} ${record.path}`, status: 'done' as const, edit: { id: editId, record, state } };
}

/** A history block of an agent's answer as a part, or undefined for blocks that are not an agent's. */
export function agentPartOf(block: HistoryBlock): AgentPart | undefined {
    if (block.type === 'agent_tool_call') {
        return { kind: 'agent-call', call: block.call };
    }
    if (block.type === 'agent_plan') {
        return { kind: 'plan', entries: block.entries };
    }
    return undefined;
}

/** The unified diff a tool call's diff content shows: its patch, else every old line removed and every new line added. */
export function diffText(content: { path: string; oldText?: string; newText: string; patch?: string }): string {
    if (content.patch) {
        return content.patch;
    }
    const lines = (text: string | undefined, sign: string) => text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n').map(line => `${sign}${line}`);
    return [`@@ ${content.path} @@`, ...lines(content.oldText, '-'), ...lines(content.newText, '+')].join('\n');
}

const STATUS_LABELS: Record<AcpToolCallState['status'], string> = { pending: 'waiting', in_progress: 'running', completed: 'done', failed: 'failed' };

/** The status as the view words it. */
export function statusLabel(status: AcpToolCallState['status']): string {
    return STATUS_LABELS[status];
}
