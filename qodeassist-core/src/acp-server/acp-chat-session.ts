import type { AgentContext, ContentBlock, PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { ConfigurationProvider } from '../agents/configuration-service';
import { ContentRef } from '../context/conversation-history';
import { PermissionAnswer, PermissionRequest } from '../ports/permission-prompt';
import { ITerminal } from '../ports/process-ports';
import { QodeAssistRuntime } from '../runtime/qodeassist-runtime';
import { ChatStore } from '../session/chat-store';
import { ToolSettings } from '../runtime/request-tools';
import { AnyTool } from '../tools/tool';
import { redactSecrets } from '../wire/redaction';
import { chatAgentFor } from '../features/chat/chat-agents';
import { ChatFeature } from '../features/chat/chat-feature';
import { ChatOwners } from '../features/chat/chat-owners';
import { ChatEvent, ChatHost, ChatTurnOptions, OpenedChat } from '../features/chat/chat-types';
import { ClientFiles, ClientOffers, ClientTerminal } from './client-services';
import { editDiff } from './file-edit-diff';
import { permissionAnswer, permissionQuestion } from './permission-question';
import { promptParts } from './prompt-input';
import { requestErrorFromInfo } from './request-errors';
import { SessionCatalog, SessionChoices } from './session-options';
import { SessionMcpServers } from './session-mcp-servers';
import { acpStopReason, SessionUpdateMapper } from './session-updates';
import { absoluteIn } from './tool-call-view';
import { ToolImageUpdates } from './tool-image-updates';
import { isInside } from './trusted-configurations';

/** What every session of one connection shares. */
export interface AcpSessionContext {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
    owners: ChatOwners;
    /** The user's home (skills, agent files). */
    userHome: string;
    /** The folder that keeps the sessions' chats (so `session/load` finds them): the user configuration's `chats`. */
    chats: string;
    client: AgentContext;
    offers: ClientOffers;
    tools: ToolSettings;
    /** A line for the server's log (stderr): stdout is the protocol. */
    log(line: string): void;
}

interface Turn {
    settle(outcome: { response: PromptResponse } | { error: RequestError }): void;
}

/**
 * One ACP session: a chat of QodeAssist's chat feature in the session's folder, as one IDE window
 * holds one. Prompts become chat turns; the chat's events stream back as `session/update`s in
 * order, then the prompt is answered with its stop reason (or the failure as a JSON-RPC error).
 * The chat's tools read and write through the client's editor, run commands in its terminal and
 * ask its permission questions through `session/request_permission`, when the client offers them.
 */
export class AcpChatSession {
    private readonly feature: ChatFeature;
    private readonly mapper: SessionUpdateMapper;
    private readonly toolImages = new ToolImageUpdates();
    readonly files: ClientFiles;
    private chatIdInUse = '';
    private turn: Turn | undefined;
    private busy = false;
    /** Set by session/cancel during a turn: a request that starts after it (the turn was still being prepared) is cancelled at once. */
    private stopRequested = false;
    /** Updates go out one after another, each after the one before was written. */
    private sending: Promise<void> = Promise.resolve();
    choices: SessionChoices = {};
    /** The MCP servers the client passed for this session; they end with it. */
    private mcp: SessionMcpServers | undefined;

    constructor(private readonly context: AcpSessionContext, readonly cwd: string) {
        this.feature = new ChatFeature({
            runtime: context.runtime, configurations: context.configurations, userHome: context.userHome, owners: context.owners,
            storeFor: () => new ChatStore(context.chats)
        });
        this.mapper = new SessionUpdateMapper(cwd);
        // The id is the chat's, known once it is open; the files and terminal ask for it when used.
        this.files = new ClientFiles(context.client, () => this.chatIdInUse, context.offers);
        this.feature.setHost(this.host());
    }

    /** The session id: the chat's id, so `session/load` reopens the saved chat. */
    get sessionId(): string {
        return this.chatIdInUse;
    }

    /** A new chat, or the saved chat with this id; the session's picks follow the saved ones. */
    async open(chatId?: string): Promise<OpenedChat> {
        const opened = await this.feature.open({ location: 'user' }, chatId);
        this.chatIdInUse = opened.chatId;
        if (opened.chat) {
            this.choices = { agent: opened.chat.agent, role: opened.chat.role };
        }
        return opened;
    }

    /** What the pickers offer in this folder, and the roster's pick. */
    catalog(): SessionCatalog {
        const configuration = this.context.configurations.forWorkspace(this.cwd).current;
        let rosterPick: string | undefined;
        try {
            rosterPick = chatAgentFor(configuration, {}).name;
        } catch {
            rosterPick = undefined;
        }
        return { agents: this.feature.pickers.agents(this.cwd), roles: this.feature.pickers.roles(this.cwd), rosterPick };
    }

    /** The skills, as the slash commands the client offers (`/name what to do`). */
    commands(): Array<{ name: string; description: string; input: { hint: string } }> {
        return this.feature.pickers.skills(this.cwd).map(skill => ({ name: skill.name, description: skill.description, input: { hint: 'what to do with it' } }));
    }

    /**
     * One prompt turn: the prompt's files and images are attached (refused at once when the agent
     * takes none, or they are too large), the text is sent, and the turn ends when the chat's
     * request does. One turn at a time: a second prompt while one runs is refused.
     */
    async prompt(blocks: readonly ContentBlock[], signal: AbortSignal): Promise<PromptResponse> {
        if (this.busy) {
            throw RequestError.invalidRequest({ sessionId: this.sessionId },
                'A prompt is already running in this session; wait for its end or send session/cancel first.');
        }
        this.busy = true;
        this.stopRequested = signal.aborted;
        const stop = () => void this.cancel();
        signal.addEventListener('abort', stop);
        try {
            const options = this.turnOptions();
            const parts = await promptParts(blocks, this.cwd, this.files);
            const attachments: ContentRef[] = [];
            for (const file of parts.files) {
                attachments.push(await this.feature.attach(this.sessionId, file.name, file.mediaType, file.bytes, options));
            }
            if (this.stopRequested) {
                // Stopped while its files were read: nothing was sent.
                return { stopReason: 'cancelled' };
            }
            const ended = new Promise<{ response: PromptResponse } | { error: RequestError }>(resolve => {
                this.turn = { settle: resolve };
            });
            await this.feature.send(this.sessionId, { text: parts.text, attachments }, options);
            const outcome = await ended;
            if ('error' in outcome) {
                throw outcome.error;
            }
            return outcome.response;
        } finally {
            signal.removeEventListener('abort', stop);
            this.turn = undefined;
            this.busy = false;
            this.stopRequested = false;
        }
    }

    /** session/cancel: the running request stops (its prompt answers `cancelled`); a permission question still open is withdrawn. */
    async cancel(): Promise<void> {
        if (this.busy) {
            this.stopRequested = true;
        }
        await this.feature.cancel(this.sessionId);
    }

    /** The saved chat's messages as updates (session/load), sent before the load is answered. */
    async replay(updates: readonly SessionUpdate[]): Promise<void> {
        for (const update of updates) {
            this.send(update);
        }
        await this.sending;
    }

    /** Sends one update after those already queued. */
    send(update: SessionUpdate): void {
        this.sending = this.sending.then(() => this.notify(update));
    }

    private async notify(update: SessionUpdate): Promise<void> {
        try {
            await this.context.client.notify('session/update', { sessionId: this.sessionId, update });
        } catch (error) {
            this.context.log(`session/update to the client failed: ${error instanceof Error ? error.message : String(error)}`);
        }
    }

    /** The servers the client passed (session/new, or again with session/load): the ones before are stopped. */
    async useMcpServers(servers: SessionMcpServers): Promise<void> {
        const before = this.mcp;
        this.mcp = servers;
        await before?.close();
    }

    /** The tools of the client's MCP servers that are ready now. */
    mcpTools(): AnyTool[] {
        return this.mcp?.tools() ?? [];
    }

    get mcpServers(): SessionMcpServers | undefined {
        return this.mcp;
    }

    /** The client terminal a command of this session runs in; its view joins the call's. */
    terminalFor(tool: string, args: Record<string, unknown>): ITerminal {
        return new ClientTerminal(this.context.client, this.sessionId, terminalId => {
            const toolCallId = this.mapper.pendingCallFor(tool, args);
            if (toolCallId) {
                this.send(this.mapper.attachTerminal(toolCallId, terminalId));
            }
        });
    }

    async close(): Promise<void> {
        try {
            await this.cancel().catch(() => undefined);
            await this.feature.close(this.sessionId);
            await this.feature.saved();
            this.feature.dispose();
        } finally {
            // The servers' processes end with the session, whatever became of its chat.
            await this.mcp?.close();
        }
    }

    private turnOptions(): ChatTurnOptions {
        return {
            workspacePath: this.cwd, agent: this.choices.agent, role: this.choices.role, mode: this.choices.mode,
            tools: this.context.tools, offerTools: true
        };
    }

    private host(): ChatHost {
        const host: ChatHost = {
            onEvents: (_chatId, events) => this.onEvents(events),
            onNotice: (_chatId, message) => this.notice(message),
            requestToolPermission: (_ownerId, request) => this.askPermission(request),
            readOpenDocument: path => this.files.readOpen(path)
        };
        if (this.files.writesThroughClient) {
            host.writeDocument = (path, content) => this.files.write(path, content);
        }
        return host;
    }

    private sendToolImages(): void {
        for (const result of this.feature.isOpen(this.sessionId) ? this.toolImages.take(this.feature.history(this.sessionId)) : []) {
            this.send(this.mapper.result(result.toolCallId, result.content, result.isError, [], result.images));
        }
    }

    private onEvents(events: readonly ChatEvent[]): void {
        for (const event of events) {
            if (event.type === 'Moved') {
                // The chat goes on as a conflict copy under a new id; the client keeps the id it knows.
                this.context.log(`The chat of session ${this.sessionId} was saved as ${event.chatId}: its file was changed by another writer.`);
            }
            if (event.type === 'RequestStarted' && this.stopRequested) {
                void this.feature.cancel(this.sessionId);
            }
        }
        // Results of earlier rounds whose images the history holds now: their call shows them after its text.
        this.sendToolImages();
        const mappedUpdates = this.mapper.map(events);
        this.toolImages.note(events, callId => this.mapper.toolCallId(callId));
        for (const mapped of mappedUpdates) {
            if ('update' in mapped) {
                this.send(mapped.update);
            } else {
                const { toolCallId, edit, content } = mapped.edit;
                // Read in turn, so the diff goes out at its place among the updates.
                this.sending = this.sending.then(async () => {
                    const after = await this.files.textAfterEdit(edit.absolutePath);
                    let diff;
                    try {
                        diff = after === undefined ? undefined : editDiff(edit, after);
                    } catch {
                        diff = undefined;
                    }
                    await this.notify(this.mapper.result(toolCallId, content, false, diff ? [diff] : []));
                });
            }
        }
        const end = events.find(event => event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled');
        if (end) {
            this.sendToolImages();
            this.toolImages.clear();
        }
        const turn = this.turn;
        if (end && turn) {
            const stopped = this.stopRequested;
            void this.sending.then(() => {
                if (end.type === 'Finished') {
                    // A stop asked for while the answer was ending still counts as a stop (ACP: the client discards what follows).
                    turn.settle({ response: { stopReason: stopped ? 'cancelled' : acpStopReason(end.stopReason) } });
                } else if (end.type === 'Cancelled') {
                    turn.settle({ response: { stopReason: 'cancelled' } });
                } else if (end.type === 'Failed' && !stopped && end.error.limit === 'maxToolRounds') {
                    // The tool-round limit ends the turn as ACP's request limit, not as a failure.
                    turn.settle({ response: { stopReason: 'max_turn_requests' } });
                } else if (end.type === 'Failed') {
                    turn.settle(stopped ? { response: { stopReason: 'cancelled' } } : { error: requestErrorFromInfo(end.error) });
                }
            });
        }
    }

    private notice(message: string): void {
        if (this.context.offers.notices) {
            this.send({ sessionUpdate: 'notice', severity: 'info', title: redactSecrets(message) });
        } else {
            this.context.log(redactSecrets(message));
        }
    }

    /**
     * A tool call the chat asks about, asked through the client with the call's view and, for an
     * edit, its diff. The question goes after the updates that announce the call; nothing runs
     * before the answer, and a question the client cannot answer is a refusal.
     */
    private async askPermission(request: PermissionRequest): Promise<PermissionAnswer> {
        await this.sending;
        const toolCallId = this.mapper.pendingCallFor(request.tool, request.arguments) ?? `permission-${Date.now()}`;
        const path = typeof request.arguments.path === 'string' ? absoluteIn(this.cwd, request.arguments.path) : undefined;
        // The preview reads only inside the session's folder: the tool itself refuses any other path after the answer.
        const current = path && request.permission === 'write' && isInside(this.cwd, path) ? await this.files.readText(path).catch(() => undefined) : undefined;
        const asking = this.turn;
        let answer: PermissionAnswer;
        try {
            const response = await this.context.client.request('session/request_permission', permissionQuestion(this.sessionId, toolCallId, request, this.cwd, current));
            // An answer that comes after a stop (or after the turn ended) allows nothing.
            answer = this.stopRequested || this.turn !== asking ? 'deny' : permissionAnswer(response, request);
        } catch (error) {
            this.context.log(`The permission question for ${request.tool} got no answer (${error instanceof Error ? error.message : String(error)}); it was not run.`);
            answer = 'deny';
        }
        if (answer !== 'deny') {
            this.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
        }
        return answer;
    }
}
