import * as assert from 'node:assert/strict';
import { AssistantTurn, EventBatch, ResponseEvent } from '@qodeassist/core';

/** The facts a recorded stream must yield, in a form a test table can state exactly. */
export interface StreamSummary {
    text: string;
    thinking?: string;
    signatures?: string[];
    toolCalls?: Array<{ callId: string; name: string; arguments: Record<string, unknown> }>;
    usage?: { inputTokens: number; outputTokens: number; cachedTokens?: number; reasoningTokens?: number };
    stop?: string;
    error?: string;
    /** Calls closed without running (ToolResult errors the wire client gives calls an answer broke off in). */
    notRun?: string[];
}

export function summarize(events: ResponseEvent[]): StreamSummary {
    const summary: StreamSummary = { text: '' };
    for (const event of events) {
        switch (event.type) {
            case 'TextDelta':
                summary.text += event.text;
                break;
            case 'ThinkingDelta':
                if (event.text) {
                    summary.thinking = (summary.thinking ?? '') + event.text;
                }
                if (event.signature !== undefined) {
                    (summary.signatures ??= []).push(event.signature);
                }
                break;
            case 'ToolCallEnd':
                (summary.toolCalls ??= []).push({ callId: event.callId, name: event.name, arguments: event.arguments });
                break;
            case 'Usage': {
                const usage: NonNullable<StreamSummary['usage']> = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
                if (event.cachedTokens !== undefined) {
                    usage.cachedTokens = event.cachedTokens;
                }
                if (event.reasoningTokens !== undefined) {
                    usage.reasoningTokens = event.reasoningTokens;
                }
                summary.usage = usage;
                break;
            }
            case 'MessageStop':
                summary.stop = event.providerReason ? `${event.stopReason} (${event.providerReason})` : event.stopReason;
                break;
            case 'Error':
                summary.error = event.error.category;
                break;
            case 'ToolResult':
                (summary.notRun ??= []).push(event.name);
                break;
        }
    }
    return summary;
}

/** Reads a wire stream to its end: every event in order (batches are never empty), and the turn it returned. */
export async function drain(generator: AsyncGenerator<EventBatch, AssistantTurn | undefined>): Promise<{ events: ResponseEvent[]; turn: AssistantTurn | undefined }> {
    const events: ResponseEvent[] = [];
    for (;;) {
        const next = await generator.next();
        if (next.done) {
            return { events, turn: next.value };
        }
        assert.ok(next.value.length > 0, 'batches are never empty');
        events.push(...next.value);
    }
}
