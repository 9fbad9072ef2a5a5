import { HistoryMessage } from '../../context/conversation-history';
import { ChatStore, CHAT_FILE_VERSION, StoredChat, StoredFileEdit, titleOf } from '../../session/chat-store';
import { Session } from '../../session/session';
import { ToolKitExecutor } from '../../tools/toolkit';

/** What the saved file holds about a chat besides the session's history. */
export interface ChatRecord {
    title?: string;
    createdAt: string;
    agent?: string;
    role?: string;
    edits: Record<string, StoredFileEdit>;
    compressedFrom?: string;
}

/** A chat open in a host: its store, its record, and the session answering in it. */
export class OpenChat {
    /** The history before a session exists (a restored chat); the session owns it afterwards. */
    seed: HistoryMessage[];
    session?: Session;
    /** Linked files pinned in the session. */
    readonly linked = new Set<string>();
    /** The chat's tools, created for its workspace and settings; remembers "allow for this chat". */
    tools?: { key: string; executor: ToolKitExecutor };
    /** Saves run one after another, newest last. */
    saving: Promise<void> = Promise.resolve();
    /** Turns are prepared one at a time (a send, an estimate): a session swap never happens under another's feet. */
    private preparing: Promise<unknown> = Promise.resolve();

    constructor(
        readonly id: string,
        readonly store: ChatStore,
        readonly record: ChatRecord,
        seed: HistoryMessage[] = [],
        /** The history of the chat this one summarizes, for read_original_history. */
        readonly original?: readonly HistoryMessage[]
    ) {
        this.seed = seed;
    }

    static fromStored(store: ChatStore, stored: StoredChat, original?: readonly HistoryMessage[]): OpenChat {
        return new OpenChat(stored.id, store, {
            title: stored.title, createdAt: stored.createdAt, agent: stored.agent, role: stored.role, edits: stored.edits, compressedFrom: stored.compressedFrom
        }, stored.history, original);
    }

    /** Runs `work` after the chat's earlier preparations ended, whatever their outcome. */
    exclusive<T>(work: () => Promise<T>): Promise<T> {
        const result = this.preparing.then(work, work);
        this.preparing = result.catch(() => undefined);
        return result;
    }

    get history(): readonly HistoryMessage[] {
        return this.session?.history ?? this.seed;
    }

    /** The chat as its file holds it, now; undefined while it has no message (nothing to save). */
    snapshot(): StoredChat | undefined {
        const history = [...this.history];
        if (history.length === 0) {
            return undefined;
        }
        const { record } = this;
        return {
            version: CHAT_FILE_VERSION, id: this.id, title: record.title ?? titleOf(history), createdAt: record.createdAt,
            updatedAt: new Date().toISOString(), history, edits: structuredClone(record.edits),
            ...(record.agent ? { agent: record.agent } : {}), ...(record.role ? { role: record.role } : {}),
            ...(record.compressedFrom ? { compressedFrom: record.compressedFrom } : {})
        };
    }
}
