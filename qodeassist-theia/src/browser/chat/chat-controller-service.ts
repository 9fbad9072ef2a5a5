import type { ChatStorage, PermissionAnswer } from '../../common/chat-protocol';
import type { PendingPermission } from '../shared/pending-permission';
import type { ChatControllerDeps, ChatViewState } from './chat-controller-ports';
import type { ChatMessage, ChatTranscript, ToolActivity } from './chat-transcript';

/**
 * What a chat view asks of the one chat it shows: send, stop, summarize, rewrite its history, and
 * the transcript it renders. `ChatController` is QodeAssist's; a product may bring its own.
 */
export interface ChatControllerService {
    readonly transcript: ChatTranscript;
    /** Tool permission requests waiting for the user. */
    readonly permissions: readonly PendingPermission[];
    /** Something about the chat that is not a request's outcome; the view clears it when dismissed. */
    notice: string | undefined;
    /** The saved chat shown, once it has one. */
    readonly savedChat: ChatViewState | undefined;
    /** Nothing else is sent meanwhile. */
    readonly busy: boolean;
    readonly summarizing: boolean;
    currentChatId(): Promise<string | undefined>;
    /** The backend chat of this view, opened on first use (the composer uploads attachments beside it). */
    ensureChat(): Promise<string>;
    storage(location?: ChatStorage['location']): ChatStorage;
    openSaved(chatId: string, location?: ChatStorage['location']): Promise<void>;
    send(text: string): Promise<void>;
    editAndResend(question: ChatMessage, text: string): Promise<void>;
    resetTo(message: ChatMessage): Promise<void>;
    switchVersion(branchId: string): Promise<void>;
    retry(answer: ChatMessage): Promise<void>;
    stop(): Promise<void>;
    summarize(): Promise<void>;
    stopSummary(): Promise<void>;
    answerPermission(pending: PendingPermission, answer: PermissionAnswer | { optionId: string }): void;
    setEdit(message: ChatMessage, tools: ToolActivity[], state: 'applied' | 'undone'): Promise<void>;
    dispose(): void;
}

/**
 * Makes the controller of each chat view. A factory, not a service: each view has its own,
 * bound to that view's composer and callbacks. A product rebinds it to wrap or replace `ChatController`.
 */
export const ChatControllerFactory = Symbol('ChatControllerFactory');
export type ChatControllerFactory = (deps: ChatControllerDeps) => ChatControllerService;
