import type { ErrorInfo, InstructionIssue, InstructionScope, SavedInstruction } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';
import { AgentChoice, ChatToolSettings } from './chat-protocol';
import { DocumentQuery } from './completion-protocol';
import { ToolHostClient } from './tool-host-protocol';

export type { InstructionIssue, InstructionScope, SavedInstruction };

export const QODEASSIST_REFACTOR_PATH = '/services/qodeassist/refactor';

/** One quick refactor, as the editor asks for it. */
export interface RefactorQuery extends DocumentQuery {
    /** Chosen by the frontend: progress, permission prompts and cancel name it. */
    id: string;
    /** Offsets into `text`. */
    selection: { start: number; end: number };
    cursor: number;
    instruction: string;
    /** An agent chosen by the user; otherwise the refactor roster decides. */
    agent?: string;
    /** Offer the project tools (the ones that write or run ask first, as in the chat). */
    tools: boolean;
    /** Ask the agent to think first. */
    thinking: boolean;
    indent: { insertSpaces: boolean; tabSize: number };
    toolSettings?: ChatToolSettings;
    /** Other open editors (absolute paths); the backend keeps workspace files no ignore rule hides, within `openFilesBudget` tokens. */
    openFiles?: Array<{ path: string; content: string }>;
    openFilesBudget: number;
}

/** What the refactor view hears while a request runs. */
export type RefactorProgress =
    | { kind: 'started'; agent?: string; model?: string }
    | { kind: 'proposal'; text: string }
    | { kind: 'tool'; callId: string; name: string; state: 'running' | 'done' | 'failed' };

/** How a refactor ended: the replacement, or why there is none. */
export interface RefactorAnswer {
    text?: string;
    agent?: string;
    cancelled?: boolean;
    error?: ErrorInfo;
}

/** Canned instructions offered as one-click actions in the refactor input. */
export const QUICK_ACTIONS: ReadonlyArray<{ id: string; label: string; instruction: string }> = [
    { id: 'improve', label: 'Improve', instruction: 'Improve this code: clearer names, simpler control flow, no needless work. Keep its behaviour.' },
    { id: 'alternative', label: 'Alternative', instruction: 'Write an alternative implementation of this code with the same behaviour, taking a different approach.' }
];

export const QodeAssistRefactorService = Symbol('QodeAssistRefactorService');

export interface QodeAssistRefactorService extends RpcServer<QodeAssistRefactorClient> {
    /** Runs a refactor; progress arrives as `onRefactorProgress(query.id, …)`. Errors come back as data. */
    refactor(query: RefactorQuery): Promise<RefactorAnswer>;
    cancel(id: string): Promise<void>;
    /** Agents that can refactor (chat models), the refactor roster first. */
    listAgents(workspacePath: string | undefined): Promise<AgentChoice[]>;
    listInstructions(workspacePath: string | undefined): Promise<{ instructions: SavedInstruction[]; issues: InstructionIssue[] }>;
    saveInstruction(workspacePath: string | undefined, instruction: { id?: string; name: string; body: string }, scope: InstructionScope): Promise<SavedInstruction>;
    duplicateInstruction(workspacePath: string | undefined, id: string, scope: InstructionScope): Promise<SavedInstruction>;
    deleteInstruction(workspacePath: string | undefined, id: string, scope: InstructionScope): Promise<void>;
}

export interface QodeAssistRefactorClient extends ToolHostClient {
    onRefactorProgress(id: string, progress: RefactorProgress[]): void;
}
