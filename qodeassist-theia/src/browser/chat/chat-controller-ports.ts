import type { ContentRef } from '@qodeassist/core';
import type {
    AcpPermissionAnswer, AcpPermissionRequest, ChatEvent, ChatSendOptions, ChatStorage, OpenedChat, PermissionAnswer, PermissionRequest, QodeAssistChatService, SkillChoice
} from '../../common/chat-protocol';
import type { FileEditPort } from '../shared/protected-file-edits';
import type { BackendStatus } from './chat-reconnect';
import type { AttachmentView } from './chat-transcript';

// What the chat controller needs of the world around it: the chat service, the backend's pushes, the composer and the view.

export interface Disposable {
    dispose(): void;
}

/** What a chat view remembers across reloads: the saved chat it shows. */
export interface ChatViewState {
    chatId: string;
    location: ChatStorage['location'];
}

/** What the backend pushes to this window (the tool-host client): session events, notices, and the permission prompts of a session. */
export interface ChatEventSource {
    onDidReceiveSessionEvents(listener: (envelope: { sessionId: string; events: ChatEvent[] }) => unknown): Disposable;
    onDidReceiveNotice(listener: (notice: { chatId: string; message: string }) => unknown): Disposable;
    setPermissionHandler(sessionId: string, handler: (request: PermissionRequest) => Promise<PermissionAnswer>): Disposable;
    setAgentPermissionHandler(chatId: string, handler: (request: AcpPermissionRequest) => Promise<AcpPermissionAnswer>): Disposable;
}

/** An attachment as it goes with a message: the backend's reference and what the transcript shows. */
export interface OutgoingAttachment {
    ref: ContentRef;
    view: AttachmentView;
}

/** What the controller needs of the composer: the draft's attachments, the request options, and where to say what went wrong. */
export interface ChatComposerPort {
    /** Workspace, current file, agent, role, linked files, tools and skills of the next request. */
    sendOptions(): ChatSendOptions;
    /** The skills a message may invoke as `/name`. */
    skills(): readonly SkillChoice[];
    hasAttachments(): boolean;
    /** What is attached now: the estimate that decides auto-compress counts it. */
    attachmentRefs(): ContentRef[];
    /**
     * Empties the composer and returns what goes with `text`: its attachments and copies of the
     * @-mentioned files. Throws, and keeps the draft, when a copy cannot be made.
     */
    take(text: string): Promise<OutgoingAttachment[]>;
    /** The message the last `take` emptied did not go: `text` and its attachments wait in the composer again, before whatever was typed since. */
    restoreDraft(text: string): void;
    /** The chat's events: an external agent's modes and commands follow them. */
    followAgent(events: readonly ChatEvent[]): void;
    /** Shows why the message did not go; undefined clears it. */
    showProblem(reason: string | undefined): void;
    /** The token counter asks for a new estimate soon. */
    scheduleEstimate(): void;
    /** Another chat is shown: its agent and role, and the waiting attachments copied beside it. */
    follow(opened: OpenedChat): Promise<void>;
}

/** What the controller needs of the view and the IDE around it. */
export interface ChatControllerHost {
    /** Where chats are saved unless the chat shown says otherwise. */
    historyLocation(): ChatStorage['location'];
    workspacePath(): string | undefined;
    /** Summarize first when the next send would fill more than this percent of the context; 0 is off. */
    autoCompressPercent(): number;
    /** Why QodeAssist must not send now (off for this project, AI off in the IDE), if so. */
    offReason(): string | undefined;
    /** Render the whole view; `reveal` brings the newest content into view. */
    update(reveal?: boolean): void;
    /** The streaming answer changed; `ended` when its request ended. */
    streamed(ended: boolean): void;
    /** A request failed the way a missing or broken setup fails (Auth, Network, Config). */
    checkSetup(): void;
    /** A chat is now shown (opened, or a summary): its title. */
    chatShown(opened: OpenedChat): void;
}

export interface ChatControllerDeps {
    service: QodeAssistChatService;
    backend: BackendStatus;
    client: ChatEventSource;
    edits: FileEditPort;
    composer: ChatComposerPort;
    host: ChatControllerHost;
}
