import type { ErrorInfo, SessionEvent, Usage } from '@qodeassist/core';

export type ChatMessageStatus = 'streaming' | 'done' | 'cancelled' | 'failed';

/** One tool call of an answer, as the chat shows it. */
export interface ToolActivity {
    callId: string;
    name: string;
    arguments?: Record<string, unknown>;
    status: 'running' | 'done' | 'error';
    result?: string;
}

export interface ChatMessage {
    id: number;
    role: 'user' | 'assistant';
    text: string;
    thinking: string;
    status: ChatMessageStatus;
    requestId?: string;
    /** Which agent and model answered, from the request's start. */
    agent?: string;
    model?: string;
    error?: ErrorInfo;
    usage?: Omit<Usage, 'type' | 'requestId'>;
    tools: ToolActivity[];
}

/**
 * The frontend's projection of one chat session: messages built from the session's
 * events. It holds no truth of its own beyond what the events said, so the view can
 * be rebuilt from them at any time.
 */
export class ChatTranscript {
    private readonly items: ChatMessage[] = [];
    private nextId = 1;

    get messages(): readonly ChatMessage[] {
        return this.items;
    }

    get pending(): ChatMessage | undefined {
        const last = this.items[this.items.length - 1];
        return last?.role === 'assistant' && last.status === 'streaming' ? last : undefined;
    }

    /** Records the user's message and an empty assistant message that the events will fill. */
    beginTurn(text: string): ChatMessage {
        this.items.push({ id: this.nextId++, role: 'user', text, thinking: '', status: 'done', tools: [] });
        const answer: ChatMessage = { id: this.nextId++, role: 'assistant', text: '', thinking: '', status: 'streaming', tools: [] };
        this.items.push(answer);
        return answer;
    }

    /** The send itself failed before any event (e.g. the backend connection is gone). */
    failPending(error: ErrorInfo): void {
        const pending = this.pending;
        if (pending) {
            pending.status = 'failed';
            pending.error = error;
        }
    }

    /** Applies one session event; returns whether anything visible changed. */
    apply(event: SessionEvent): boolean {
        const target = this.pending;
        if (!target) {
            return false;
        }
        if (event.type === 'RequestStarted') {
            target.requestId = event.requestId;
            target.agent = event.agent;
            target.model = event.model;
            return event.agent !== undefined;
        }
        if (target.requestId !== undefined && target.requestId !== event.requestId) {
            return false;
        }
        switch (event.type) {
            case 'TextDelta':
                target.text += event.text;
                return true;
            case 'ThinkingDelta':
                target.thinking += event.text;
                return true;
            case 'Usage':
                target.usage = {
                    inputTokens: event.inputTokens, outputTokens: event.outputTokens,
                    cachedTokens: event.cachedTokens, reasoningTokens: event.reasoningTokens
                };
                return true;
            case 'ToolCallStart':
                target.tools.push({ callId: event.callId, name: event.name, status: 'running' });
                return true;
            case 'ToolCallEnd': {
                const tool = target.tools.find(candidate => candidate.callId === event.callId);
                if (tool) {
                    tool.arguments = event.arguments;
                } else {
                    target.tools.push({ callId: event.callId, name: event.name, arguments: event.arguments, status: 'running' });
                }
                return true;
            }
            case 'ToolResult': {
                const tool = target.tools.find(candidate => candidate.callId === event.callId);
                if (tool) {
                    tool.status = event.isError ? 'error' : 'done';
                    tool.result = event.content;
                }
                return true;
            }
            case 'Finished':
                target.status = 'done';
                return true;
            case 'Cancelled':
                target.status = 'cancelled';
                return true;
            case 'Failed':
                target.status = 'failed';
                target.error = event.error;
                return true;
            default:
                return false;
        }
    }

    /** The user text of the last turn, for Retry. */
    lastUserText(): string | undefined {
        for (let i = this.items.length - 1; i >= 0; i--) {
            if (this.items[i].role === 'user') {
                return this.items[i].text;
            }
        }
        return undefined;
    }
}
