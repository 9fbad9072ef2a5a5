import type {
    AgentChoice, ChatEvent, ChatSessionEvent, HistoryEvent, HistoryMessage, MovedEvent, QueuedEvent, UserMessageEvent, ChatInput, ChatStorage, ChatSummary, ChatTurnOptions, ContentRef, ContextManifest, Diagnostic, FileEditRecord, OpenedChat, PermissionAnswer,
    PermissionRequest, RoleChoice, SessionEvent, SkillChoice, SkillSettings, StoredChat, StoredFileEdit, ToolSettings, UnreadableChat,
    ChatBranchView, ChatImport, TurnPosition,
    AgentChatEvent, AgentSessionState, AcpPermissionAnswer, AcpPermissionRequest, AcpToolCallState, AcpPlanEntry, AcpCommand, AcpMode, AcpToolContent, AcpLocation,
    ChatChanges, FileChangeView, LeftOutFiles, RestoreMode, RestoreOutcome, RestorePreview, RestoreToResult, WorkspaceChangesEvent
} from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';
import { ToolHostClient } from './tool-host-protocol';

export type {
    AgentChoice, ChatEvent, ChatSessionEvent, HistoryEvent, HistoryMessage, MovedEvent, QueuedEvent, UserMessageEvent, ChatInput, ChatStorage, ChatSummary, ChatTurnOptions, ContentRef, ContextManifest, Diagnostic, FileEditRecord, OpenedChat, PermissionAnswer,
    PermissionRequest, RoleChoice, SessionEvent, SkillChoice, StoredChat, StoredFileEdit, UnreadableChat, ChatBranchView, ChatImport, TurnPosition,
    AgentChatEvent, AgentSessionState, AcpPermissionAnswer, AcpPermissionRequest, AcpToolCallState, AcpPlanEntry, AcpCommand, AcpMode, AcpToolContent, AcpLocation,
    ChatChanges, FileChangeView, LeftOutFiles, RestoreMode, RestoreOutcome, RestorePreview, RestoreToResult, WorkspaceChangesEvent
};

/** Values both sides share, from the one core entry the browser may load. */
export { ACP_AGENT_PREFIX, ATTACHMENT_LIMITS, editIdOf } from '@qodeassist/core/protocol';

export const QODEASSIST_CHAT_PATH = '/services/qodeassist/chat';

/** What the frontend knows about a send; the backend picks the agent and resolves its key. */
export type ChatSendOptions = ChatTurnOptions;
export type ChatSkillSettings = SkillSettings;
export type ChatToolSettings = ToolSettings;

export const QodeAssistChatService = Symbol('QodeAssistChatService');

/** The message a send, retry or open fails with when the chat is not open in this backend (it restarted): open it again, then resend. */
export const CHAT_NOT_OPEN_MARK = 'is not open in this IDE backend';

/** Backend chat sessions: one service per frontend connection; the chats themselves are owned once per backend, shared by every window. */
export interface QodeAssistChatService extends RpcServer<QodeAssistChatClient> {
    /**
     * Opens a chat: a new one, or a saved one (`chatId`) whose history seeds the session. The chat id is its session id.
     * A chat open in any window of this backend has one owner: opening it again (another window, a reconnect) shows that
     * chat as it is now, a running answer included (`live`), and cancels nothing.
     */
    openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat>;
    /** Sends a user message; events follow on the client as `onSessionEvents(chatId, …)`. Returns the request id. */
    send(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<string>;
    /**
     * Asks again for the answer to the last user message: what follows that message (an interrupted,
     * failed or finished answer) is dropped (a `History` event tells every window), then the request starts. Returns its id.
     */
    retry(chatId: string, options: ChatSendOptions): Promise<string>;
    /**
     * Cancels the request in flight; resolves after its `Cancelled` event was sent. With the `turnId` of
     * this window's message still queued behind another window's answer, withdraws only that message.
     */
    cancel(chatId: string, turnId?: string): Promise<void>;
    /** This window stops showing the chat; when no window shows it any more, its request is cancelled and it is saved. */
    closeSession(chatId: string): Promise<void>;
    /**
     * Keeps a copy of a file or image beside the chat; the returned reference goes into `ChatInput.attachments`.
     * With the send's options, an image for an agent that takes none is refused with `ImagesNotTaken` (its data names the agents that do).
     */
    attach(chatId: string, name: string, mediaType: string, base64: string, options?: ChatSendOptions): Promise<ContentRef>;
    /**
     * Edit and resend: the chat goes back to before the `turn`-th message the user wrote (from 0), the
     * messages from there on are kept as a version (`History` tells every window), and `input` goes in its place.
     */
    editAndSend(chatId: string, turn: number, input: ChatInput, options: ChatSendOptions): Promise<string>;
    /** Resets the chat to a question or an answer; the later messages are kept as a version to bring back. Refused while an answer is written. */
    resetTo(chatId: string, position: TurnPosition): Promise<void>;
    /** Brings back a replaced version (`ChatBranchView.id`); what it replaces becomes a version in turn. */
    switchBranch(chatId: string, branchId: string): Promise<void>;
    /** What the next send would contain and cost: the token counter and the manifest popover. */
    estimate(chatId: string, input: ChatInput, options: ChatSendOptions): Promise<ContextManifest | undefined>;
    /** Summarizes the chat through the compression roster into a new chat linked to this one; the original is kept. */
    summarize(chatId: string, options: ChatSendOptions): Promise<OpenedChat>;
    /**
     * Auto-compression: when the next send (`input`) would fill more than `percent` of the agent's context,
     * the chat is first summarized into a new chat linked to this one that keeps the recent turns, and that
     * chat is returned; undefined when the send fits. Stopped like summarize.
     */
    compressIfFull(chatId: string, input: ChatInput, options: ChatSendOptions, percent: number): Promise<OpenedChat | undefined>;
    /** Stops this window's summary of the chat (summarize, compressIfFull): it rejects, the chat stays as it was and nothing is saved. */
    cancelSummary(chatId: string): Promise<void>;
    /** The user undid or reapplied an edit in the view; the saved chat remembers it. */
    setEditState(chatId: string, editId: string, state: StoredFileEdit['state']): Promise<void>;
    /**
     * The protected place (configuration or ignore rules, links followed) a write to this absolute
     * path would reach in the workspace, as the user should see it; undefined for an ordinary file.
     */
    protectedLocation(workspacePath: string, absolutePath: string): Promise<string | undefined>;

    listChats(storage: ChatStorage): Promise<{ chats: ChatSummary[]; unreadable: UnreadableChat[] }>;
    renameChat(storage: ChatStorage, chatId: string, title: string): Promise<void>;
    deleteChat(storage: ChatStorage, chatId: string): Promise<void>;
    /** The chat as Markdown. */
    exportChat(storage: ChatStorage, chatId: string): Promise<string>;
    /** The chat in its saved format with its attachments, as JSON (Export as JSON). */
    exportChatJson(storage: ChatStorage, chatId: string): Promise<string>;
    /** A JSON export saved as a new chat of the storage: checked, attachments taken from the export itself, file edits not taken. */
    importChat(storage: ChatStorage, json: string): Promise<ChatImport>;

    /**
     * Switches the mode of the external (ACP) agent answering in the chat (`AgentSessionState.modes`);
     * every window hears the change as an `AcpMode` event. Refused when no external agent's session is open in the chat.
     */
    setAgentMode(chatId: string, modeId: string): Promise<void>;

    /** The messages (counted from 0) with a checkpoint of the workspace before them: they offer "Restore to here". */
    checkpointTurns(chatId: string, workspacePath: string): Promise<number[]>;
    /** What restoring the files to before the `turn`-th message would change (each file's diff) and what it leaves as it is; asked before restoring. */
    previewRestore(chatId: string, workspacePath: string, turn: number): Promise<RestorePreview>;
    /** Restores to before the `turn`-th message: the files, the chat or both; the result carries what "Undo restore" needs. Refused while an answer is written. */
    restoreCheckpoint(chatId: string, workspacePath: string, turn: number, mode: RestoreMode): Promise<RestoreToResult>;
    /** Takes a restore (or a file's revert) back: the files as just before it, the removed messages brought back. */
    undoRestore(chatId: string, workspacePath: string, restore: { restoreId?: string; branchId?: string }): Promise<RestoreOutcome>;
    /**
     * The files changed since the checkpoint before the `fromTurn`-th message (null: since the chat's first),
     * up to now or (with `toTurn`) the end of that external agent's turn; each with its diff.
     */
    reviewChanges(chatId: string, workspacePath: string, fromTurn: number | null, toTurn: number | null): Promise<ChatChanges>;
    /** Keep: the review stops listing the file as it is now. */
    keepChange(chatId: string, workspacePath: string, path: string): Promise<void>;
    /** Revert: the file as the checkpoint before the `turn`-th message holds it (removed when it did not exist); undoable. */
    revertChange(chatId: string, workspacePath: string, turn: number, path: string): Promise<RestoreToResult>;

    /** The chat's agents (the roster's first), then the external (ACP) agents: `kind: 'acp'`, `unavailable` saying why one cannot be picked now. */
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
    /**
     * An external agent answering in the chat asks to run a tool call: the view that sent the message
     * shows the tool call (kind, title, locations, diff) with the agent's own options and resolves with
     * the one picked. When the request ends first (Cancelled, Failed), the prompt closes and resolves `{ cancelled: true }`.
     */
    requestAgentPermission(chatId: string, request: AcpPermissionRequest): Promise<AcpPermissionAnswer>;
}
