import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { changeViews } from './checkpoint-diffs';
import { CheckpointRepository } from './checkpoint-repository';
import { Checkpoint, FileChangeView, LeftOutFiles, RestoreOutcome } from './checkpoint-types';
import { restoreWorkspace } from './workspace-restore';

/** One checkpoint of a chat: before a turn that may change the workspace, after an external agent's turn, or before a restore (what "Undo restore" brings back). */
export interface CheckpointEntry {
    id: string;
    kind: 'before-turn' | 'after-turn' | 'before-restore';
    /** The user message (counted from 0) the checkpoint belongs to; for a restore, the one restored to. */
    turn: number;
    commit: string;
    createdAt: string;
    /** A restore that was undone: its "Undo restore" is no longer offered. */
    undone?: boolean;
}

/** What a chat keeps about its checkpoints, beside the shadow repository. */
interface ChatCheckpointIndex {
    version: 1;
    chatId: string;
    entries: CheckpointEntry[];
    /** Files the user kept in the review: the blob they were kept at (null: kept deleted); shown again once they change. */
    kept: Record<string, string | null>;
}

/** What restoring to a message would change, asked before it is done. */
export interface RestorePreview {
    turn: number;
    /** Each file as the restore changes it: from the workspace now to the checkpoint. */
    files: FileChangeView[];
    leftOut: LeftOutFiles;
}

export interface RestoreResult extends RestoreOutcome {
    /** The checkpoint taken just before the restore: "Undo restore" brings it back. */
    restoreId: string;
}

/** The files changed in a chat from a checkpoint to another (or to now). */
export interface ChatChanges {
    /** The message the changes are counted from (its checkpoint before it); undefined: the chat has no checkpoint yet. */
    fromTurn?: number;
    files: FileChangeView[];
}

/** Chat ids become file names: anything else than a plain id is hashed. */
function fileNameOf(chatId: string): string {
    return /^[A-Za-z0-9._-]{1,100}$/.test(chatId) && !chatId.startsWith('.') ? chatId : createHash('sha256').update(chatId).digest('hex').slice(0, 32);
}

function newest(entries: readonly CheckpointEntry[], matches: (entry: CheckpointEntry) => boolean): CheckpointEntry | undefined {
    return [...entries].reverse().find(matches);
}

function noCheckpoint(turn: number): QodeAssistError {
    return new QodeAssistError({
        category: 'Validation',
        message: `The chat has no checkpoint before message ${turn + 1}: QodeAssist keeps one before each turn whose agent may change files. Pick a later message.`
    });
}

/**
 * The checkpoints of one chat in one workspace: taken before each turn that may change files,
 * compared for the review, and restored (every file, or one). Operations of the chat run one
 * after another; the index of its checkpoints is written atomically beside the shadow repository.
 */
export class ChatCheckpoints {
    private queue: Promise<unknown> = Promise.resolve();

    constructor(readonly repository: CheckpointRepository, private readonly folder: string, readonly chatId: string) {}

    /** Records the workspace before the `turn`-th message's answer may change it. */
    beforeTurn(turn: number): Promise<CheckpointEntry> {
        return this.exclusive(index => this.record(index, 'before-turn', turn));
    }

    /** Records the workspace after an external agent's turn: its review compares it with the one before. */
    afterTurn(turn: number): Promise<CheckpointEntry> {
        return this.exclusive(index => this.record(index, 'after-turn', turn));
    }

    /** The chat's checkpoints, oldest first. */
    entries(): Promise<CheckpointEntry[]> {
        return this.exclusive(async index => index.entries.map(entry => ({ ...entry })));
    }

    /** The files a restore to before the `turn`-th message would change, with their diffs, and what it leaves as it is. */
    preview(turn: number): Promise<RestorePreview> {
        return this.exclusive(async index => {
            const target = await this.checkpointBefore(index, turn);
            const now = await this.repository.take(this.latest(index));
            const files = await changeViews(this.repository, await this.repository.diff(now.commit, target.commit));
            return { turn, files, leftOut: await this.repository.leftOut([...new Set([...now.oversized, ...target.oversized])].sort()) };
        });
    }

    /**
     * Puts the workspace back as it was before the `turn`-th message (only the files in `only`, when
     * given). The state just before is a checkpoint too: `undoRestore(restoreId)` brings it back.
     */
    restore(turn: number, only?: readonly string[]): Promise<RestoreResult> {
        return this.exclusive(async index => {
            const target = await this.checkpointBefore(index, turn);
            const before = await this.record(index, 'before-restore', turn);
            const outcome = await restoreWorkspace(this.repository, await this.repository.checkpoint(before.commit), target, only ? new Set(only) : undefined);
            return { restoreId: before.id, ...outcome };
        });
    }

    /** Brings back the workspace as it was just before a restore. */
    undoRestore(restoreId: string): Promise<RestoreOutcome> {
        return this.exclusive(async index => {
            const entry = index.entries.find(candidate => candidate.id === restoreId && candidate.kind === 'before-restore');
            if (!entry || entry.undone) {
                throw new QodeAssistError({ category: 'Validation', message: 'That restore was undone already or is not one of this chat\'s; nothing was changed.' });
            }
            const now = await this.repository.take(this.latest(index));
            const outcome = await restoreWorkspace(this.repository, now, await this.repository.checkpoint(entry.commit));
            entry.undone = true;
            await this.save(index);
            return outcome;
        });
    }

    /**
     * The files changed since the checkpoint before the `fromTurn`-th message (default: the chat's first),
     * up to the checkpoint after `toTurn` (an external agent's turn) or now; files the user kept as they are now are left out.
     */
    changes(fromTurn?: number, toTurn?: number): Promise<ChatChanges> {
        return this.exclusive(async index => {
            const first = index.entries.find(entry => entry.kind === 'before-turn');
            const turn = fromTurn ?? first?.turn;
            if (turn === undefined) {
                return { files: [] };
            }
            const from = await this.checkpointBefore(index, turn);
            const after = toTurn === undefined ? undefined : newest(index.entries, entry => entry.kind === 'after-turn' && entry.turn === toTurn);
            const to = after ? after.commit : (await this.repository.take(this.latest(index))).commit;
            const changes = (await this.repository.diff(from.commit, to)).filter(change => {
                const kept = index.kept[change.path];
                return kept === undefined || kept !== (change.after?.oid ?? null);
            });
            return { fromTurn: turn, files: await changeViews(this.repository, changes) };
        });
    }

    /** Puts one file back as the checkpoint before the `turn`-th message holds it (removed, when it did not exist). */
    revertFile(turn: number, path: string): Promise<RestoreResult> {
        return this.restore(turn, [path]);
    }

    /** The user keeps a file as it is now: the review stops showing it until it changes again. */
    keep(path: string): Promise<void> {
        return this.exclusive(async index => {
            if (index.entries.length === 0) {
                // Nothing to review yet: no repository is made for a workspace the chat never changed.
                throw noCheckpoint(0);
            }
            const now = await this.repository.take(this.latest(index));
            index.kept[path] = (await this.repository.entry(now.commit, path))?.oid ?? null;
            await this.save(index);
        });
    }

    private exclusive<T>(work: (index: ChatCheckpointIndex) => Promise<T>): Promise<T> {
        const run = async () => work(await this.load());
        const result = this.queue.then(run, run);
        this.queue = result.catch(() => undefined);
        return result;
    }

    private latest(index: ChatCheckpointIndex): string | undefined {
        return index.entries.at(-1)?.commit;
    }

    private async record(index: ChatCheckpointIndex, kind: CheckpointEntry['kind'], turn: number): Promise<CheckpointEntry> {
        const latest = this.latest(index);
        const checkpoint = await this.repository.take(latest);
        if (checkpoint.commit !== latest) {
            // The newest checkpoint reaches every older one through its parents: one ref keeps them all.
            await this.repository.pin(`refs/qodeassist/chats/${fileNameOf(this.chatId)}`, checkpoint.commit);
        }
        const entry: CheckpointEntry = { id: randomUUID(), kind, turn, commit: checkpoint.commit, createdAt: new Date().toISOString() };
        index.entries.push(entry);
        await this.save(index);
        return entry;
    }

    /** The newest checkpoint taken before the `turn`-th message (a reset and a new message take the turn's number again). */
    private async checkpointBefore(index: ChatCheckpointIndex, turn: number): Promise<Checkpoint> {
        const entry = newest(index.entries, candidate => candidate.kind === 'before-turn' && candidate.turn === turn);
        if (!entry) {
            throw noCheckpoint(turn);
        }
        return this.repository.checkpoint(entry.commit);
    }

    private get file(): string {
        return join(this.folder, `${fileNameOf(this.chatId)}.json`);
    }

    private async load(): Promise<ChatCheckpointIndex> {
        const text = await readFile(this.file, 'utf8').catch(() => undefined);
        if (text !== undefined) {
            try {
                const parsed = JSON.parse(text) as ChatCheckpointIndex;
                if (parsed.version === 1 && Array.isArray(parsed.entries)) {
                    return { ...parsed, kept: parsed.kept ?? {} };
                }
            } catch {
                // A broken index starts over: the checkpoints stay in the repository, unnamed.
            }
        }
        return { version: 1, chatId: this.chatId, entries: [], kept: {} };
    }

    private async save(index: ChatCheckpointIndex): Promise<void> {
        await mkdir(this.folder, { recursive: true });
        const temporary = `${this.file}.${randomUUID()}.tmp`;
        await writeFile(temporary, JSON.stringify(index, undefined, 1));
        await rename(temporary, this.file);
    }
}

/** Where a workspace's checkpoints live: `<root>/<hash of the workspace path>/`. */
export function checkpointFolderOf(root: string, workspace: string): string {
    return join(root, createHash('sha256').update(resolve(workspace)).digest('hex').slice(0, 24));
}

/**
 * Every workspace's checkpoints under one root (`<QodeAssist home>/.qodeassist/checkpoints`):
 * a shadow repository per workspace, an index per chat. Never inside the workspace it keeps;
 * a root that lies inside one is left out of that workspace's checkpoints.
 */
export class WorkspaceCheckpoints {
    private static readonly shared = new Map<string, WorkspaceCheckpoints>();
    private readonly repositories = new Map<string, CheckpointRepository>();
    private readonly chats = new Map<string, ChatCheckpoints>();

    constructor(readonly root: string, private readonly options: { maxFileBytes?: number; env?: Readonly<Record<string, string | undefined>> } = {}) {}

    /** The process's one registry for a root: every window's chats share each workspace's repository and its one-at-a-time queue. */
    static at(root: string): WorkspaceCheckpoints {
        const key = resolve(root);
        let checkpoints = WorkspaceCheckpoints.shared.get(key);
        if (!checkpoints) {
            checkpoints = new WorkspaceCheckpoints(key);
            WorkspaceCheckpoints.shared.set(key, checkpoints);
        }
        return checkpoints;
    }

    /** The checkpoints of a chat in a workspace folder. */
    forChat(workspace: string, chatId: string): ChatCheckpoints {
        const folder = checkpointFolderOf(this.root, workspace);
        const key = `${folder}\0${chatId}`;
        let chat = this.chats.get(key);
        if (!chat) {
            chat = new ChatCheckpoints(this.repository(workspace), join(folder, 'chats'), chatId);
            this.chats.set(key, chat);
        }
        return chat;
    }

    /** The shadow repository of a workspace folder. */
    repository(workspace: string): CheckpointRepository {
        const resolved = resolve(workspace);
        const folder = checkpointFolderOf(this.root, resolved);
        let repository = this.repositories.get(folder);
        if (!repository) {
            const inside = relative(resolved, resolve(this.root));
            const rootInside = inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
            repository = new CheckpointRepository({
                gitDir: join(folder, 'git'), workspace: resolved, maxFileBytes: this.options.maxFileBytes, env: this.options.env,
                alwaysExcluded: ['.qodeassist/chats', ...rootInside ? [inside.split('\\').join('/')] : []]
            });
            this.repositories.set(folder, repository);
            void mkdir(folder, { recursive: true }).then(() => writeFile(join(folder, 'workspace.json'), JSON.stringify({ path: resolved }))).catch(() => undefined);
        }
        return repository;
    }
}
