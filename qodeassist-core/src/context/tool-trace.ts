import { CtxBlock, CtxMessage } from '../prompt/template-context';

/** Why a tool trace had to be repaired before a request: each is counted in the manifest. */
export type ToolTraceRepair = 'orphaned_tool_use' | 'orphaned_tool_result' | 'result_out_of_order' | 'duplicate_tool_result' | 'duplicate_tool_use';

/**
 * Checks, on a copy, what every provider requires of a tool trace: each assistant `tool_use`
 * is answered by a `tool_result` in the very next user message, in the same order, once; no
 * result answers a call that is not right before it. Violations are repaired (calls without a
 * result and results without a call dropped, results put in call order, duplicates dropped)
 * and counted by cause. The history itself is never touched; its normal paths need no repair.
 */
export function normalizeToolTrace(messages: readonly CtxMessage[]): { messages: CtxMessage[]; repairs: Partial<Record<ToolTraceRepair, number>> } {
    const repairs: Partial<Record<ToolTraceRepair, number>> = {};
    const count = (cause: ToolTraceRepair) => { repairs[cause] = (repairs[cause] ?? 0) + 1; };
    const out: CtxMessage[] = [];
    for (let index = 0; index < messages.length; index++) {
        const message = messages[index];
        if (message.role === 'assistant') {
            const seen = new Set<string>();
            const content = message.content.filter(block => {
                if (block.type !== 'tool_use') {
                    return true;
                }
                if (seen.has(block.id)) {
                    count('duplicate_tool_use');
                    return false;
                }
                seen.add(block.id);
                return true;
            });
            const uses = content.filter((block): block is Extract<CtxBlock, { type: 'tool_use' }> => block.type === 'tool_use');
            const next = messages[index + 1];
            const answered = new Set(next?.role === 'user' ? next.content.flatMap(block => block.type === 'tool_result' ? [block.tool_use_id] : []) : []);
            const kept = content.filter(block => {
                if (block.type === 'tool_use' && !answered.has(block.id)) {
                    count('orphaned_tool_use');
                    return false;
                }
                return true;
            });
            if (kept.length > 0) {
                out.push({ role: 'assistant', content: kept });
            }
            if (uses.length > 0 && next?.role === 'user') {
                out.push({ role: 'user', content: orderedResults(next.content, kept, count) });
                index++;
            }
            continue;
        }
        // A user message not right after a call: results in it answer nothing.
        const content = message.content.filter(block => {
            if (block.type === 'tool_result') {
                count('orphaned_tool_result');
                return false;
            }
            return true;
        });
        if (content.length > 0) {
            out.push({ role: message.role, content });
        }
    }
    return { messages: mergeAdjacent(out), repairs };
}

/** The user message after a call: its results in call order, one per call, then its other blocks. */
function orderedResults(content: readonly CtxBlock[], assistant: readonly CtxBlock[], count: (cause: ToolTraceRepair) => void): CtxBlock[] {
    const order = assistant.flatMap(block => block.type === 'tool_use' ? [block.id] : []);
    const results = new Map<string, CtxBlock>();
    const rest: CtxBlock[] = [];
    for (const block of content) {
        if (block.type !== 'tool_result') {
            rest.push(block);
        } else if (!order.includes(block.tool_use_id)) {
            count('orphaned_tool_result');
        } else if (results.has(block.tool_use_id)) {
            count('duplicate_tool_result');
        } else {
            results.set(block.tool_use_id, block);
        }
    }
    if ([...results.keys()].some((id, index) => id !== order.filter(candidate => results.has(candidate))[index])) {
        count('result_out_of_order');
    }
    return [...order.flatMap(id => results.has(id) ? [results.get(id)!] : []), ...rest];
}

/** Dropping blocks can leave two messages of one role in a row; providers want them alternating. */
function mergeAdjacent(messages: CtxMessage[]): CtxMessage[] {
    const merged: CtxMessage[] = [];
    for (const message of messages) {
        const last = merged[merged.length - 1];
        if (last && last.role === message.role && !message.content.some(block => block.type === 'tool_result')) {
            merged[merged.length - 1] = { role: last.role, content: [...last.content, ...message.content] };
        } else {
            merged.push(message);
        }
    }
    return merged;
}
