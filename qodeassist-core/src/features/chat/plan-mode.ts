import { HistoryMessage, messageText } from '../../context/conversation-history';
import { PinnedMaterialization } from '../../context/context-assembler';
import { PermissionClass } from '../../ports/permission-prompt';
import { todoChecklist as checklistOfCalls } from '../../protocol';
import { CtxTool } from '../../prompt/template-context';
import { ToolCall } from '../../wire/assistant-turn';
import { RequestId } from '../../wire/events';
import { ToolExecution, ToolExecutor } from '../../wire/tool-loop-runner';

/** Plan: the agent reads and proposes, offered read-class tools only. Act: its normal tools, the plan pinned. */
export type ChatMode = 'plan' | 'act';
export const CHAT_MODES: readonly ChatMode[] = ['act', 'plan'];

/** The system layer that asks for a plan. */
export const PLAN_MODE_LAYER = 'mode.plan';
/** The pinned block that carries the plan into Act. */
export const PLAN_PIN = 'plan';

export const PLAN_MODE_TEXT = [
    'You are in plan mode. Read and investigate what you need (you have read-only tools), then propose a plan: numbered steps, each small enough to check.',
    'Record each step with the todo tool (action "add"), in order, and end with the plan as a short checklist.',
    'Do not change files or run commands: you cannot now, and the user switches to Act to have you carry the plan out.'
].join(' ');

interface CatalogExecutor extends ToolExecutor {
    catalog(): Array<CtxTool & { permission: PermissionClass }>;
}

/**
 * A chat's tools in plan mode: only read-class ones are offered, and a call of any other (a model
 * that names one anyway) is refused without running.
 */
export class ReadOnlyTools implements ToolExecutor {
    private readonly readable: ReadonlySet<string>;

    constructor(private readonly inner: CatalogExecutor) {
        this.readable = new Set(inner.catalog().filter(tool => tool.permission === 'read').map(tool => tool.name));
    }

    definitions(): CtxTool[] {
        return this.inner.catalog().filter(tool => this.readable.has(tool.name)).map(({ permission: _permission, ...tool }) => tool);
    }

    execute(call: ToolCall, context: { requestId: RequestId; signal?: AbortSignal }): Promise<ToolExecution> {
        if (!this.readable.has(call.name)) {
            return Promise.resolve({
                isError: true,
                content: `${call.name} is not available in plan mode: nothing was changed or run. Propose it as a step of the plan; the user switches to Act to carry the plan out.`
            });
        }
        return this.inner.execute(call, context);
    }
}

/** The todo list as the chat's todo calls left it: each `add` a step, each `complete` ticks one. */
export function todoChecklist(history: readonly HistoryMessage[]): string {
    return checklistOfCalls(history.flatMap(message => message.blocks.flatMap(block => block.type === 'tool_use' ? [{ name: block.name, input: block.input }] : [])));
}

/** The plan a plan-mode conversation ended with: its last answer's text. */
export function lastPlan(history: readonly HistoryMessage[]): string {
    const answer = [...history].reverse().find(message => message.role === 'assistant' && messageText(message).trim());
    return answer ? messageText(answer).trim() : '';
}

/** The pinned plan for Act: the agreed text, and the checklist as it stands at this send. */
export function planPin(plan: string, history: () => readonly HistoryMessage[]): () => Promise<PinnedMaterialization> {
    return async () => {
        const checklist = todoChecklist(history());
        const text = [
            'The plan agreed in plan mode. Carry it out step by step; mark each step done with the todo tool ("complete" with its number).',
            plan, checklist ? `Checklist now:\n${checklist}` : ''
        ].filter(Boolean).join('\n\n');
        return { id: PLAN_PIN, label: 'Plan', text };
    };
}
