import { CHAT_NOT_OPEN_MARK, ChatStorage, OpenedChat, QodeAssistChatService } from '../../common/chat-protocol';
import { ChatTranscript } from './chat-transcript';

interface Disposable {
    dispose(): void;
}

/** Whether the IDE backend can be reached (BackendConnection). */
export interface BackendStatus {
    /** The backend cannot be reached now: it is restarting, or the network is gone. */
    readonly away: boolean;
    onDidChange(listener: (away: boolean) => unknown): Disposable;
    /** The backend is usable again after being away; a restarted one holds no open chat. */
    onDidReconnect(listener: () => unknown): Disposable;
}

export const BACKEND_AWAY_PROBLEM = 'The IDE backend is restarting or unreachable; your message stays here — send it once QodeAssist is back.';

export function reasonOf(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

/** The backend does not hold the chat: it restarted since the chat was opened. */
export function isChatNotOpen(error: unknown): boolean {
    return reasonOf(error).includes(CHAT_NOT_OPEN_MARK);
}

/** What the reconnect needs of the chat view it keeps going. */
export interface ChatReconnectDeps {
    service: QodeAssistChatService;
    backend: BackendStatus;
    transcript: ChatTranscript;
    /** The backend chat the view shows now; compared by identity to know that the view moved on meanwhile. */
    chat(): Promise<string> | undefined;
    storage(): ChatStorage;
    /** The backend holds the chat again, as `opened` shows it; `live` is unset when no request runs in it. */
    reopened(opened: OpenedChat, storage: ChatStorage): void;
    /** The chat never had a message, so the backend has no file of it: the next message opens a new chat. */
    forget(): void;
    /** Why the chat could not be opened again. */
    notice(message: string): void;
    update(): void;
}

/**
 * Keeps a chat view going across a backend restart or a lost connection. While the backend is
 * away, Stop ends the answer here and the request is cancelled once the backend is back. When it
 * is back the chat is opened again under its id and shown as the backend holds it now; a call
 * that finds the chat gone from the backend opens it again first.
 */
export class ChatReconnect {
    protected cancelWhenBack = false;

    constructor(protected readonly deps: ChatReconnectDeps) { }

    /** Stop while away: nothing reaches the backend, so the streaming answers end here. */
    stopWhileAway(): void {
        this.cancelWhenBack = true;
        this.deps.transcript.cancelStreaming();
        this.deps.update();
    }

    /** Runs `call` on the chat `ensure` gives; a chat the backend does not hold (it restarted) is opened again first, once. */
    async withOpenChat<T>(ensure: () => Promise<string>, call: (chatId: string) => Promise<T>): Promise<T> {
        try {
            return await call(await ensure());
        } catch (error) {
            if (!isChatNotOpen(error) || this.deps.backend.away || !await this.reopen()) {
                throw error;
            }
            return call(await ensure());
        }
    }

    /**
     * Opens the chat of the view again (a restarted backend holds no chat; the same one attaches
     * this window again) and shows it as the backend holds it now, a running request included.
     * Returns whether the chat can be sent to again.
     */
    async reopen(): Promise<boolean> {
        const { deps } = this;
        const current = deps.chat();
        const chatId = await current?.catch(() => undefined);
        if (!chatId) {
            return false;
        }
        const storage = deps.storage();
        try {
            const opened = await deps.service.openSession(storage, chatId);
            if (deps.chat() !== current) {
                return false;
            }
            deps.transcript.resume(opened.chat?.history ?? [], opened.chat?.edits ?? {}, opened.live?.events, opened.branches);
            deps.reopened(opened, storage);
            if (opened.live && this.cancelWhenBack) {
                await deps.service.cancel(chatId);
            }
            this.cancelWhenBack = false;
            return true;
        } catch (error) {
            if (deps.chat() !== current || deps.backend.away) {
                // Away again: the next reconnect opens it.
                return false;
            }
            if (!deps.transcript.showsConversation()) {
                deps.forget();
                return true;
            }
            deps.notice(`QodeAssist could not open this chat again: ${reasonOf(error)}`);
            return false;
        } finally {
            deps.update();
        }
    }
}
