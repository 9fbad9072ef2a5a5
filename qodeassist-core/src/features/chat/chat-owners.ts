import { join } from 'node:path';
import { ChatStore } from '../../session/chat-store';
import { ChatEvent } from './chat-types';
import { OpenChat } from './open-chat';

/** How often at most a streaming answer is saved: a crash loses no more than this much of it. */
export const STREAM_SAVE_MS = 2_000;

/**
 * The chats open in this process, one owner per chat file however many windows and
 * connections show it: the chat's history, its running request and its saves live here once.
 * Only the owner writes the file, one save after another, each checked against the revision
 * it last read or wrote (ChatStore.saveOver); a copy that may not overwrite the file is saved
 * beside it as a conflict copy, and the chat goes on as that copy (its windows are told the new id).
 */
export class ChatOwners {
    private readonly chats = new Map<string, OpenChat>();
    /** Saves under way, also of chats closed meanwhile. */
    private readonly writing = new Set<Promise<void>>();

    constructor(private readonly streamSaveMs = STREAM_SAVE_MS) { }

    find(store: ChatStore, chatId: string): OpenChat | undefined {
        return this.chats.get(keyOf(store, chatId));
    }

    add(chat: OpenChat): void {
        this.chats.set(keyOf(chat.store, chat.id), chat);
    }

    /**
     * A window stopped showing the chat. When none shows it any more, its request is cancelled
     * and, once its last save is written, it is forgotten here. Until then it is still found: a
     * window opening it meanwhile (a view moved to another panel) takes it as it is, and never
     * reads a file a save is still about to replace.
     */
    async release(chat: OpenChat): Promise<void> {
        if (chat.viewers.size > 0) {
            return;
        }
        await chat.session?.cancel();
        await chat.saving;
        if (chat.viewers.size === 0 && this.chats.get(keyOf(chat.store, chat.id)) === chat) {
            // The external agent's whole process tree goes with the chat's last window.
            void chat.agentLink?.close();
            chat.agentLink = undefined;
            this.chats.delete(keyOf(chat.store, chat.id));
            clearTimeout(chat.streamSave);
            chat.streamSave = undefined;
        }
    }

    /** Tells every window showing the chat. */
    broadcast(chat: OpenChat, events: ChatEvent[]): void {
        for (const viewer of chat.viewers) {
            viewer.onEvents(chat.id, events);
        }
    }

    notify(chat: OpenChat, message: string): void {
        for (const viewer of chat.viewers) {
            viewer.onNotice(chat.id, message);
        }
    }

    /** Saves at the latest `streamSaveMs` from now (an answer is streaming); a save meanwhile takes its place. */
    saveSoon(chat: OpenChat): void {
        chat.streamSave ??= setTimeout(() => {
            chat.streamSave = undefined;
            this.save(chat);
        }, this.streamSaveMs);
    }

    /** Saves the chat in the background, one save after another; a failure is told to its windows, nothing is lost. */
    save(chat: OpenChat): void {
        clearTimeout(chat.streamSave);
        chat.streamSave = undefined;
        const saving = chat.saving.then(() => this.write(chat)).catch(error => {
            this.notify(chat, `The chat could not be saved to ${chat.store.directory}: ${error instanceof Error ? error.message : String(error)}. It stays open here; check the folder's permissions or change qodeassist.chat.historyLocation.`);
        });
        chat.saving = saving;
        this.writing.add(saving);
        void saving.finally(() => this.writing.delete(saving));
    }

    /** Resolves when every pending save has been written, closed chats' included. */
    async saved(): Promise<void> {
        await Promise.all([...this.writing]);
    }

    /** The chat as it is now, written over the revision it last read or wrote; a conflict copy when that revision is gone. */
    private async write(chat: OpenChat): Promise<void> {
        // Taken when this save's turn comes: the newest state, never an older one after a newer.
        const snapshot = chat.snapshot();
        if (!snapshot) {
            return;
        }
        const outcome = await chat.store.saveOver(snapshot, chat.file);
        if ('saved' in outcome) {
            chat.file = outcome.saved;
            return;
        }
        const copy = await chat.store.saveConflictCopy(snapshot);
        const from = chat.id;
        // The chat goes on as its copy: filed, shown and saved under the copy's id from now on.
        this.chats.delete(keyOf(chat.store, from));
        chat.formerIds.push(from);
        chat.id = copy.id;
        chat.file = copy.state;
        chat.record.title = `${snapshot.title} (conflict copy)`;
        this.chats.set(keyOf(chat.store, chat.id), chat);
        for (const viewer of chat.viewers) {
            viewer.onMoved(from, chat.id);
        }
        this.notify(chat, `${outcome.conflict}. Nothing was overwritten: this chat goes on as "${chat.record.title}" (${join(chat.store.directory, `${copy.id}.json`)}); both are in the chat history.`);
    }
}

function keyOf(store: ChatStore, chatId: string): string {
    return `${store.directory}\0${chatId}`;
}
