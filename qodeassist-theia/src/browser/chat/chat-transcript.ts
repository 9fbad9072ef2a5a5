import type { ChatBranchView, HistoryMessage, StoredFileEdit } from '@qodeassist/core';
import { ChatEvent, editIdOf } from '../../common/chat-protocol';
import { agentPartOf, agentWriteActivity, applyAgentCall, applyPlan } from './agent-activity';
import { AttachmentView, ChatMessage, textOf, toolsOf, ToolActivity } from './chat-message';
import { requestUsageOf, sumUsage } from './chat-usage';

// Many views and specs import the message types from here, where they were first declared.
export * from './chat-message';

type RequestStartedEvent = Extract<ChatEvent, { type: 'RequestStarted' }>;
type UserMessageEvent = Extract<ChatEvent, { type: 'UserMessage' }>;

/** The last item that matches (the lib this compiles against has no `Array.prototype.findLast`). */
function newest<T>(items: readonly T[], matches: (item: T) => boolean): T | undefined {
    for (let i = items.length - 1; i >= 0; i--) {
        if (matches(items[i])) {
            return items[i];
        }
    }
    return undefined;
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
    /** The replaced versions of the chat the backend keeps (edits, regenerated answers, resets): offered on their messages. */
    branches: readonly ChatBranchView[] = [];
    /** This view's turns the backend has not taken yet (the send has not returned, no `UserMessage` or `RequestStarted` for them so far). */
    private readonly waiting = new Set<string>();
    /** The answer a `UserMessage` announced: the next `RequestStarted` is its request. */
    private starting: ChatMessage | undefined;
    /** The history was replaced: the next `RequestStarted` answers its last message, not a turn of this view still waiting. */
    private answersHistory = false;

    get messages(): readonly ChatMessage[] {
        return this.items;
    }

    /** The newest answer still streaming, whichever window asked for it. */
    get pending(): ChatMessage | undefined {
        return newest(this.items, message => message.role === 'assistant' && message.status === 'streaming');
    }

    /** Whether it shows any message the backend has had: anything but this view's turns it has not taken yet. */
    showsConversation(): boolean {
        return this.items.some(message => message.turnId === undefined || !this.waiting.has(message.turnId));
    }

    clear(): void {
        this.items.length = 0;
        this.branches = [];
        this.waiting.clear();
        this.starting = undefined;
        this.answersHistory = false;
    }

    /**
     * Records the user's message and an empty assistant message that the events will fill;
     * `turnId` is what the message is sent under, so the chat's events can name it.
     */
    beginTurn(text: string, attachments: AttachmentView[] = [], skill?: string, turnId?: string): ChatMessage {
        this.items.push({ id: this.nextId++, role: 'user', parts: text ? [{ kind: 'text', chunks: [text] }] : [], status: 'done', attachments, skill, turnId, revision: 0 });
        const answer: ChatMessage = { id: this.nextId++, role: 'assistant', parts: [], status: 'streaming', attachments: [], turnId, revision: 0 };
        this.items.push(answer);
        if (turnId) {
            this.waiting.add(turnId);
        }
        this.answersHistory = false;
        return answer;
    }

    /** The backend took this view's turn (the send returned): a rebuilt view shows it from the backend's history. */
    taken(turnId: string): void {
        this.waiting.delete(turnId);
    }

    /** This view's message that waits behind an answer asked in another window, if any. */
    queuedTurn(): string | undefined {
        return this.items.find(message => message.role === 'user' && message.queued && message.turnId !== undefined && this.waiting.has(message.turnId))?.turnId;
    }

    /** Takes back a turn of this view the backend did not take (the send failed); returns whether it was shown. */
    dropTurn(turnId: string): boolean {
        this.waiting.delete(turnId);
        const before = this.items.length;
        this.items.splice(0, this.items.length, ...this.items.filter(message => message.turnId !== turnId));
        return this.items.length !== before;
    }

    /** Applies one event of the chat; returns whether anything visible changed. */
    apply(event: ChatEvent): boolean {
        switch (event.type) {
            case 'UserMessage':
                return this.userMessage(event);
            case 'Queued':
                return event.turnId !== undefined && this.setQueued(event.turnId, true);
            case 'History':
                this.resume(event.history, event.edits, [], event.branches);
                return true;
            case 'RequestStarted':
                return this.start(event);
            case 'Moved':
                // The controller follows the chat to its new id; nothing shown changes.
                return false;
            case 'WorkspaceChanges':
                return this.diskChanged(event);
        }
        const target = newest(this.items, message => message.role === 'assistant' && message.requestId === event.requestId);
        if (!target || target.status !== 'streaming') {
            return false;
        }
        const changed = this.applyTo(target, event);
        if (changed) {
            target.revision++;
        }
        return changed;
    }

    /** Told after an external agent's turn ended: its answer shows what it changed on disk. */
    private diskChanged(event: Extract<ChatEvent, { type: 'WorkspaceChanges' }>): boolean {
        const answer = newest(this.items, message => message.role === 'assistant' && message.requestId === event.requestId);
        if (!answer) {
            return false;
        }
        answer.diskChanges = { turn: event.turn, files: event.files };
        answer.revision++;
        return true;
    }

    /** Takes the messages from `message` on out of the view (an edit resends in their place); `putBack` returns them if it did not go. */
    cutFrom(message: ChatMessage): ChatMessage[] {
        const index = this.items.indexOf(message);
        return index < 0 ? [] : this.items.splice(index);
    }

    /** Messages `cutFrom` took out, back where they were, before this view's turns that did not go. */
    putBack(messages: readonly ChatMessage[]): void {
        this.items.splice(this.firstWaiting(), 0, ...messages);
    }

    /** Whether the message is in the chat's saved history: not a turn of this view the backend has not taken yet. */
    isRecorded(message: ChatMessage): boolean {
        return message.turnId === undefined || !this.waiting.has(message.turnId);
    }

    /** Marks a message changed from outside the events (an edit undone in the view). */
    touch(message: ChatMessage): void {
        message.revision++;
    }

    /** The IDE backend went away (`stalled`) or came back: answers streaming now say that nothing can arrive meanwhile. */
    stall(stalled: boolean): boolean {
        let changed = false;
        for (const message of this.items) {
            if (message.role === 'assistant' && message.status === 'streaming' && !!message.stalled !== stalled) {
                message.stalled = stalled;
                message.revision++;
                changed = true;
            }
        }
        return changed;
    }

    /** Ends every streaming answer here as cancelled, for a Stop that cannot reach the backend. */
    cancelStreaming(): boolean {
        let changed = false;
        for (const message of this.items) {
            if (message.role === 'assistant' && message.status === 'streaming') {
                message.status = 'cancelled';
                message.stalled = undefined;
                message.revision++;
                changed = true;
            }
        }
        return changed;
    }

    /** A message of the chat was recorded: this view's own (now on its way), or one another window sent, shown above this view's waiting ones. */
    private userMessage(event: UserMessageEvent): boolean {
        const own = event.turnId !== undefined ? this.items.find(message => message.role === 'user' && message.turnId === event.turnId) : undefined;
        if (own) {
            this.waiting.delete(own.turnId!);
            const changed = this.setQueued(own.turnId!, false);
            const answer = this.items.find(message => message.role === 'assistant' && message.turnId === own.turnId);
            if (answer) {
                answer.recorded = true;
                this.starting = answer.requestId === undefined ? answer : undefined;
            }
            return changed;
        }
        const user = this.userMessageOf(event.message);
        const answer: ChatMessage = { id: this.nextId++, role: 'assistant', parts: [], status: 'streaming', attachments: [], recorded: true, revision: 0 };
        this.items.splice(this.firstWaiting(), 0, user, answer);
        for (const turnId of this.waiting) {
            this.setQueued(turnId, true);
        }
        this.starting = answer;
        return true;
    }

    /** A request started: the answer a `UserMessage` announced, else this view's answer waiting for it, else a new answer (a retry, another window's request). */
    private start(event: RequestStartedEvent): boolean {
        if (this.items.some(message => message.role === 'assistant' && message.requestId === event.requestId)) {
            return false;
        }
        // A message of this view that never went (it failed to start, or was withdrawn) names its turn.
        const own = event.turnId !== undefined
            ? this.items.find(message => message.role === 'assistant' && message.turnId === event.turnId && message.requestId === undefined)
            : undefined;
        let target = own ?? this.starting ?? (this.answersHistory ? undefined
            : newest(this.items, message => message.role === 'assistant' && message.status === 'streaming' && message.requestId === undefined));
        if (!own) {
            this.starting = undefined;
            this.answersHistory = false;
        }
        let changed = event.agent !== undefined;
        if (!target) {
            target = { id: this.nextId++, role: 'assistant', parts: [], status: 'streaming', attachments: [], recorded: true, revision: 0 };
            this.items.splice(this.firstWaiting(), 0, target);
            changed = true;
        }
        if (target.turnId && this.waiting.delete(target.turnId)) {
            changed = this.setQueued(target.turnId, false) || changed;
        }
        target.requestId = event.requestId;
        target.agent = event.agent;
        target.model = event.model;
        if (changed) {
            target.revision++;
        }
        return changed;
    }

    /** Where a message of the chat goes: above the first turn of this view the backend has not taken yet. */
    private firstWaiting(): number {
        const index = this.items.findIndex(message => message.turnId !== undefined && this.waiting.has(message.turnId));
        return index < 0 ? this.items.length : index;
    }

    private setQueued(turnId: string, queued: boolean): boolean {
        const user = this.items.find(message => message.role === 'user' && message.turnId === turnId);
        if (!user || !!user.queued === queued) {
            return false;
        }
        user.queued = queued;
        user.revision++;
        return true;
    }

    private applyTo(target: ChatMessage, event: Exclude<ChatEvent, RequestStartedEvent | UserMessageEvent | { type: 'Queued' | 'History' | 'Moved' }>): boolean {
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
            case 'Usage': {
                // One report per request of the tool loop (`round`); a later report of the same request replaces the earlier.
                const requests = target.requests ??= [];
                requests[event.round ?? Math.max(requests.length - 1, 0)] = requestUsageOf(event);
                target.usage = sumUsage(requests);
                return true;
            }
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
            case 'AcpToolCall':
                applyAgentCall(target.parts, event.call);
                return true;
            case 'AcpPlan':
                applyPlan(target.parts, event.entries);
                return true;
            case 'AcpFileWrite':
                target.parts.push({ kind: 'tool', tool: agentWriteActivity(event.editId, event.edit, 'applied') });
                return true;
            case 'AcpUsage':
                target.agentContext = { used: event.used, size: event.size, ...(event.cost ? { cost: event.cost } : {}) };
                return true;
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
     * gathering the assistant turns and tool rounds until the next user message. `live` are the
     * events so far of a request still running (its question ends the history).
     */
    restore(history: readonly HistoryMessage[], edits: Readonly<Record<string, StoredFileEdit>>, live: readonly ChatEvent[] = [], branches: readonly ChatBranchView[] = []): void {
        this.clear();
        this.branches = branches;
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
                this.items.push(this.userMessageOf(message));
                answer = undefined;
                continue;
            }
            if (!answer) {
                answer = { id: this.nextId++, role: 'assistant', parts: [], status: 'done', attachments: [], recorded: true, revision: 0 };
                this.items.push(answer);
            }
            for (const block of message.blocks) {
                if (block.type === 'text') {
                    appendText(answer, 'text', block.text);
                } else if (block.type === 'thinking') {
                    appendText(answer, 'thinking', block.text);
                } else if (block.type === 'tool_use') {
                    answer.parts.push({ kind: 'tool', tool: { callId: block.id, name: block.name, arguments: block.input, status: 'running' } });
                } else if (block.type === 'file_edit' && block.editId && edits[block.editId]) {
                    const edit = edits[block.editId];
                    answer.parts.push({ kind: 'tool', tool: agentWriteActivity(block.editId, { path: edit.path, absolutePath: edit.absolutePath, diff: edit.diff, created: edit.created }, edit.state) });
                } else {
                    const part = agentPartOf(block);
                    if (part) {
                        answer.parts.push(part);
                    }
                }
            }
            if (message.usage) {
                // Each request of the turn's tool rounds is saved on the answer it produced.
                (answer.requests ??= []).push(requestUsageOf(message.usage));
                answer.usage = sumUsage(answer.requests);
            }
            if (message.interrupted) {
                answer.status = 'interrupted';
            } else if (message.ended) {
                // A failed or stopped answer the chat kept: shown as it ended, with Retry.
                answer.status = message.ended.reason === 'failed' ? 'failed' : 'cancelled';
                answer.error = message.ended.reason === 'failed' ? message.ended.error : undefined;
            }
        }
        // A tool call without a saved result was cut off (cancelled, failed or interrupted mid-round).
        for (const message of this.items) {
            for (const tool of toolsOf(message)) {
                if (tool.status === 'running') {
                    tool.status = 'error';
                    tool.result ??= 'No result was recorded (the request ended first).';
                }
            }
        }
        this.applyAll(live);
    }

    /**
     * The chat as the backend holds it now (a `History` event, a reconnect): its history and the
     * running request's events so far. This view's turns the backend has not taken yet stay, last.
     */
    resume(history: readonly HistoryMessage[], edits: Readonly<Record<string, StoredFileEdit>>, live: readonly ChatEvent[] = [], branches: readonly ChatBranchView[] = []): void {
        const waiting = [...this.waiting];
        const kept = this.items.filter(message => message.turnId !== undefined && this.waiting.has(message.turnId));
        this.restore(history, edits, [], branches);
        this.items.push(...kept);
        waiting.forEach(turnId => this.waiting.add(turnId));
        this.answersHistory = true;
        this.applyAll(live);
    }

    private applyAll(events: readonly ChatEvent[]): void {
        for (const event of events) {
            this.apply(event);
        }
    }

    private userMessageOf(message: HistoryMessage): ChatMessage {
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
        return user;
    }

    /** The user text of the last turn, its skill invocation included, for Retry. */
    lastUserText(): string | undefined {
        return this.questionOf(this.items[this.items.length - 1]);
    }

    /** The user text an answer answers (or of the message itself), its skill invocation included: what Retry sends again. */
    questionOf(message: ChatMessage | undefined): string | undefined {
        const index = message ? this.items.indexOf(message) : -1;
        const question = newest(this.items.slice(0, index + 1), candidate => candidate.role === 'user');
        if (!question) {
            return undefined;
        }
        return question.skill ? `/${question.skill} ${textOf(question)}`.trim() : textOf(question);
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
