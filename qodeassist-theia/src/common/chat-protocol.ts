import type { Diagnostic, PermissionAnswer, PermissionRequest, SessionEvent } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';

export type { Diagnostic, PermissionAnswer, PermissionRequest, SessionEvent };

export const QODEASSIST_CHAT_PATH = '/services/qodeassist/chat';

/** What the frontend knows about a send; the backend picks the agent and resolves its key. */
export interface ChatSendOptions {
    /** The workspace folder whose `.qodeassist` configuration applies (a file-system path). */
    workspacePath?: string;
    /** An agent chosen by the user; otherwise the chat roster decides. */
    agent?: string;
    /** The file in focus, workspace-relative, for the agents' [match] rules. */
    file?: string;
    project?: string;
    /** The user's tool settings (preferences `qodeassist.tools.*`). */
    tools?: ChatToolSettings;
}

export interface ChatToolSettings {
    /** Tools turned off by name. */
    disabled: string[];
    /** Programs execute_terminal_command may start; empty: the built-in list for the OS. */
    allowedCommands: string[];
    /** Longest a command may run, in seconds. */
    commandTimeoutSeconds: number;
    /** Most characters of command output handed to the model (head and tail are kept). */
    commandOutputLimit: number;
    /** What build_project runs; empty: no build_project tool. */
    buildCommand: string;
    allowOutsideWorkspace: boolean;
    useGitignore: boolean;
}

export const QodeAssistChatService = Symbol('QodeAssistChatService');

/** Backend chat sessions, one set per frontend connection. */
export interface QodeAssistChatService extends RpcServer<QodeAssistChatClient> {
    /** Opens an empty session and returns its id. */
    openSession(): Promise<string>;
    /** Sends a user message; events follow on the client as `onSessionEvents(sessionId, …)`. Returns the request id. */
    send(sessionId: string, text: string, options: ChatSendOptions): Promise<string>;
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
    /** A write or execute tool wants to run: the chat shows the exact arguments and the user answers. */
    requestToolPermission(sessionId: string, request: PermissionRequest): Promise<PermissionAnswer>;
    /** The problems the IDE shows (language servers, linters) for a file path, or all. */
    getDiagnostics(path?: string): Promise<Diagnostic[]>;
    /** The text of an open editor for a file path, unsaved changes included; undefined when not open. */
    readOpenDocument(path: string): Promise<string | undefined>;
}
