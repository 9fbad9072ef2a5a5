import { EnvironmentSecretsStore, openAIChatBody, SecretsStore, Session, streamWire, WIRE_PROTOCOLS } from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { randomUUID } from 'node:crypto';
import {
    chatCompletionsUrl, ChatProviderSettings, QodeAssistChatClient, QodeAssistChatService
} from '../common/chat-protocol';

export const QodeAssistSecretsStore = Symbol('QodeAssistSecretsStore');

/** The chat sessions of one frontend connection; everything is cancelled when the connection closes. */
@injectable()
export class QodeAssistChatServiceImpl implements QodeAssistChatService {
    private client: QodeAssistChatClient | undefined;
    private readonly sessions = new Map<string, Session>();

    constructor(@inject(QodeAssistSecretsStore) private readonly secrets: SecretsStore) { }

    setClient(client: QodeAssistChatClient | undefined): void {
        this.client = client;
    }

    async openSession(): Promise<string> {
        const sessionId = randomUUID();
        const session = new Session(sessionId, request => streamWire(WIRE_PROTOCOLS['openai-chat'], request), openAIChatBody,
            events => this.client?.onSessionEvents(sessionId, [...events]));
        this.sessions.set(sessionId, session);
        return sessionId;
    }

    async send(sessionId: string, text: string, provider: ChatProviderSettings): Promise<string> {
        const session = this.sessionFor(sessionId);
        const apiKey = provider.apiKeyRef ? await this.secrets.get(provider.apiKeyRef) : undefined;
        return session.send(text, { url: chatCompletionsUrl(provider.url), model: provider.model, apiKey });
    }

    async cancel(sessionId: string): Promise<void> {
        await this.sessions.get(sessionId)?.cancel();
    }

    async closeSession(sessionId: string): Promise<void> {
        const session = this.sessions.get(sessionId);
        this.sessions.delete(sessionId);
        await session?.cancel();
    }

    dispose(): void {
        for (const session of this.sessions.values()) {
            void session.cancel();
        }
        this.sessions.clear();
        this.client = undefined;
    }

    private sessionFor(sessionId: string): Session {
        const session = this.sessions.get(sessionId);
        if (!session) {
            throw new Error(`No QodeAssist chat session ${sessionId}; it was closed or the backend restarted. Start a new chat.`);
        }
        return session;
    }
}

export function defaultSecretsStore(): SecretsStore {
    return new EnvironmentSecretsStore();
}
