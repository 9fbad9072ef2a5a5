import { IDocumentReader, IDocumentWriter } from '../ports/document-reader';
import { WorkspaceFiles } from '../tools/workspace-files';
import { AcpToolCallState } from './acp-events';

export type AcpPermissionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** One of the answers the agent offers, shown as the agent names it. */
export interface AcpPermissionOption {
    optionId: string;
    name: string;
    kind: AcpPermissionKind;
}

/** What the chat's permission prompt shows: the agent, its tool call (kind, title, locations, diffs) and its own options. */
export interface AcpPermissionRequest {
    agent: string;
    sessionId: string;
    toolCall: AcpToolCallState;
    options: AcpPermissionOption[];
    /**
     * Set when QodeAssist asks on its own: a write to a protected place (configuration or ignore
     * rules, also as a link's target), asked every time, whatever the agent was allowed.
     */
    protectedPath?: string;
}

/** The option the user picked, or that the prompt went away unanswered (the turn was cancelled). */
export type AcpPermissionAnswer = { optionId: string } | { cancelled: true };

/**
 * What the IDE (or any host) offers an external agent. The agent reads and writes only inside
 * `files`' roots, links resolved and ignore rules applied; reads see unsaved editor text through
 * `documents`; writes go through `writer` (an undoable editor edit) or, without one, to disk.
 */
export interface AcpHost {
    files: WorkspaceFiles;
    documents?: IDocumentReader;
    writer?: IDocumentWriter;
    /** The chat's permission prompt. The signal aborts when the turn is cancelled: the prompt should close. */
    requestPermission(request: AcpPermissionRequest, signal: AbortSignal): Promise<AcpPermissionAnswer>;
    /** Offer `fs/read_text_file` and `fs/write_text_file` (both by default). */
    fileSystem?: { read?: boolean; write?: boolean };
    /** Offer `terminal/*` (on by default): commands run contained, like the tools' commands. */
    terminal?: boolean;
}

/** The answer an option id stands for, by its kind among the offered options. */
export function permissionAllows(answer: AcpPermissionAnswer, options: readonly AcpPermissionOption[]): boolean {
    if ('cancelled' in answer) {
        return false;
    }
    const kind = options.find(option => option.optionId === answer.optionId)?.kind;
    return kind === 'allow_once' || kind === 'allow_always';
}
