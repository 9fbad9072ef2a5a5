import {
    ConfigurationService, defaultConfigRoots, EnvironmentSecretsStore, environmentVariableFor, pickAgent, prepareAgentTarget, QodeAssistError,
    ResolvedAgent, SecretsStore, Session, SessionEvent, SessionTarget, toErrorInfo
} from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { randomUUID } from 'node:crypto';
import { ChatSendOptions, QodeAssistChatClient, QodeAssistChatService } from '../common/chat-protocol';

export const QodeAssistSecretsStore = Symbol('QodeAssistSecretsStore');
export const QodeAssistConfiguration = Symbol('QodeAssistConfiguration');

/** Resolves the live configuration for a workspace folder (one service per folder, watched). */
export interface ConfigurationProvider {
    forWorkspace(workspacePath: string | undefined): ConfigurationService;
}

/** One ConfigurationService per workspace folder, created on first use and kept watching. */
export class WorkspaceConfigurations implements ConfigurationProvider {
    private readonly services = new Map<string, ConfigurationService>();

    forWorkspace(workspacePath: string | undefined): ConfigurationService {
        const key = workspacePath ?? '';
        let service = this.services.get(key);
        if (!service) {
            service = new ConfigurationService(defaultConfigRoots(workspacePath)).start();
            this.services.set(key, service);
        }
        return service;
    }

    dispose(): void {
        for (const service of this.services.values()) {
            service.dispose();
        }
        this.services.clear();
    }
}

/** The chat sessions of one frontend connection; everything is cancelled when the connection closes. */
@injectable()
export class QodeAssistChatServiceImpl implements QodeAssistChatService {
    private client: QodeAssistChatClient | undefined;
    private readonly sessions = new Map<string, Session>();
    /** The agent answering each session's current request, to say where its key comes from. */
    private readonly answering = new Map<string, ResolvedAgent>();

    constructor(
        @inject(QodeAssistSecretsStore) private readonly secrets: SecretsStore,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider
    ) { }

    setClient(client: QodeAssistChatClient | undefined): void {
        this.client = client;
    }

    async openSession(): Promise<string> {
        const sessionId = randomUUID();
        this.sessions.set(sessionId, new Session(sessionId, events => this.client?.onSessionEvents(sessionId, events.map(event => this.explain(sessionId, event)))));
        return sessionId;
    }

    async send(sessionId: string, text: string, options: ChatSendOptions): Promise<string> {
        const session = this.sessionFor(sessionId);
        let target: SessionTarget;
        try {
            target = await this.targetFor(sessionId, options);
        } catch (error) {
            // Nothing was sent: report it as a failed request so the chat shows it like any other.
            const requestId = randomUUID();
            this.client?.onSessionEvents(sessionId, [
                { type: 'RequestStarted', requestId },
                { type: 'Failed', requestId, error: toErrorInfo(error) }
            ]);
            return requestId;
        }
        return session.send(text, target);
    }

    /** An Auth failure names the variable the key is read from: the provider's own message cannot know it. */
    private explain(sessionId: string, event: SessionEvent): SessionEvent {
        const agent = this.answering.get(sessionId);
        if (event.type !== 'Failed' || event.error.category !== 'Auth' || !agent || event.error.message.includes('environment variable')) {
            return event;
        }
        const ref = agent.provider.instance.api_key_ref ?? agent.provider.instance.name;
        return {
            ...event,
            error: { ...event.error, message: `${event.error.message} The key of provider "${agent.provider.instance.name}" is read from the environment variable ${environmentVariableFor(ref)}.` }
        };
    }

    async cancel(sessionId: string): Promise<void> {
        await this.sessions.get(sessionId)?.cancel();
    }

    async closeSession(sessionId: string): Promise<void> {
        const session = this.sessions.get(sessionId);
        this.sessions.delete(sessionId);
        this.answering.delete(sessionId);
        await session?.cancel();
    }

    dispose(): void {
        for (const session of this.sessions.values()) {
            void session.cancel();
        }
        this.sessions.clear();
        this.client = undefined;
    }

    /** The chat roster's agent for this workspace (or the one the user chose), with its key resolved here. */
    private async targetFor(sessionId: string, options: ChatSendOptions): Promise<SessionTarget> {
        const configuration = this.configurations.forWorkspace(options.workspacePath).current;
        const agent = options.agent
            ? configuration.agents.get(options.agent)
            : pickAgent(configuration, 'chat', { file: options.file, project: options.project });
        if (!agent) {
            const errors = configuration.issues.filter(issue => issue.severity === 'error').length;
            throw new QodeAssistError({
                category: 'Config',
                message: options.agent
                    ? `There is no agent named "${options.agent}". Pick another in the QodeAssist settings (qodeassist.chat.agent).`
                    : `No chat agent is available: the chat roster is empty or none of its agents fits this file.${errors ? ` The configuration has ${errors} error(s); fix them first.` : ''} Add an agent to [chat] in .qodeassist/agents/rosters.toml.`
            });
        }
        this.answering.set(sessionId, agent);
        const prepared = await prepareAgentTarget(agent, this.secrets);
        return { ...prepared, systemPrompt: agent.renderSystemPrompt(), agentName: agent.name, model: agent.model };
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
