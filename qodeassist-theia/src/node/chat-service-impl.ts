import {
    ConfigurationService, ContentLoader, ContextAssembler, defaultConfigRoots, EnvironmentSecretsStore, keySourceOf, pickAgent,
    QodeAssistError, ResolvedAgent, SecretsStore, Session, SessionEvent, SessionManager, sessionAgentFor, TokenEstimator, toErrorInfo,
    createBuiltinTools, ToolContributorRegistry, ToolKitExecutor, WorkspaceFiles, defaultSkillRoots, SkillsEngine, HistoryBlock
} from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { randomUUID } from 'node:crypto';
import { ChatSendOptions, ChatToolSettings, QodeAssistChatClient, QodeAssistChatService } from '../common/chat-protocol';

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

interface Chat {
    session?: Session;
    /** The chat's tools, created for its workspace and settings; remembers "allow for this chat". */
    tools?: { key: string; executor: ToolKitExecutor };
}

/** The chat sessions of one frontend connection; everything is cancelled when the connection closes. */
@injectable()
export class QodeAssistChatServiceImpl implements QodeAssistChatService {
    private client: QodeAssistChatClient | undefined;
    private readonly chats = new Map<string, Chat>();
    private readonly managers = new Map<ConfigurationService, SessionManager>();
    private readonly estimator = new TokenEstimator();
    private readonly assembler = new ContextAssembler(this.estimator, new ContentLoader());
    private readonly stopWatching: Array<() => void> = [];
    private readonly skills = new Map<string, SkillsEngine>();

    constructor(
        @inject(QodeAssistSecretsStore) private readonly secrets: SecretsStore,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider
    ) { }

    setClient(client: QodeAssistChatClient | undefined): void {
        this.client = client;
    }

    async openSession(): Promise<string> {
        const chatId = randomUUID();
        this.chats.set(chatId, {});
        return chatId;
    }

    async send(chatId: string, text: string, options: ChatSendOptions): Promise<string> {
        const chat = this.chatFor(chatId);
        try {
            const configurationService = this.configurations.forWorkspace(options.workspacePath);
            const agent = this.agentFor(configurationService, options);
            if (chat.session?.agent.name !== agent.name) {
                // Another agent answers from now on: the conversation moves with the chat. Acquire first, so a
                // failure (a missing key) leaves the chat and its history as they were.
                const session = await this.managerFor(configurationService).acquire(agent.name, events => this.forward(chatId, agent, events));
                const previous = chat.session;
                session.restore(previous?.history ?? []);
                chat.session = session;
                if (previous) {
                    await this.managerFor(configurationService).release(previous);
                }
            }
            const skills = this.skillsFor(options.workspacePath);
            const tools = agent.enableTools && options.workspacePath ? this.toolsFor(chatId, chat, options.workspacePath, options.tools, skills) : undefined;
            chat.session.setLayer('skills.catalog', [skills.alwaysOnText(), tools ? skills.catalog() : ''].filter(Boolean).join('\n\n'));
            const blocks: HistoryBlock[] = skills.invoke(text) ?? [{ type: 'text', text }];
            return await chat.session.send(blocks, tools ? { tools: tools.definitions(), executor: tools } : {});
        } catch (error) {
            // Nothing was sent: report it as a failed request so the chat shows it like any other.
            const requestId = randomUUID();
            this.client?.onSessionEvents(chatId, [{ type: 'RequestStarted', requestId }, { type: 'Failed', requestId, error: toErrorInfo(error) }]);
            return requestId;
        }
    }

    async cancel(chatId: string): Promise<void> {
        await this.chats.get(chatId)?.session?.cancel();
    }

    async closeSession(chatId: string): Promise<void> {
        const chat = this.chats.get(chatId);
        this.chats.delete(chatId);
        await chat?.session?.cancel();
    }

    dispose(): void {
        for (const chat of this.chats.values()) {
            void chat.session?.cancel();
        }
        this.chats.clear();
        for (const stop of this.stopWatching.splice(0)) {
            stop();
        }
        for (const engine of this.skills.values()) {
            engine.dispose();
        }
        this.skills.clear();
        this.client = undefined;
    }

    /** The built-in tools for a chat, confined to its workspace folder; write and execute ask the user in that chat. */
    private toolsFor(chatId: string, chat: Chat, workspace: string, settings: ChatToolSettings | undefined, skills: SkillsEngine): ToolKitExecutor {
        const key = JSON.stringify([workspace, settings ?? null]);
        if (chat.tools?.key !== key) {
            const registry = new ToolContributorRegistry();
            const tools = createBuiltinTools({
                workspace, allowedCommands: settings?.allowedCommands, commandTimeoutMs: (settings?.commandTimeoutSeconds ?? 60) * 1000,
                commandOutputLimit: settings?.commandOutputLimit, buildCommand: settings?.buildCommand, skills,
                diagnostics: { get: async path => this.client ? this.client.getDiagnostics(path) : [] }
            });
            registry.register(() => tools);
            const executor = new ToolKitExecutor(registry, chatId, {
                files: new WorkspaceFiles([workspace], { allowOutside: settings?.allowOutsideWorkspace, useGitignore: settings?.useGitignore ?? true }),
                documents: { readOpen: async path => this.client?.readOpenDocument(path) },
                disabled: new Set(settings?.disabled ?? []),
                permissions: {
                    ask: async request => this.client ? this.client.requestToolPermission(chatId, request) : 'deny'
                }
            });
            chat.tools = { key, executor };
        }
        return chat.tools.executor;
    }

    /** Skills of a workspace (and the user's), watched. */
    private skillsFor(workspace: string | undefined): SkillsEngine {
        const key = workspace ?? '';
        let engine = this.skills.get(key);
        if (!engine) {
            engine = new SkillsEngine(defaultSkillRoots(workspace), { workspace }).start();
            this.skills.set(key, engine);
        }
        return engine;
    }

    private forward(chatId: string, agent: ResolvedAgent, events: readonly SessionEvent[]): void {
        this.client?.onSessionEvents(chatId, events.map(event => explainAuthFailure(agent, event)));
    }

    /** The agent the user chose, or the chat roster's first that fits. */
    private agentFor(configurationService: ConfigurationService, options: ChatSendOptions): ResolvedAgent {
        const configuration = configurationService.current;
        const agent = options.agent
            ? configuration.agents.get(options.agent)
            : pickAgent(configuration, 'chat', { file: options.file, project: options.project });
        if (agent) {
            return agent;
        }
        const errors = configuration.issues.filter(issue => issue.severity === 'error').length;
        throw new QodeAssistError({
            category: 'Config',
            message: options.agent
                ? `There is no agent named "${options.agent}". Pick another in the QodeAssist settings (qodeassist.chat.agent).`
                : `No chat agent is available: the chat roster is empty or none of its agents fits this file.${errors ? ` The configuration has ${errors} error(s); fix them first.` : ''} Add an agent to [chat] in .qodeassist/agents/rosters.toml.`
        });
    }

    /** One session pool per configuration, emptied whenever that configuration changes. */
    private managerFor(configurationService: ConfigurationService): SessionManager {
        let manager = this.managers.get(configurationService);
        if (!manager) {
            const created = new SessionManager(async name => {
                const agent = configurationService.current.agents.get(name);
                if (!agent) {
                    throw new QodeAssistError({ category: 'Config', message: `The agent "${name}" is no longer configured.` });
                }
                return sessionAgentFor(agent, this.secrets);
            }, { assembler: this.assembler, estimator: this.estimator });
            this.stopWatching.push(configurationService.onDidChange(() => created.clear()));
            this.managers.set(configurationService, created);
            manager = created;
        }
        return manager;
    }

    private chatFor(chatId: string): Chat {
        const chat = this.chats.get(chatId);
        if (!chat) {
            throw new Error(`No QodeAssist chat session ${chatId}; it was closed or the backend restarted. Start a new chat.`);
        }
        return chat;
    }
}

/** An Auth failure names the variable the key is read from: the provider's own message cannot know it. */
function explainAuthFailure(agent: ResolvedAgent, event: SessionEvent): SessionEvent {
    if (event.type !== 'Failed' || event.error.category !== 'Auth' || event.error.message.includes('environment variable')) {
        return event;
    }
    return {
        ...event,
        error: { ...event.error, message: `${event.error.message} The key of provider "${agent.provider.instance.name}" is read from the environment variable ${keySourceOf(agent).variable}.` }
    };
}

export function defaultSecretsStore(): SecretsStore {
    return new EnvironmentSecretsStore();
}
