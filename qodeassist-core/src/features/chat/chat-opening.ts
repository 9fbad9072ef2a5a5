import { randomUUID } from 'node:crypto';
import { ChatStore } from '../../session/chat-store';
import { branchViews } from './chat-branches';
import { ChatOwners } from './chat-owners';
import { OpenedChat } from './chat-types';
import { OpenChat } from './open-chat';

/**
 * Opens a chat for a window: a new one, or a saved one. A chat another window (or this one) has
 * open already is shown as it is now, a running answer included; nothing is cancelled or read
 * again. `show` adds the chat to the window's own.
 */
export async function openChatIn(owners: ChatOwners, store: ChatStore, chatId: string | undefined, show: (chat: OpenChat) => void): Promise<OpenedChat> {
    if (!chatId) {
        const chat = new OpenChat(randomUUID(), store, { createdAt: new Date().toISOString(), edits: {} });
        owners.add(chat);
        show(chat);
        return { chatId: chat.id };
    }
    const owned = () => {
        const chat = owners.find(store, chatId);
        if (chat) {
            show(chat);
            const view = chat.view();
            const agentSession = chat.agentLink?.state();
            return { chatId, ...view, branches: branchViews(view.chat?.history ?? [], chat.record.branches ?? []), ...(agentSession ? { agentSession } : {}) };
        }
        return undefined;
    };
    const shown = owned();
    if (shown) {
        return shown;
    }
    const { chat: stored, state } = await store.open(chatId);
    const original = stored.compressedFrom ? await store.load(stored.compressedFrom).then(chat => chat.history, () => undefined) : undefined;
    // Another window may have opened it while the file was read: there is one owner.
    const shownMeanwhile = owned();
    if (shownMeanwhile) {
        return shownMeanwhile;
    }
    const chat = OpenChat.fromStored(store, stored, original, state);
    owners.add(chat);
    show(chat);
    return { chatId, chat: stored, branches: branchViews(stored.history, stored.branches ?? []) };
}
