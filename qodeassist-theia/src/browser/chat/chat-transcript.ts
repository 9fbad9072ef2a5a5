import type { ContextManifest, ErrorInfo, FileEditRecord, HistoryMessage, StoredFileEdit, Usage } from '@qodeassist/core';
import { ChatEvent, editIdOf } from '../../common/chat-protocol';

export type ChatMessageStatus = 'streaming' | 'done' | 'cancelled' | 'failed';

/** A file edit as the chat shows it: applied by the tool, undone by the user, or a failed undo/reapply. */
export interface FileEditView {
    /** The key the backend keeps the edit under (see editIdOf). */
    id: string;
    record: FileEditRecord;
    state: StoredFileEdit['state'];
    /** Why the last undo or reapply did not work (the file changed since, …). */
    problem?: string;
}

/** One tool call of an answer, as the chat shows it. */
export interface ToolActivity {
    callId: string;
    name: string;
    arguments?: Record<string, unknown>;
    status: 'running' | 'done' | 'error';
    result?: string;
    edit?: FileEditView;
}

/**
 * The pieces of an answer in the order they streamed. A text is kept as the deltas it was
 * built from (`partText` joins them): the view reads only the new ones, so the whole text is
 * never re-read per batch.
 */
export type MessagePart =
    | { kind: 'text' | 'thinking'; chunks: string[] }
    | { kind: 'tool'; tool: ToolActivity };

export interface AttachmentView {
    name: string;
    mediaType: string;
}

export interface ChatMessage {
    id: number;
    role: 'user' | 'assistant';
    parts: MessagePart[];
    status: ChatMessageStatus;
    attachments: AttachmentView[];
    requestId?: string;
    /** Which agent and model answered, from the request's start. */
    agent?: string;
    model?: string;
    error?: ErrorInfo;
    usage?: Omit<Usage, 'type' | 'requestId'>;
    /** What the assembler put into the request this answer came from. */
    manifest?: ContextManifest;
    /** A skill the user invoked with `/name`. */
    skill?: string;
    /** On a summary: the chat it summarizes. */
    compressedFrom?: string;
    /** Goes up with every change, so a view can skip messages that did not change. */
    revision: number;
}

/** The whole text of a text or thinking part. */
export function partText(part: { chunks: readonly string[] }): string {
    return part.chunks.join('');
}

/** All text of a message, in order (for copying, retry and tests). */
export function textOf(message: ChatMessage): string {
    return message.parts.flatMap(part => part.kind === 'text' ? [partText(part)] : []).join('');
}

export function thinkingOf(message: ChatMessage): string {
    return message.parts.flatMap(part => part.kind === 'thinking' ? [partText(part)] : []).join('');
}

export function toolsOf(message: ChatMessage): ToolActivity[] {
    return message.parts.flatMap(part => part.kind === 'tool' ? [part.tool] : []);
}

/** The newest call of an answer with this id: providers that number calls per round reuse ids across rounds. */
function latestCall(message: ChatMessage, callId: string, running = false): ToolActivity | undefined {
    const tools = toolsOf(message);
    for (let i = tools.length - 1; i >= 0; i--) {
        if (tools[i].callId === callId && (!running || tools[i].status === 'running')) {
            return tools[i];
        }
    }
    return undefined;
}

/**
 * The frontend's projection of one chat session: messages built from the session's
 * events, or from a saved history. It holds no truth of its own beyond what those said
 * (and the undo state of edits, which the backend saves), so the view can be rebuilt at any time.
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

    clear(): void {
        this.items.length = 0;
    }

    /** Records the user's message and an empty assistant message that the events will fill. */
    beginTurn(text: string, attachments: AttachmentView[] = [], skill?: string): ChatMessage {
        this.items.push({ id: this.nextId++, role: 'user', parts: text ? [{ kind: 'text', chunks: [text] }] : [], status: 'done', attachments, skill, revision: 0 });
        const answer: ChatMessage = { id: this.nextId++, role: 'assistant', parts: [], status: 'streaming', attachments: [], revision: 0 };
        this.items.push(answer);
        return answer;
    }

    /** The send itself failed before any event (e.g. the backend connection is gone). */
    failPending(error: ErrorInfo): void {
        const pending = this.pending;
        if (pending) {
            pending.status = 'failed';
            pending.error = error;
            pending.revision++;
        }
    }

    /** Applies one session event; returns whether anything visible changed. */
    apply(event: ChatEvent): boolean {
        const target = this.pending;
        if (!target) {
            return false;
        }
        const changed = this.applyTo(target, event);
        if (changed) {
            target.revision++;
        }
        return changed;
    }

    /** Marks a message changed from outside the events (an edit undone in the view). */
    touch(message: ChatMessage): void {
        message.revision++;
    }

    private applyTo(target: ChatMessage, event: ChatEvent): boolean {
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
            case 'Manifest':
                target.manifest = event.manifest;
                return true;
            case 'TextDelta':
                appendText(target, 'text', event.text);
                return true;
            case 'ThinkingDelta':
                appendText(target, 'thinking', event.text);
                return true;
            case 'Usage':
                target.usage = {
                    inputTokens: event.inputTokens, outputTokens: event.outputTokens,
                    cachedTokens: event.cachedTokens, reasoningTokens: event.reasoningTokens
                };
                return true;
            case 'ToolCallStart':
                target.parts.push({ kind: 'tool', tool: { callId: event.callId, name: event.name, status: 'running' } });
                return true;
            case 'ToolCallEnd': {
                const tool = latestCall(target, event.callId, true);
                if (tool) {
                    tool.arguments = event.arguments;
                } else {
                    target.parts.push({ kind: 'tool', tool: { callId: event.callId, name: event.name, arguments: event.arguments, status: 'running' } });
                }
                return true;
            }
            case 'ToolResult': {
                const tool = latestCall(target, event.callId, true);
                if (tool) {
                    tool.status = event.isError ? 'error' : 'done';
                    tool.result = event.content;
                    tool.edit = event.fileEdit ? { id: event.editId ?? event.callId, record: event.fileEdit, state: 'applied' } : undefined;
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

    /**
     * Rebuilds the view of a saved chat from its history: each user message, then one answer
     * gathering the assistant turns and tool rounds until the next user message.
     */
    restore(history: readonly HistoryMessage[], edits: Readonly<Record<string, StoredFileEdit>>): void {
        this.clear();
        let answer: ChatMessage | undefined;
        // Counted as the backend counts them when it keys an edit (editIdOf).
        const results = new Map<string, number>();
        for (const message of history) {
            const toolResults = message.blocks.filter(block => block.type === 'tool_result');
            for (const block of toolResults) {
                const earlier = results.get(block.toolUseId) ?? 0;
                results.set(block.toolUseId, earlier + 1);
                const tool = answer ? latestCall(answer, block.toolUseId, true) : undefined;
                if (tool) {
                    tool.status = block.isError ? 'error' : 'done';
                    tool.result = block.content;
                    const id = editIdOf(block.toolUseId, earlier);
                    const edit = edits[id];
                    tool.edit = edit ? { id, record: { path: edit.path, absolutePath: edit.absolutePath, diff: edit.diff, created: edit.created }, state: edit.state } : undefined;
                }
            }
            if (message.role === 'user' && toolResults.length === message.blocks.length && answer) {
                continue;
            }
            if (message.role === 'user') {
                const user: ChatMessage = { id: this.nextId++, role: 'user', parts: [], status: 'done', attachments: [], compressedFrom: message.compressedFrom, revision: 0 };
                for (const block of message.blocks) {
                    if (block.type === 'text') {
                        appendText(user, 'text', block.text);
                    } else if (block.type === 'image' || block.type === 'attachment') {
                        user.attachments.push({ name: block.ref.name, mediaType: block.ref.mediaType });
                    } else if (block.type === 'skill_invocation') {
                        user.skill = block.name;
                    }
                }
                this.items.push(user);
                answer = undefined;
                continue;
            }
            if (!answer) {
                answer = { id: this.nextId++, role: 'assistant', parts: [], status: 'done', attachments: [], revision: 0 };
                this.items.push(answer);
            }
            for (const block of message.blocks) {
                if (block.type === 'text') {
                    appendText(answer, 'text', block.text);
                } else if (block.type === 'thinking') {
                    appendText(answer, 'thinking', block.text);
                } else if (block.type === 'tool_use') {
                    answer.parts.push({ kind: 'tool', tool: { callId: block.id, name: block.name, arguments: block.input, status: 'running' } });
                }
            }
            if (message.usage) {
                answer.usage = message.usage;
            }
        }
        // A tool call without a saved result was cut off (cancelled or failed mid-round).
        for (const message of this.items) {
            for (const tool of toolsOf(message)) {
                if (tool.status === 'running') {
                    tool.status = 'error';
                    tool.result ??= 'No result was recorded (the request ended first).';
                }
            }
        }
    }

    /** The user text of the last turn, its skill invocation included, for Retry. */
    lastUserText(): string | undefined {
        for (let i = this.items.length - 1; i >= 0; i--) {
            const message = this.items[i];
            if (message.role === 'user') {
                return message.skill ? `/${message.skill} ${textOf(message)}`.trim() : textOf(message);
            }
        }
        return undefined;
    }

    /** Every file edit of a message (for Apply all / Undo all). */
    editsOf(message: ChatMessage): ToolActivity[] {
        return toolsOf(message).filter(tool => tool.edit);
    }
}

function appendText(message: ChatMessage, kind: 'text' | 'thinking', text: string): void {
    const last = message.parts[message.parts.length - 1];
    if (last?.kind === kind) {
        last.chunks.push(text);
    } else {
        message.parts.push({ kind, chunks: [text] });
    }
}
