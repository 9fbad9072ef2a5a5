import { HistoryMessage, isUserTurn } from '../context/conversation-history';
import { Logger } from '../ports/logger';
import { ToolPolicy } from '../session/session';
import { ToolKitExecutor } from '../tools/tool-executor';
import { WorkspaceCheckpoints } from './chat-checkpoints';
import { FileChangeView } from './checkpoint-types';

/** Whether a turn's tools may change the workspace: one of them writes or runs programs (the terminal, the build, an MCP tool). */
export function mayChangeWorkspace(policy: ToolPolicy): boolean {
    const offered = new Set((policy.tools ?? []).map(tool => tool.name));
    if (offered.size === 0) {
        return false;
    }
    // An executor that does not say what its tools may do is taken to write.
    return !(policy.executor instanceof ToolKitExecutor) || policy.executor.catalog().some(tool => offered.has(tool.name) && tool.permission !== 'read');
}

/** The files an external agent changed on disk during its turn, from the checkpoint before it to the one after. */
export interface WorkspaceChangesEvent {
    type: 'WorkspaceChanges';
    requestId: string;
    turn: number;
    files: FileChangeView[];
}

/** A chat as taking checkpoints sees it: its id now and its conversation. */
interface CheckpointedChat {
    readonly id: string;
    readonly history: readonly HistoryMessage[];
}

/**
 * Takes a chat's checkpoints where its turns start (and where an external agent's turn ends).
 * A checkpoint that cannot be taken never stops the turn: the chat is told that this message
 * cannot be restored to.
 */
export class TurnCheckpoints {
    /** The turn each chat is in, for the checkpoint after it. */
    private readonly running = new WeakMap<CheckpointedChat, { workspace: string; turn: number }>();

    constructor(readonly checkpoints: WorkspaceCheckpoints, private readonly port: { notice(chatId: string, message: string): void; logger?: Logger }) {}

    /**
     * Before a turn whose agent may change the workspace: the workspace as it is, kept under the turn's
     * number. `asked`: the question is in the history already (a regenerate).
     */
    async before(chat: CheckpointedChat, workspace: string | undefined, mayChange: boolean, asked = false): Promise<void> {
        this.running.delete(chat);
        if (!workspace || !mayChange) {
            return;
        }
        const turn = chat.history.filter(isUserTurn).length - (asked ? 1 : 0);
        try {
            await this.checkpoints.forChat(workspace, chat.id).beforeTurn(turn);
            this.running.set(chat, { workspace, turn });
        } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            this.port.logger?.log('warn', 'qodeassist.session', `No checkpoint before message ${turn + 1} of chat ${chat.id}: ${reason}`);
            this.port.notice(chat.id, `No checkpoint was kept before this message, so "Restore to here" cannot put its files back: ${reason}`);
        }
    }

    /** After an external agent's turn: what it changed on disk, undefined when nothing did (or no checkpoint was taken before it). */
    async after(chat: CheckpointedChat, requestId: string): Promise<WorkspaceChangesEvent | undefined> {
        const running = this.running.get(chat);
        this.running.delete(chat);
        if (!running) {
            return undefined;
        }
        try {
            const checkpoints = this.checkpoints.forChat(running.workspace, chat.id);
            await checkpoints.afterTurn(running.turn);
            const { files } = await checkpoints.changes(running.turn, running.turn);
            return files.length > 0 ? { type: 'WorkspaceChanges', requestId, turn: running.turn, files } : undefined;
        } catch (error) {
            this.port.logger?.log('warn', 'qodeassist.session', `No checkpoint after message ${running.turn + 1} of chat ${chat.id}: ${error instanceof Error ? error.message : String(error)}`);
            return undefined;
        }
    }
}
