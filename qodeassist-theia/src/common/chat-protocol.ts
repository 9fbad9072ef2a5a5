import type { SessionEvent } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';

export type { SessionEvent };

export const QODEASSIST_CHAT_PATH = '/services/qodeassist/chat';

/**
 * Where a chat request goes, as the frontend knows it from preferences.
 * It names the API key (`apiKeyRef`) but never carries it: the backend resolves it.
 */
export interface ChatProviderSettings {
    /** Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 */
    url: string;
    model: string;
    /** SecretsStore reference; the environment variable `<REF>_API_KEY` on the backend until the configuration UI brings more stores. */
    apiKeyRef: string;
}

export const QodeAssistChatService = Symbol('QodeAssistChatService');

/** Backend chat sessions, one set per frontend connection. */
export interface QodeAssistChatService extends RpcServer<QodeAssistChatClient> {
    /** Opens an empty session and returns its id. */
    openSession(): Promise<string>;
    /** Sends a user message; events follow on the client as `onSessionEvents(sessionId, …)`. Returns the request id. */
    send(sessionId: string, text: string, provider: ChatProviderSettings): Promise<string>;
    /** Cancels the request in flight; resolves after its `Cancelled` event was sent. */
    cancel(sessionId: string): Promise<void>;
    closeSession(sessionId: string): Promise<void>;
}

export const QodeAssistChatClient = Symbol('QodeAssistChatClient');

/**
 * The frontend side: the backend pushes every session event here, batched as the
 * events arrived from the provider (one RPC message per network chunk, not per token);
 * the frontend never polls.
 */
export interface QodeAssistChatClient {
    onSessionEvents(sessionId: string, events: SessionEvent[]): void;
}

/** The chat endpoint below an OpenAI-compatible base URL. */
export function chatCompletionsUrl(baseUrl: string): string {
    return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}
