import type { ChatChanges, ChatEvent, QodeAssistChatService, RestoreMode, RestorePreview, RestoreToResult } from '../../common/chat-protocol';
import { reasonOf } from './chat-reconnect';

interface Disposable {
    dispose(): void;
}

/** "Restore to here" being asked: the message, the choice, and the preview of the files it would change. */
export interface RestoreQuestion {
    turn: number;
    mode: RestoreMode;
    preview?: RestorePreview;
    /** The preview or the restore failed: why. */
    problem?: string;
    working: boolean;
}

/** The review of what the chat changed: from the checkpoint before `fromTurn` (undefined: the chat's first) to now, or to the end of an external agent's `toTurn`. */
export interface ReviewState {
    fromTurn?: number;
    toTurn?: number;
    changes?: ChatChanges;
    problem?: string;
    loading: boolean;
}

export interface ChatRewindDeps {
    service: Pick<QodeAssistChatService, 'checkpointTurns' | 'previewRestore' | 'restoreCheckpoint' | 'undoRestore' | 'reviewChanges' | 'keepChange' | 'revertChange'>;
    /** The chat shown now, if any. */
    chatId(): Promise<string | undefined>;
    workspacePath(): string | undefined;
    /** The chat's events: a turn that ended or a history rewritten changes which messages have a checkpoint. */
    onEvents(listener: (envelope: { sessionId: string; events: ChatEvent[] }) => unknown): Disposable;
    update(): void;
}

/**
 * A chat view's checkpoints: which messages offer "Restore to here", the restore asked first
 * (files, chat or both, with a preview of every file), the last restore to undo, and the review
 * of what the chat changed with Keep and Revert. Plain TypeScript over the chat service.
 */
export class ChatRewindState implements Disposable {
    /** The messages (counted from 0) with a checkpoint before them. */
    turns: ReadonlySet<number> = new Set();
    question: RestoreQuestion | undefined;
    /** The last restore or revert: "Undo restore" takes it back. */
    restored: (RestoreToResult & { problem?: string; working?: boolean }) | undefined;
    review: ReviewState | undefined;
    private readonly subscription: Disposable;

    constructor(private readonly deps: ChatRewindDeps) {
        this.subscription = deps.onEvents(async ({ sessionId, events }) => {
            if (sessionId !== await deps.chatId() || !events.some(event => event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled' || event.type === 'History')) {
                return;
            }
            await this.refresh();
            if (this.review && !this.review.loading) {
                await this.loadReview();
            }
        });
    }

    /** Asks the backend again which messages have a checkpoint (a chat shown, a turn ended). */
    async refresh(): Promise<void> {
        const target = await this.target();
        const turns = target ? await this.deps.service.checkpointTurns(target.chatId, target.workspace).catch(() => []) : [];
        if (turns.length !== this.turns.size || turns.some(turn => !this.turns.has(turn))) {
            this.turns = new Set(turns);
            this.deps.update();
        }
    }

    /** Another chat is shown: what was asked or restored in the last one is gone. */
    reset(): void {
        this.question = undefined;
        this.restored = undefined;
        this.review = undefined;
        this.turns = new Set();
        void this.refresh();
        this.deps.update();
    }

    /** "Restore to here" on the `turn`-th message: asked first, with what would change. */
    async ask(turn: number): Promise<void> {
        this.question = { turn, mode: 'both', working: true };
        this.deps.update();
        await this.withQuestion(async (question, target) => {
            question.preview = await this.deps.service.previewRestore(target.chatId, target.workspace, turn);
        });
    }

    choose(mode: RestoreMode): void {
        if (this.question) {
            this.question = { ...this.question, mode };
            this.deps.update();
        }
    }

    cancel(): void {
        this.question = undefined;
        this.deps.update();
    }

    /** The user confirmed: the restore is done, and offered to be undone. */
    async confirm(): Promise<void> {
        await this.withQuestion(async (question, target) => {
            this.restored = await this.deps.service.restoreCheckpoint(target.chatId, target.workspace, question.turn, question.mode);
            this.question = undefined;
        });
        await this.afterChange();
    }

    /** Takes the last restore (or revert) back. */
    async undo(): Promise<void> {
        const restored = this.restored;
        const target = await this.target();
        if (!restored || !target || restored.working) {
            return;
        }
        restored.working = true;
        this.deps.update();
        try {
            await this.deps.service.undoRestore(target.chatId, target.workspace, {
                ...restored.restoreId ? { restoreId: restored.restoreId } : {}, ...restored.branchId ? { branchId: restored.branchId } : {}
            });
            this.restored = undefined;
        } catch (error) {
            restored.problem = reasonOf(error);
            restored.working = false;
        }
        await this.afterChange();
    }

    dismissRestored(): void {
        this.restored = undefined;
        this.deps.update();
    }

    /** Opens (or re-scopes) the review: since the chat began, since a message, or one external agent's turn. */
    async openReview(fromTurn?: number, toTurn?: number): Promise<void> {
        this.review = { fromTurn, toTurn, loading: true };
        this.deps.update();
        await this.loadReview();
    }

    closeReview(): void {
        this.review = undefined;
        this.deps.update();
    }

    /** Keep: the file leaves the review as it is now. */
    async keep(path: string): Promise<void> {
        const target = await this.target();
        if (!target) {
            return;
        }
        await this.reviewStep(() => this.deps.service.keepChange(target.chatId, target.workspace, path));
    }

    /** Revert one file to the checkpoint the review counts from (or that of `turn`); undone like a restore. */
    async revert(path: string, turn = this.review?.changes?.fromTurn ?? this.review?.fromTurn): Promise<void> {
        const target = await this.target();
        if (!target || turn === undefined) {
            return;
        }
        await this.reviewStep(async () => {
            this.restored = await this.deps.service.revertChange(target.chatId, target.workspace, turn, path);
        });
        await this.afterChange();
    }

    dispose(): void {
        this.subscription.dispose();
    }

    private async loadReview(): Promise<void> {
        const review = this.review;
        const target = await this.target();
        if (!review || !target) {
            return;
        }
        try {
            review.changes = await this.deps.service.reviewChanges(target.chatId, target.workspace, review.fromTurn ?? null, review.toTurn ?? null);
            review.problem = undefined;
        } catch (error) {
            review.problem = reasonOf(error);
        }
        review.loading = false;
        this.deps.update();
    }

    private async reviewStep(work: () => Promise<void>): Promise<void> {
        try {
            await work();
        } catch (error) {
            if (this.review) {
                this.review.problem = reasonOf(error);
            }
        }
        await this.loadReview();
    }

    /** After files changed: the review shows them as they are now. */
    private async afterChange(): Promise<void> {
        await this.refresh();
        if (this.review) {
            await this.loadReview();
        }
        this.deps.update();
    }

    private async withQuestion(work: (question: RestoreQuestion, target: { chatId: string; workspace: string }) => Promise<void>): Promise<void> {
        const question = this.question;
        const target = await this.target();
        if (!question) {
            return;
        }
        question.working = true;
        question.problem = target ? undefined : 'Open a workspace folder and a chat to restore.';
        this.deps.update();
        try {
            if (target) {
                await work(question, target);
            }
        } catch (error) {
            question.problem = reasonOf(error);
        }
        question.working = false;
        this.deps.update();
    }

    private async target(): Promise<{ chatId: string; workspace: string } | undefined> {
        const chatId = await this.deps.chatId().catch(() => undefined);
        const workspace = this.deps.workspacePath();
        return chatId && workspace ? { chatId, workspace } : undefined;
    }
}
