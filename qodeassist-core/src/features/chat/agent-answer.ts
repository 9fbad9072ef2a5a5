import type { AcpPlanEntry, AcpToolCallState } from '../../context/agent-activity';
import { AnswerEnding, HistoryBlock, HistoryMessage } from '../../context/conversation-history';
import { ChatEvent } from './chat-types';

/**
 * An external agent's answer as it streams, in the order things happened: thinking, text, its
 * tool calls (each kept at its latest state, where it first appeared), the files it wrote, and
 * its plan as the turn ends. The chat keeps it as one assistant message, finished or not.
 */
export class AgentAnswer {
    private readonly blocks: HistoryBlock[] = [];
    private readonly calls = new Map<string, number>();
    private plan: AcpPlanEntry[] | undefined;

    constructor(readonly agent: string) { }

    /** Takes one of the turn's chat events; the others (framing, usage, notices) leave the answer as it is. */
    add(event: ChatEvent): void {
        switch (event.type) {
            case 'TextDelta':
                this.append('text', event.text);
                break;
            case 'ThinkingDelta':
                this.append('thinking', event.text);
                break;
            case 'AcpToolCall':
                this.call(event.call);
                break;
            case 'AcpPlan':
                this.plan = event.entries;
                break;
            case 'AcpFileWrite':
                this.blocks.push({ type: 'file_edit', path: event.edit.path, summary: `${event.edit.created ? 'created' : 'edited'} by ${this.agent}`, editId: event.editId });
                break;
            default:
                break;
        }
    }

    /** What arrived so far, as history blocks (the plan last). */
    historyBlocks(): HistoryBlock[] {
        const blocks = this.blocks.map(block => block.type === 'agent_tool_call' ? { ...block, call: structuredClone(block.call) } : { ...block });
        return this.plan ? [...blocks, { type: 'agent_plan', agent: this.agent, entries: structuredClone(this.plan) }] : blocks;
    }

    /** The answer as the chat keeps it: ended says how a turn that did not finish ended. */
    message(ended?: AnswerEnding): HistoryMessage {
        return { role: 'assistant', blocks: this.historyBlocks(), ...(ended ? { ended } : {}) };
    }

    private append(type: 'text' | 'thinking', text: string): void {
        const last = this.blocks.at(-1);
        if (last?.type === type) {
            last.text += text;
        } else {
            this.blocks.push({ type, text });
        }
    }

    private call(call: AcpToolCallState): void {
        const at = this.calls.get(call.callId);
        const block: HistoryBlock = { type: 'agent_tool_call', agent: this.agent, call };
        if (at === undefined) {
            this.calls.set(call.callId, this.blocks.length);
            this.blocks.push(block);
        } else {
            this.blocks[at] = block;
        }
    }
}
