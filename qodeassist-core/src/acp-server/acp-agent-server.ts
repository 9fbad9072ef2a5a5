import type { AgentConnection, AgentContext, InitializeResponse, LoadSessionResponse, NewSessionResponse, Stream } from '@agentclientprotocol/sdk';
import { agent, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isProjectLayerLoaded } from '../agents/configuration-service';
import { projectLayerEntries, untrustedProjectNotice } from '../config/project-trust';
import { Logger } from '../ports/logger';
import { QodeAssistRuntime } from '../runtime/qodeassist-runtime';
import { AnyTool } from '../tools/tool';
import { QodeAssistError, toErrorInfo } from '../wire/error-info';
import { redactSecrets } from '../wire/redaction';
import { agentChoices } from '../features/chat/chat-agents';
import { ChatOwners } from '../features/chat/chat-owners';
import { FolderChats } from './folder-chats';
import { AcpChatSession } from './acp-chat-session';
import { AcpServerSettings } from './acp-server-settings';
import { clientOffers, ClientOffers } from './client-services';
import { clientProgramTools } from './client-program-tools';
import { replayHistory } from './history-replay';
import { requestErrorOf } from './request-errors';
import { applyChoice, MODE_OPTION, sessionConfigOptions, sessionModes } from './session-options';
import { TrustedConfigurations, TrustedFolders } from './trusted-configurations';

/** ACP's "resource not found" (an unknown session). */
const RESOURCE_NOT_FOUND = -32002;

const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/** Runs a handler; what it throws reaches the client as a typed JSON-RPC error (cause and fix in the message). */
async function answering<T>(run: () => Promise<T>): Promise<T> {
    try {
        return await run();
    } catch (error) {
        throw requestErrorOf(error);
    }
}

/**
 * QodeAssist served as an ACP agent: one connection (one client), many sessions, each a chat of
 * the IDE's chat feature over one runtime composed like the bench's (keys from the environment,
 * a `.env` and the secrets file; no Theia). Project configuration loads only in folders the user
 * trusts on the command line.
 */
export class QodeAssistAcpServer {
    private readonly sessions = new Map<string, AcpChatSession>();
    private readonly trust: TrustedFolders;
    private readonly configurations: TrustedConfigurations;
    private readonly runtime: QodeAssistRuntime;
    private readonly owners = new ChatOwners();
    private offers: ClientOffers = clientOffers(undefined);
    private readonly programTools = new Map<string, AnyTool[]>();
    private readonly chats: FolderChats;

    constructor(private readonly settings: AcpServerSettings, private readonly logger: Logger) {
        this.trust = new TrustedFolders(settings.trusted);
        this.configurations = new TrustedConfigurations(this.trust, settings.userRoot, settings.home);
        this.chats = new FolderChats(join(settings.userRoot, 'chats'));
        this.runtime = new QodeAssistRuntime({
            secrets: settings.secrets, userHome: settings.home, logger,
            extraTools: workspace => () => this.clientTools(workspace)
        });
    }

    connect(stream: Stream): AgentConnection {
        return agent({ name: 'qodeassist' })
            .onRequest('initialize', ({ params }) => {
                this.offers = clientOffers(params.clientCapabilities);
                return this.initialize();
            })
            .onRequest('session/new', ({ params, client }) => answering(() => this.newSession(params.cwd, params.mcpServers.length, client)))
            .onRequest('session/load', ({ params, client }) => answering(() => this.loadSession(params.sessionId, params.cwd, client)))
            .onRequest('session/list', ({ params }) => answering(async () => ({ sessions: await this.chats.list(params.cwd ?? undefined) })))
            .onRequest('session/prompt', ({ params, signal }) => answering(() => this.session(params.sessionId).prompt(params.prompt, signal)))
            .onNotification('session/cancel', async ({ params }) => {
                await this.sessions.get(params.sessionId)?.cancel();
            })
            .onRequest('session/set_mode', ({ params }) => answering(async () => {
                this.choose(params.sessionId, MODE_OPTION, params.modeId);
                return {};
            }))
            .onRequest('session/set_config_option', ({ params }) => answering(async () => ({
                configOptions: this.choose(params.sessionId, params.configId, params.value)
            })))
            .onRequest('session/close', ({ params }) => answering(async () => {
                const session = this.session(params.sessionId);
                this.sessions.delete(params.sessionId);
                await session.close();
                return {};
            }))
            .connect(stream);
    }

    /** Ends every session (running answers are stopped, chats saved) and the runtime. */
    async dispose(): Promise<void> {
        const sessions = [...this.sessions.values()];
        this.sessions.clear();
        await Promise.all(sessions.map(session => session.close().catch(() => undefined)));
        this.runtime.dispose();
        this.configurations.dispose();
    }

    private initialize(): InitializeResponse {
        const configuration = this.configurations.forWorkspace(undefined).current;
        return {
            protocolVersion: PROTOCOL_VERSION,
            agentInfo: { name: 'qodeassist', title: 'QodeAssist', version: VERSION },
            agentCapabilities: {
                loadSession: true,
                // Images when a chat agent of the user's configuration takes them; a prompt for one that does not is refused with the ones that do.
                promptCapabilities: { image: agentChoices(configuration, 'chat').some(choice => choice.images), audio: false, embeddedContext: true },
                mcpCapabilities: { http: false, sse: false },
                sessionCapabilities: { close: {}, list: {} }
            },
            authMethods: []
        };
    }

    private async newSession(cwd: string, mcpServers: number, client: AgentContext): Promise<NewSessionResponse> {
        const session = await this.createSession(cwd, client);
        await session.open();
        if (mcpServers > 0) {
            this.log(`session ${session.sessionId}: the ${mcpServers} MCP server(s) the client passed are not used: qodeassist-acp offers its built-in tools only.`);
        }
        this.sessions.set(session.sessionId, session);
        this.announce(session);
        return { sessionId: session.sessionId, ...this.options(session) };
    }

    /** A saved chat as a session again: its messages are replayed as updates before the answer. */
    private async loadSession(sessionId: string, cwd: string, client: AgentContext): Promise<LoadSessionResponse> {
        const session = this.sessions.get(sessionId) ?? await this.createSession(cwd, client, sessionId);
        let opened;
        try {
            opened = await session.open(sessionId);
        } catch (error) {
            // Missing or unreadable, the chat cannot be a session: the message says which, and what to do.
            throw new RequestError(RESOURCE_NOT_FOUND, redactSecrets(toErrorInfo(error).message), { sessionId });
        }
        this.sessions.set(session.sessionId, session);
        await session.replay(replayHistory(opened.chat?.history ?? [], session.cwd));
        this.announce(session);
        return this.options(session);
    }

    /** A session in `cwd`; its chat is kept with the folder's other chats (`sessionId`: an existing one, wherever it was saved). */
    private async createSession(cwd: string, client: AgentContext, sessionId?: string): Promise<AcpChatSession> {
        if (!isAbsolute(cwd)) {
            throw new QodeAssistError({ category: 'Validation', message: `The session folder must be an absolute path, not ${JSON.stringify(cwd)}.` });
        }
        return new AcpChatSession({
            runtime: this.runtime, configurations: this.configurations, owners: this.owners, userHome: this.settings.home,
            chats: sessionId === undefined ? await this.chats.directoryFor(cwd) : await this.chats.directoryOf(cwd, sessionId), client, offers: this.offers, tools: this.settings.tools, log: line => this.log(line)
        }, cwd);
    }

    private session(sessionId: string): AcpChatSession {
        const session = this.sessions.get(sessionId);
        if (!session) {
            throw new RequestError(RESOURCE_NOT_FOUND, `There is no session ${sessionId} on this connection; start one with session/new, or reopen a saved one with session/load.`, { sessionId });
        }
        return session;
    }

    private options(session: AcpChatSession): Pick<NewSessionResponse, 'configOptions' | 'modes'> {
        const catalog = session.catalog();
        return { configOptions: sessionConfigOptions(catalog, session.choices), modes: sessionModes(session.choices) };
    }

    /** Sets an option (a mode is the mode option); the other view of the mode follows. */
    private choose(sessionId: string, configId: string, value: unknown) {
        const session = this.session(sessionId);
        const catalog = session.catalog();
        session.choices = applyChoice(catalog, session.choices, configId, value);
        const configOptions = sessionConfigOptions(catalog, session.choices);
        if (configId === MODE_OPTION) {
            session.send({ sessionUpdate: 'current_mode_update', currentModeId: String(value) });
            session.send({ sessionUpdate: 'config_option_update', configOptions });
        }
        return configOptions;
    }

    /** After the session's answer went: the skills as slash commands, and what an untrusted folder leaves unread. */
    private announce(session: AcpChatSession): void {
        setImmediate(() => {
            session.send({ sessionUpdate: 'available_commands_update', availableCommands: session.commands() });
            const skipped = this.trust.isTrusted(session.cwd) ? [] : projectLayerEntries(session.cwd);
            if (skipped.length > 0) {
                const notice = `${untrustedProjectNotice(skipped)}. Start qodeassist-acp with --trust-workspace ${session.cwd} to load it.`;
                if (this.offers.notices) {
                    session.send({ sessionUpdate: 'notice', severity: 'warning', title: 'Project configuration not loaded', description: notice });
                } else {
                    this.log(notice);
                }
            }
        });
    }

    /** The terminal and build tools through the client's terminal, in a trusted folder of a client that offers one. */
    private clientTools(workspace: string): readonly AnyTool[] {
        if (!this.offers.terminal || !isProjectLayerLoaded(this.configurations, workspace)) {
            return [];
        }
        let tools = this.programTools.get(workspace);
        if (!tools) {
            tools = clientProgramTools(workspace, this.settings.tools, (chatId, tool, args) => this.sessions.get(chatId)?.terminalFor(tool, args));
            this.programTools.set(workspace, tools);
        }
        return tools;
    }

    private log(line: string): void {
        this.logger.log('info', 'qodeassist.session', line);
    }
}
