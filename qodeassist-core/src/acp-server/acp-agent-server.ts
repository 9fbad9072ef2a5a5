import type { AgentConnection, AgentContext, InitializeResponse, LoadSessionResponse, McpServer, NewSessionResponse, Stream } from '@agentclientprotocol/sdk';
import { agent, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isProjectLayerLoaded } from '../agents/configuration-service';
import { CONSENTS_FILE } from '../config/consent-registry';
import { environmentPolicy } from '../config/managed-policy';
import { projectLayerEntries, untrustedProjectNotice } from '../config/project-trust';
import { McpServerConfig } from '../mcp/mcp-config';
import { McpConsentStore } from '../mcp/mcp-consent';
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
import { clientMcpServerConfigs, CLIENT_MCP_TRANSPORTS } from './client-mcp-servers';
import { clientProgramTools } from './client-program-tools';
import { replayHistory } from './history-replay';
import { requestErrorOf } from './request-errors';
import { SessionMcpServers } from './session-mcp-servers';
import { applyChoice, MODE_OPTION, sessionConfigOptions, sessionModes } from './session-options';
import { TrustedConfigurations, TrustedFolders } from './trusted-configurations';

/** How long session/new (and session/load) waits for the client's MCP servers to connect before answering. */
const MCP_READY_WAIT_MS = 10_000;

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
    /** The user's consents (the one registry, in the configuration folder): a client's MCP server in a folder that is not trusted needs one. */
    private readonly consents: McpConsentStore;
    private disposed = false;

    constructor(private readonly settings: AcpServerSettings, private readonly logger: Logger) {
        this.trust = new TrustedFolders(settings.trusted);
        this.configurations = new TrustedConfigurations(this.trust, settings.userRoot, settings.home);
        this.chats = new FolderChats(join(settings.userRoot, 'chats'));
        this.consents = new McpConsentStore(join(settings.userRoot, CONSENTS_FILE));
        this.runtime = new QodeAssistRuntime({
            secrets: settings.secrets, userHome: settings.home, logger,
            // The client's MCP servers are the session's own: only its chat (the session id) gets their tools.
            extraTools: (workspace, chatId) => () => [...this.clientTools(workspace), ...this.sessions.get(chatId)?.mcpTools() ?? []]
        });
    }

    connect(stream: Stream): AgentConnection {
        return agent({ name: 'qodeassist' })
            .onRequest('initialize', ({ params }) => {
                this.offers = clientOffers(params.clientCapabilities);
                return this.initialize();
            })
            .onRequest('session/new', ({ params, client }) => answering(() => this.newSession(params.cwd, params.mcpServers, client)))
            .onRequest('session/load', ({ params, client }) => answering(() => this.loadSession(params.sessionId, params.cwd, params.mcpServers, client)))
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
        this.disposed = true;
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
                mcpCapabilities: { ...CLIENT_MCP_TRANSPORTS },
                sessionCapabilities: { close: {}, list: {} }
            },
            authMethods: []
        };
    }

    private async newSession(cwd: string, mcpServers: readonly McpServer[] | undefined, client: AgentContext): Promise<NewSessionResponse> {
        // A malformed server list refuses the session before anything starts.
        const servers = clientMcpServerConfigs(mcpServers ?? []);
        const session = await this.createSession(cwd, client);
        await session.open();
        const mcp = await this.useMcpServers(session, servers);
        // Listed first, so a connection that ends meanwhile stops its servers too.
        this.sessions.set(session.sessionId, session);
        // The first prompt should see the servers' tools: the answer waits a little for them (a slow server's tools join later).
        await mcp.settled(MCP_READY_WAIT_MS);
        this.announce(session, client);
        return { sessionId: session.sessionId, ...this.options(session), ...mcpMeta(mcp) };
    }

    /** A saved chat as a session again: its messages are replayed as updates before the answer. */
    private async loadSession(sessionId: string, cwd: string, mcpServers: readonly McpServer[] | undefined, client: AgentContext): Promise<LoadSessionResponse> {
        const servers = clientMcpServerConfigs(mcpServers ?? []);
        const session = this.sessions.get(sessionId) ?? await this.createSession(cwd, client, sessionId);
        let opened;
        try {
            opened = await session.open(sessionId);
        } catch (error) {
            // Missing or unreadable, the chat cannot be a session: the message says which, and what to do.
            throw new RequestError(RESOURCE_NOT_FOUND, redactSecrets(toErrorInfo(error).message), { sessionId });
        }
        const mcp = await this.useMcpServers(session, servers);
        this.sessions.set(session.sessionId, session);
        await mcp.settled(MCP_READY_WAIT_MS);
        await session.replay(replayHistory(opened.chat?.history ?? [], session.cwd));
        this.announce(session, client);
        return { ...this.options(session), ...mcpMeta(mcp) };
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

    /** The client's servers for this session, under the managed policy and the user's consent (see SessionMcpServers). */
    private async useMcpServers(session: AcpChatSession, servers: readonly McpServerConfig[]): Promise<SessionMcpServers> {
        // A connection that ended while the session opened starts nothing it could no longer stop.
        const mcp = new SessionMcpServers(this.disposed ? [] : servers, {
            policy: environmentPolicy(), trusted: this.trust.isTrusted(session.cwd), consent: this.consents.forWorkspace(session.cwd), hub: { logger: this.logger, roots: [session.cwd] }
        });
        await session.useMcpServers(mcp);
        return mcp;
    }

    /**
     * After the session's answer went: first why a client's MCP server was refused, then the skills
     * as slash commands and what an untrusted folder leaves unread; last the questions about the
     * client's servers waiting for consent.
     */
    private announce(session: AcpChatSession, client: AgentContext): void {
        setImmediate(() => {
            for (const refusal of session.mcpServers?.refused ?? []) {
                this.tell(session, 'error', `MCP server "${refusal.server}" not started`, refusal.error.message, { category: refusal.error.category, server: refusal.server });
            }
            for (const refusal of session.mcpServers?.unauthorized() ?? []) {
                this.tell(session, 'error', `MCP server "${refusal.server}" needs authorization`, refusal.error.message, { category: refusal.error.category, server: refusal.server });
            }
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
            void this.askMcpConsent(session, client);
        });
    }

    /** The client's servers waiting for consent (a folder that is not trusted), each asked through the client's permission question. */
    private async askMcpConsent(session: AcpChatSession, client: AgentContext): Promise<void> {
        const mcp = session.mcpServers;
        if (!mcp || mcp.waiting.length === 0) {
            return;
        }
        const declined = await mcp.askConsent(session.sessionId, question => client.request('session/request_permission', question));
        for (const server of declined) {
            this.tell(session, 'warning', `MCP server "${server.name}" not started`,
                `The MCP server "${server.name}" was not started: this folder is not trusted and you did not agree to start it. Pass it again in a new session to be asked again, or start qodeassist-acp with --trust-workspace ${session.cwd}.`);
        }
    }

    /** A notice when the client shows them; otherwise, as ACP advises, an agent message (and the log). */
    private tell(session: AcpChatSession, severity: 'error' | 'warning', title: string, text: string, meta?: Record<string, unknown>): void {
        // What a server's command line holds is the client's own, but a key QodeAssist read never leaves.
        const description = redactSecrets(text);
        this.log(description);
        if (this.offers.notices) {
            session.send({ sessionUpdate: 'notice', severity, title, description, ...meta ? { _meta: { qodeassist: meta } } : {} });
        } else {
            session.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${description}\n\n` }, ...meta ? { _meta: { qodeassist: meta } } : {} });
        }
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

/**
 * What the response says of the client's MCP servers (under `_meta.qodeassist`): each refused one
 * with its typed error, and those waiting for the user's consent. Nothing when all of them start.
 */
function mcpMeta(mcp: SessionMcpServers): { _meta?: Record<string, unknown> } {
    if (mcp.refused.length === 0 && mcp.waiting.length === 0) {
        return {};
    }
    return {
        _meta: {
            qodeassist: {
                mcpServers: {
                    refused: mcp.refused.map(refusal => ({ server: refusal.server, category: refusal.error.category, message: refusal.error.message })),
                    waitingForConsent: mcp.waiting.map(server => server.name)
                }
            }
        }
    };
}
