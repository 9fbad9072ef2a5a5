import type {
    ChatSummary, ContentRef, ContextManifest, Diagnostic, FileEditRecord, PermissionAnswer, PermissionRequest, SessionEvent, StoredChat, StoredFileEdit,
    UnreadableChat
} from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';
import { ToolHostClient } from './tool-host-protocol';

export type { ChatSummary, ContentRef, ContextManifest, Diagnostic, FileEditRecord, PermissionAnswer, PermissionRequest, SessionEvent, StoredChat, StoredFileEdit, UnreadableChat };

export const QODEASSIST_CHAT_PATH = '/services/qodeassist/chat';

/** A session event as the chat forwards it: the result of a file edit names the key the chat keeps that edit under. */
export type ChatEvent = SessionEvent & { editId?: string };

/**
 * The key a chat keeps a file edit under: the tool call's id, numbered from the second
 * result with that id on, since some providers reuse ids across rounds (Ollama's `call_0`).
 * `earlierResults` counts the tool results with that id already in the history.
 */
export function editIdOf(callId: string, earlierResults: number): string {
    return earlierResults === 0 ? callId : `${callId}#${earlierResults + 1}`;
}

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
    /** A role from roles/*.json whose system prompt joins the agent's. */
    role?: string;
    /** Linked files (absolute paths), read again at every send: the editor's text when open, else the disk. */
    linked?: string[];
    /** The user's skill settings (preferences `qodeassist.skills.*`); absent: on, default folders. */
    skills?: ChatSkillSettings;
}

export interface ChatSkillSettings {
    /** Off: no catalog in the prompt, no load_skill tool, no `/` skills. */
    enabled: boolean;
    /** More folders holding `<skill>/SKILL.md`, besides the project's and the user's `.qodeassist/skills` and `.claude/skills`. */
    folders: string[];
}

/** Where chats are kept: the workspace's `.qodeassist/chats` or the user's `~/.qodeassist/chats`. */
export interface ChatStorage {
    location: 'workspace' | 'user';
    workspacePath?: string;
}

/** What the user sends: text, and files or images attached through `attach`. */
export interface ChatInput {
    text: string;
    attachments: ContentRef[];
}

export interface OpenedChat {
    chatId: string;
    /** Set when an existing chat was opened: the view is rebuilt from its history. */
    chat?: StoredChat;
}

export interface AgentChoice {
    name: string;
    model: string;
    provider: string;
    /** Listed in the roster of the feature asking (the default choice goes through it). */
    inRoster: boolean;
}

export interface RoleChoice {
    id: string;
    name: string;
    description: string;
}

export interface SkillChoice {
    name: string;
    description: string;
}

/** Largest attachment the chat takes, per kind; larger files are refused with a message that says so. */
export const ATTACHMENT_LIMITS = { imageBytes: 5 * 1024 * 1024, textBytes: 512 * 1024 } as const;

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
    /** Opens a chat: a new one, or a saved one (`chatId`) whose history seeds the session. The chat id is its session id. */
    openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat>;
    /** Sends a user message; events follow on the client as `onSessionEvents(chatId, …)`. Returns the request id. */
    send(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<string>;
    /** Cancels the request in flight; resolves after its `Cancelled` event was sent. */
    cancel(chatId: string): Promise<void>;
    closeSession(chatId: string): Promise<void>;
    /** Keeps a copy of a file or image beside the chat; the returned reference goes into `ChatInput.attachments`. */
    attach(chatId: string, name: string, mediaType: string, base64: string): Promise<ContentRef>;
    /** What the next send would contain and cost: the token counter and the manifest popover. */
    estimate(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<ContextManifest | undefined>;
    /** Summarizes the chat through the compression roster into a new chat linked to this one; the original is kept. */
    summarize(chatId: string, options: ChatSendOptions): Promise<OpenedChat>;
    /** The user undid or reapplied an edit in the view; the saved chat remembers it. */
    setEditState(chatId: string, editId: string, state: StoredFileEdit['state']): Promise<void>;

    listChats(storage: ChatStorage): Promise<{ chats: ChatSummary[]; unreadable: UnreadableChat[] }>;
    renameChat(storage: ChatStorage, chatId: string, title: string): Promise<void>;
    deleteChat(storage: ChatStorage, chatId: string): Promise<void>;
    /** The chat as Markdown. */
    exportChat(storage: ChatStorage, chatId: string): Promise<string>;

    listAgents(workspacePath: string | undefined): Promise<AgentChoice[]>;
    listRoles(workspacePath: string | undefined): Promise<RoleChoice[]>;
    listSkills(workspacePath: string | undefined, skills?: ChatSkillSettings): Promise<SkillChoice[]>;
    /** Workspace files matching an @-mention query (ignore rules applied), workspace-relative. */
    findFiles(workspacePath: string, query: string, options: { useGitignore: boolean }): Promise<string[]>;
}

export const QodeAssistChatClient = Symbol('QodeAssistChatClient');

/**
 * The frontend side: the backend pushes every session event here, batched as the
 * events arrived from the provider (one RPC message per network chunk, not per token);
 * the frontend never polls.
 */
export interface QodeAssistChatClient extends ToolHostClient {
    onSessionEvents(sessionId: string, events: ChatEvent[]): void;
    /** Something the user should know about a chat that is not a request's outcome (e.g. it could not be saved). */
    onChatNotice(chatId: string, message: string): void;
}
