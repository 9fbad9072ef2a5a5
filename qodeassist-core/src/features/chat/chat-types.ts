import {
    AcpCommand, AcpCommandsEvent, AcpContentEvent, AcpFileWriteEvent, AcpMode, AcpModeEvent, AcpNoticeEvent, AcpPlanEvent, AcpToolCallEvent, AcpUsageEvent
} from '../../acp/acp-events';
import { AcpPermissionAnswer, AcpPermissionRequest } from '../../acp/acp-host';
import { ContentRef, HistoryMessage } from '../../context/conversation-history';
import { SessionEvent } from '../../session/session-events';
import { ChatBranch, StoredChat, StoredFileEdit } from '../../session/chat-store';
import { ChatMode } from './plan-mode';
import { RulesSettings } from './rules-files';
import { ToolHost } from '../../ports/tool-host';
import { SkillSettings, ToolSettings } from '../../runtime/request-tools';
import type { ProjectOrigin } from '../../config/project-trust';
import type { WorkspaceChangesEvent } from '../../checkpoints/turn-checkpoints';

/** A session event as the chat forwards it: the result of a file edit names the key the chat keeps that edit under. */
export type ChatSessionEvent = SessionEvent & {
    editId?: string;
    /** On the `RequestStarted` of a message that never went (it could not be prepared, or was withdrawn while queued): the sender's turn it ends. */
    turnId?: string;
};

/**
 * A user message as the chat recorded it, told to every window showing the chat just before
 * its request starts: the other windows show it; the sender matches `turnId` to the message it already shows.
 */
export interface UserMessageEvent {
    type: 'UserMessage';
    turnId?: string;
    message: HistoryMessage;
}

/** Told to the sender only: its message waits until the answer another window asked for has ended, then goes. */
export interface QueuedEvent {
    type: 'Queued';
    turnId?: string;
}

/** The conversation changed other than by a new message (a retry dropped the answer it replaces): views show this history. */
export interface HistoryEvent {
    type: 'History';
    history: HistoryMessage[];
    edits: Record<string, StoredFileEdit>;
    /** The replaced versions a view can offer to bring back. */
    branches: ChatBranchView[];
}

/**
 * The chat goes on under another id: its file was changed by another writer, so this chat was saved
 * beside it as a conflict copy and continues as that copy. Sent under the old id; later events use the new one.
 */
export interface MovedEvent {
    type: 'Moved';
    chatId: string;
}

/**
 * What an external (ACP) agent answering in the chat reports besides text and thinking: its tool
 * calls (whole state at each change), plan, slash commands, mode, non-text content, context usage,
 * notices, and the files it wrote through the IDE (with the key the chat keeps that edit under, for Undo).
 */
export type AgentChatEvent =
    | AcpToolCallEvent | AcpPlanEvent | AcpCommandsEvent | AcpModeEvent | AcpContentEvent | AcpUsageEvent | AcpNoticeEvent
    | (AcpFileWriteEvent & { editId: string });

/** What a window showing a chat hears: the session's events of every request in it, whichever window sent it, and the chat's own (an external agent's changes on disk, after its turn). */
export type ChatEvent = ChatSessionEvent | AgentChatEvent | UserMessageEvent | QueuedEvent | HistoryEvent | MovedEvent | WorkspaceChangesEvent;

export { ACP_AGENT_PREFIX, ATTACHMENT_LIMITS, editIdOf } from '../../protocol';

/** What the host knows about a send; the chat picks the agent and resolves its key. */
export interface ChatTurnOptions {
    /** The workspace folder whose `.qodeassist` configuration applies (a file-system path). */
    workspacePath?: string;
    /** An agent chosen by the user; otherwise the chat roster decides. */
    agent?: string;
    /** The file in focus, workspace-relative, for the agents' [match] rules and the environment block. */
    file?: string;
    /** The language of the file in focus as the editor knows it; default: from its name. */
    language?: string;
    project?: string;
    /** The user's tool settings (preferences `qodeassist.tools.*`). */
    tools?: ToolSettings;
    /** False: no tools this turn even when the agent enables them (the bench without --tools). Default true. */
    offerTools?: boolean;
    /** A role from roles/*.json whose system prompt joins the agent's. */
    role?: string;
    /** Linked files (absolute paths), read again at every send: the editor's text when open, else the disk. */
    linked?: string[];
    /** The user's skill settings (preferences `qodeassist.skills.*`); absent: on, default folders. */
    skills?: SkillSettings;
    /** Which kinds of the repository's rules files (AGENTS.md, CLAUDE.md, …) are read in a trusted workspace; absent: all. */
    rules?: RulesSettings;
    /** Plan: read-class tools only, the agent asked for a plan. Act (absent): the agent's tools, a plan made before pinned. */
    mode?: ChatMode;
    /** The plan as the user edited it, pinned instead of the plan-mode answer when switching to Act. */
    plan?: string;
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
    /** Chosen by the sender to recognize its message in the `UserMessage` and `Queued` events. */
    turnId?: string;
}

export interface OpenedChat {
    chatId: string;
    /**
     * Set when an existing chat was opened: the view is rebuilt from its history. While a request
     * runs (sent from any window), the history ends with the message that started it and `live` holds the rest.
     */
    chat?: StoredChat;
    /** The request running in the chat now, and its events so far; later events follow as usual. */
    live?: { requestId: string; events: ChatEvent[] };
    /** The replaced versions a view can offer to bring back (set with `chat`). */
    branches?: ChatBranchView[];
    /** An external agent's session open in the chat: its modes and commands now. */
    agentSession?: AgentSessionState;
}

export interface AgentChoice {
    /** What `ChatTurnOptions.agent` names it by; an external agent's is `acp:<its name>` (see ACP_AGENT_PREFIX). */
    name: string;
    model: string;
    provider: string;
    /** Set for an external coding agent (Agent Client Protocol): it runs its own tools and model. */
    kind?: 'acp';
    description?: string;
    /** Why it cannot be picked now (its program is not installed, the workspace is not trusted); absent: it can. */
    unavailable?: string;
    /** Listed in the roster of the feature asking (the default choice goes through it). */
    inRoster: boolean;
    /** Takes images: its request template carries image blocks and its file does not say `images = false`. */
    images: boolean;
    /** Set when this project's files decide where it sends or what it runs: its tooltip says "from this project". */
    projectOrigin?: ProjectOrigin;
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

/** Where a chat's events, notices and tool questions go: the IDE's window, or the bench's terminal. */
export interface ChatHost extends ToolHost {
    onEvents(chatId: string, events: ChatEvent[]): void;
    /** Something the user should know about a chat that is not a request's outcome (e.g. it could not be saved). */
    onNotice(chatId: string, message: string): void;
    /**
     * An external agent answering in the chat asks to run a tool call: the chat's permission prompt
     * with the agent's own options (allow once / always, reject). The prompt closes by itself when the
     * request ends (Cancelled); without this method every request is rejected.
     */
    requestAgentPermission?(chatId: string, request: AcpPermissionRequest): Promise<AcpPermissionAnswer>;
}


/** The modes and slash commands an external agent offers in a chat now (what its last events said). */
export interface AgentSessionState {
    agent: string;
    modes?: { currentModeId: string; availableModes: AcpMode[] };
    commands: AcpCommand[];
}

/**
 * A replaced part of the chat as a view offers it: on the question or the answer of the
 * `turn`-th message the user wrote (counted from 0, tool rounds' results not counted).
 */
export interface ChatBranchView {
    id: string;
    turn: number;
    part: 'question' | 'answer';
    reason: ChatBranch['reason'];
    createdAt: string;
    /** Its first message's text, shortened. */
    preview: string;
    messages: number;
}

/** The part of the chat a position names: the question or the answer of a turn. */
export interface TurnPosition {
    turn: number;
    part: 'question' | 'answer';
}
