import { StopReason } from './events';
import { ToolResultImage } from './tool-result-images';

/** One block of what the model said, normalized across protocols (for history and UI). */
export type AssistantBlock =
    | { type: 'text'; text: string }
    | { type: 'thinking'; text: string; signature?: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_call'; callId: string; name: string; arguments: Record<string, unknown> };

export interface ToolCall {
    callId: string;
    name: string;
    arguments: Record<string, unknown>;
}

/**
 * The complete assistant message of one round. `native` is the message in the
 * protocol's own shape (signatures, item ids, raw argument text included), which
 * is what a continuation must replay; `blocks` is the same content normalized.
 */
export interface AssistantTurn {
    blocks: AssistantBlock[];
    stopReason: StopReason;
    native: unknown;
}

export interface ToolResultInput {
    callId: string;
    name: string;
    content: string;
    isError: boolean;
    /** Images the tool returned, already within the allowlist and limits (tool-result-images.ts). */
    images?: ToolResultImage[];
}

export function toolCallsOf(turn: AssistantTurn): ToolCall[] {
    return turn.blocks.flatMap(block => block.type === 'tool_call'
        ? [{ callId: block.callId, name: block.name, arguments: block.arguments }] : []);
}

/** Collects streamed pieces into blocks, merging consecutive text or thinking. */
export class AssistantBlocksBuilder {
    readonly blocks: AssistantBlock[] = [];

    text(text: string): void {
        const last = this.blocks[this.blocks.length - 1];
        if (last?.type === 'text') {
            last.text += text;
        } else if (text) {
            this.blocks.push({ type: 'text', text });
        }
    }

    thinking(text: string, signature?: string): void {
        const last = this.blocks[this.blocks.length - 1];
        if (last?.type === 'thinking' && last.signature === undefined) {
            last.text += text;
            if (signature !== undefined) {
                last.signature = signature;
            }
        } else if (text || signature !== undefined) {
            this.blocks.push(signature === undefined ? { type: 'thinking', text } : { type: 'thinking', text, signature });
        }
    }

    redactedThinking(data: string): void {
        this.blocks.push({ type: 'redacted_thinking', data });
    }

    toolCall(call: ToolCall): void {
        this.blocks.push({ type: 'tool_call', ...call });
    }
}
