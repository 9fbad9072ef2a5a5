import { writeFile } from 'node:fs/promises';
import { AcpAgentClient } from '../../acp/acp-agent-client';
import { AcpAgentDefinition } from '../../acp/acp-definition';
import { AcpEvent } from '../../acp/acp-events';
import { AcpHost, AcpPermissionAnswer } from '../../acp/acp-host';
import { AcpSession } from '../../acp/acp-session';
import { AcpAgentEntry } from '../../config/acp-agent-config';
import { ManagedPolicy, permissionAllowed } from '../../config/managed-policy';
import { Logger } from '../../ports/logger';
import { WorkspaceFiles } from '../../tools/workspace-files';
import { untilAborted } from '../../wire/error-info';
import { AgentSessionState, ChatHost } from './chat-types';

/** What the agent may see of the workspace and where its questions go. */
export interface AgentLinkOptions {
    /** Ignore rules hide files from the agent's reads and writes as from the tools'. */
    useGitignore?: boolean;
    logger?: Logger;
    /** Hears every event of the agent's sessions (turns and what comes between them). */
    onEvent(event: AcpEvent): void;
    /** The chat's id now (a conflict copy changes it): the permission prompt is asked in its view. */
    chatId(): string;
    /** The administrator's tool ceiling: below write, the agent is offered no file writes; below execute, no terminals. */
    policy?: ManagedPolicy;
}

/** The definition the client starts, from the configuration's entry. */
function definitionOf(entry: AcpAgentEntry): AcpAgentDefinition {
    return {
        name: entry.name, command: entry.command, args: [...entry.args], env: [...entry.env],
        ...(entry.description ? { description: entry.description } : {}), ...(entry.gateway ? { gateway: { ...entry.gateway } } : {})
    };
}

/**
 * An external (ACP) agent serving one chat: its own process (started at the first message,
 * stopped when no window shows the chat), one session at a time, and the window whose message
 * it answers — the permission prompts, the editors' unsaved text and the undoable writes go
 * there. The agent reads and writes only inside the workspace, with the tools' ignore rules.
 */
export class AgentLink {
    /** The window whose message is being answered; set at every send. */
    asker: ChatHost | undefined;
    private readonly client: AcpAgentClient;
    private current: AcpSession | undefined;
    private stopListening: (() => void) | undefined;

    constructor(readonly entry: AcpAgentEntry, readonly workspace: string, private readonly options: AgentLinkOptions) {
        const host: AcpHost = {
            files: new WorkspaceFiles([workspace], { useGitignore: options.useGitignore ?? true }),
            documents: { readOpen: async path => this.asker?.readOpenDocument?.(path) },
            // Through the editor of the asking window (undoable, saved); without one, the file itself.
            writer: {
                write: async (path, content, writeOptions) => {
                    const asker = this.asker;
                    if (asker?.writeDocument) {
                        await asker.writeDocument(path, content, writeOptions);
                    } else {
                        await writeFile(path, content, { flag: writeOptions.created ? 'wx' : 'w' });
                    }
                }
            },
            requestPermission: (request, signal) => this.ask(request, signal),
            fileSystem: { read: true, write: permissionAllowed(options.policy, 'write') },
            terminal: permissionAllowed(options.policy, 'execute')
        };
        this.client = new AcpAgentClient(definitionOf(entry), { host, logger: options.logger });
    }

    /** Whether this link still matches the configuration's entry and workspace (a changed entry starts a new agent). */
    matches(entry: AcpAgentEntry, workspace: string): boolean {
        return workspace === this.workspace && JSON.stringify(definitionOf(entry)) === JSON.stringify(definitionOf(this.entry));
    }

    /** The session open now, if any. */
    get session(): AcpSession | undefined {
        return this.current;
    }

    /**
     * The session the next message goes to: the open one, else the chat's earlier session loaded
     * again where the agent can (`session/load`; what it replays is not shown again), else a new
     * one. `fresh` tells the caller the agent knows nothing of the chat's earlier messages.
     */
    async open(earlier: { sessionId: string } | undefined): Promise<{ session: AcpSession; fresh: boolean }> {
        if (this.current) {
            return { session: this.current, fresh: false };
        }
        const info = await this.client.start();
        let session: AcpSession | undefined;
        let fresh = true;
        if (earlier && info.loadSession) {
            session = await this.client.loadSession(earlier.sessionId).catch(error => {
                this.options.logger?.log('warn', 'qodeassist.session', `ACP agent ${this.entry.name} could not load session ${earlier.sessionId}; a new one starts: ${error instanceof Error ? error.message : String(error)}`);
                return undefined;
            });
            fresh = session === undefined;
        }
        session ??= await this.client.newSession();
        this.stopListening = session.onEvent(event => this.options.onEvent(event));
        this.current = session;
        // Modes and commands announced while the session opened reach the views now.
        const modes = session.modes;
        if (modes) {
            this.options.onEvent({ type: 'AcpMode', requestId: session.idleRequestId, currentModeId: modes.currentModeId, availableModes: modes.availableModes });
        }
        if (session.commands.length > 0) {
            this.options.onEvent({ type: 'AcpCommands', requestId: session.idleRequestId, commands: [...session.commands] });
        }
        return { session, fresh };
    }

    /** The chat was rewritten (an edit, a reset, a version brought back): the next message starts a new session. */
    forgetSession(): void {
        this.current?.cancel();
        this.stopListening?.();
        this.stopListening = undefined;
        this.current = undefined;
    }

    /** Whether a turn is running. */
    get busy(): boolean {
        return this.current?.busy === true;
    }

    /** Stop: the running turn is cancelled (`session/cancel`, its prompts closed, its commands ended). */
    cancel(): void {
        this.current?.cancel();
    }

    /** The modes and commands the agent offers now, for a window opening the chat. */
    state(): AgentSessionState | undefined {
        const session = this.current;
        return session ? { agent: this.entry.name, ...(session.modes ? { modes: structuredClone(session.modes) } : {}), commands: [...session.commands] } : undefined;
    }

    /** Stops the agent's whole process tree. */
    async close(): Promise<void> {
        this.forgetSession();
        await this.client.close();
    }

    /** The asking window's prompt; none (the window is gone, or a host that asks nothing) rejects. */
    private async ask(request: Parameters<AcpHost['requestPermission']>[0], signal: AbortSignal): Promise<AcpPermissionAnswer> {
        const asker = this.asker;
        if (!asker?.requestAgentPermission) {
            return { cancelled: true };
        }
        return untilAborted(asker.requestAgentPermission(this.options.chatId(), request), signal);
    }
}
