import { AnswerEnding, HistoryBlock, HistoryMessage } from '../../context/conversation-history';
import { ChatBranch, ChatFileState, ChatStore, CHAT_FILE_VERSION, mapVersions, StoredChat, StoredFileEdit, titleOf } from '../../session/chat-store';
import { Session } from '../../session/session';
import { ToolKitExecutor } from '../../tools/tool-executor';
import { AgentAnswer } from './agent-answer';
import type { AgentLink } from './agent-link';
import { branchViews } from './chat-branches';
import { ChatEvent, ChatHost, HistoryEvent } from './chat-types';

/** What the saved file holds about a chat besides the session's history. */
export interface ChatRecord {
    title?: string;
    createdAt: string;
    agent?: string;
    role?: string;
    edits: Record<string, StoredFileEdit>;
    compressedFrom?: string;
    /** The parts of the chat the user replaced, kept to be brought back. */
    branches?: ChatBranch[];
    /** The external agent's session the chat last talked to. */
    agentSession?: { agent: string; sessionId: string };
}

/** A window (or the bench) showing a chat: where its events and notices go. */
export interface ChatViewer {
    onEvents(chatId: string, events: ChatEvent[]): void;
    onNotice(chatId: string, message: string): void;
    /** The chat goes on under another id (its conflict copy): the window keeps it under that id from now on. */
    onMoved(from: string, to: string): void;
}

/** The request running in a chat: its events so far (for a window that opens the chat meanwhile) and the history before it. */
interface LiveRequest {
    requestId: string;
    events: ChatEvent[];
    /** The history's length when it started: its user message is the last one before. */
    historyLength: number;
    /** The answer of the round streaming now, kept for a save mid-stream. */
    text: string;
    thinking: string;
    /** The history's length when the round began: a recorded round starts a new one. */
    roundStart: number;
}

/**
 * A chat open in this process, owned once however many windows show it: its store and file
 * state, its record, the session answering in it, the request running, and who is watching.
 */
export class OpenChat {
    /** The history before a session exists (a restored chat); the session owns it afterwards. */
    seed: HistoryMessage[];
    session?: Session;
    /** The external (ACP) agent answering in the chat, when one was picked: its process and session. */
    agentLink?: AgentLink;
    /** An external agent's answer streaming now: what a save mid-stream keeps. */
    agentAnswer?: AgentAnswer;
    /** Linked files pinned in the session. */
    readonly linked = new Set<string>();
    /** The rules-file layers the last send put into the session (replaced at the next). */
    readonly rulesLayers = new Set<string>();
    /** The last send was in plan mode: the next Act pins the plan it ended with. */
    planning = false;
    /** The chat's tools per window asking (its questions go there), created for the workspace and settings; each remembers "allow for this chat". */
    readonly tools = new Map<ChatHost | undefined, { key: string; executor: ToolKitExecutor }>();
    /** Saves run one after another, newest last. */
    saving: Promise<void> = Promise.resolve();
    /** Earlier ids of this chat (it moved to a conflict copy): attachments in their folders were copied into its own. */
    readonly formerIds: string[] = [];
    /** The file as this chat last read or wrote it. */
    file: ChatFileState;
    /** The windows showing the chat. */
    readonly viewers = new Set<ChatViewer>();
    live?: LiveRequest;
    /** The window whose message started the running request: its tools ask there. */
    sender?: ChatViewer;
    /** Turns waiting for the running request to end, and those of them their sender withdrew (Stop). */
    readonly queued = new Set<string>();
    readonly withdrawn = new Set<string>();
    /** Set by a send just before its request starts: the user message is announced with this id. */
    announce?: { turnId?: string };
    /** A save planned while an answer streams. */
    streamSave?: ReturnType<typeof setTimeout>;
    /** Turns are prepared one at a time (a send, an estimate): a session swap never happens under another's feet. */
    private preparing: Promise<unknown> = Promise.resolve();
    private idleWaiters: Array<() => void> = [];

    constructor(
        /** The chat's id and file name; a chat that moved to its conflict copy takes the copy's. */
        public id: string,
        readonly store: ChatStore,
        readonly record: ChatRecord,
        seed: HistoryMessage[] = [],
        /** The history of the chat this one summarizes, for read_original_history. */
        readonly original?: readonly HistoryMessage[],
        file: ChatFileState = { revision: 0 }
    ) {
        this.seed = seed;
        this.file = file;
    }

    static fromStored(store: ChatStore, stored: StoredChat, original?: readonly HistoryMessage[], file?: ChatFileState): OpenChat {
        return new OpenChat(stored.id, store, {
            title: stored.title, createdAt: stored.createdAt, agent: stored.agent, role: stored.role, edits: stored.edits, compressedFrom: stored.compressedFrom,
            branches: stored.branches, ...(stored.agentSession ? { agentSession: stored.agentSession } : {})
        }, stored.history, original, file ?? { revision: stored.revision ?? 0 });
    }

    /** Runs `work` after the chat's earlier preparations ended, whatever their outcome. */
    exclusive<T>(work: () => Promise<T>): Promise<T> {
        const result = this.preparing.then(work, work);
        this.preparing = result.catch(() => undefined);
        return result;
    }

    /** Resolves when no request runs in the chat. */
    idle(): Promise<void> {
        return this.live ? new Promise(resolve => this.idleWaiters.push(resolve)) : Promise.resolve();
    }

    get history(): readonly HistoryMessage[] {
        return this.session?.history ?? this.seed;
    }

    /** The history replaced while no request runs (an edit, a reset, a version brought back, a retry). */
    replaceHistory(history: readonly HistoryMessage[]): void {
        if (this.session) {
            this.session.restore(history);
        } else {
            this.seed = [...history];
        }
    }

    /** A message added after the last request ended: how an answer that did not finish ended, or a message that never went. */
    append(message: HistoryMessage): void {
        if (this.session) {
            this.session.append(message);
        } else {
            this.seed.push(message);
        }
    }

    /** The chat as every window should show it now: its history, edits and the versions to bring back. */
    historyEvent(): HistoryEvent {
        return { type: 'History', history: [...this.history], edits: structuredClone(this.record.edits), branches: branchViews(this.history, this.record.branches ?? []) };
    }

    /** A request started: what it streams is kept from now on. */
    begin(requestId: string): void {
        const length = this.history.length;
        this.live = { requestId, events: [], historyLength: length, text: '', thinking: '', roundStart: length };
    }

    /** Keeps what the running request streamed, for a save mid-stream and for a window opening the chat meanwhile. */
    keep(events: readonly ChatEvent[]): void {
        const live = this.live;
        if (!live) {
            return;
        }
        for (const event of events) {
            // Streamed pieces are joined: a long answer keeps a few events, not one per token.
            const last = live.events.at(-1);
            if (last && (event.type === 'TextDelta' || event.type === 'ThinkingDelta') && last.type === event.type && last.requestId === event.requestId
                && !(last.type === 'ThinkingDelta' && last.signature !== undefined)) {
                live.events[live.events.length - 1] = { ...last, ...event, text: last.text + event.text };
            } else {
                live.events.push(event);
            }
        }
        if (this.history.length !== live.roundStart) {
            // A tool round was recorded: its answer is in the history now, a new one streams.
            live.roundStart = this.history.length;
            live.text = '';
            live.thinking = '';
        }
        for (const event of events) {
            if (event.type === 'TextDelta') {
                live.text += event.text;
            } else if (event.type === 'ThinkingDelta') {
                live.thinking += event.text;
            }
        }
    }

    /** The request ended: windows waiting to send go on. */
    end(): void {
        this.live = undefined;
        this.sender = undefined;
        for (const resolve of this.idleWaiters.splice(0)) {
            resolve();
        }
    }

    /**
     * The chat as its file holds it, now; undefined while it has no message (nothing to save).
     * While an answer streams, what arrived so far is its last message, marked interrupted: if the
     * process ends before the answer does, that is what the chat shows.
     */
    snapshot(): StoredChat | undefined {
        const history = [...this.history];
        const live = this.live;
        if (live) {
            history.push({ role: 'assistant', blocks: this.streamedBlocks(), interrupted: true });
        }
        return history.length === 0 ? undefined : this.stored(this.id, history);
    }

    /** The answer of the request running now as it ended without finishing: what had arrived of its last round, and how it ended. */
    unfinishedAnswer(ended: AnswerEnding): HistoryMessage {
        return { role: 'assistant', blocks: this.streamedBlocks(), ended };
    }

    /** The chat as a window opening it now shows it: while a request runs, the history up to its user message and the request's events so far. */
    view(): { chat?: StoredChat; live?: { requestId: string; events: ChatEvent[] } } {
        const live = this.live;
        const history = live ? this.history.slice(0, live.historyLength) : [...this.history];
        if (history.length === 0 && !live) {
            return {};
        }
        const chat = this.stored(this.id, history);
        return live ? { chat, live: { requestId: live.requestId, events: [...live.events] } } : { chat };
    }

    /** What the running request's current round has streamed (nothing between a recorded round and the next one's first piece). */
    private streamedBlocks(): HistoryBlock[] {
        if (this.agentAnswer) {
            return this.agentAnswer.historyBlocks();
        }
        const live = this.live;
        if (!live || this.history.length !== live.roundStart) {
            return [];
        }
        return [
            ...live.thinking ? [{ type: 'thinking' as const, text: live.thinking }] : [],
            ...live.text ? [{ type: 'text' as const, text: live.text }] : []
        ];
    }

    private stored(id: string, history: HistoryMessage[]): StoredChat {
        const { record } = this;
        return {
            version: CHAT_FILE_VERSION, id, title: record.title ?? titleOf(history), createdAt: record.createdAt,
            // A chat that moved to its conflict copy refers to the copies of its attachments there.
            updatedAt: new Date().toISOString(), history: this.formerIds.length > 0 ? this.store.relocateAttachments(history, this.formerIds, id) : history,
            edits: structuredClone(record.edits),
            ...(record.agent ? { agent: record.agent } : {}), ...(record.role ? { role: record.role } : {}),
            ...(record.compressedFrom ? { compressedFrom: record.compressedFrom } : {}),
            ...(record.agentSession ? { agentSession: { ...record.agentSession } } : {}),
            ...(record.branches?.length ? {
                branches: this.formerIds.length > 0
                    ? mapVersions(record.branches, messages => this.store.relocateAttachments(messages, this.formerIds, id))
                    : structuredClone(record.branches)
            } : {})
        };
    }
}
