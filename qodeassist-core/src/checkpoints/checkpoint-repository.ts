import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { BlobReader } from './blob-reader';
import { Checkpoint, LeftOutFiles, TreeChange } from './checkpoint-types';
import { ShadowGit } from './shadow-git';

/** Files larger than this are left out of checkpoints (and listed): a checkpoint copies every byte it keeps. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

/** Most ignored entries a listing names; the rest are counted, not named. */
const IGNORED_LISTED = 300;

export interface CheckpointRepositoryOptions {
    /** The shadow repository's git dir, outside the workspace. */
    gitDir: string;
    workspace: string;
    maxFileBytes?: number;
    /** Workspace-relative folders never kept (the chats QodeAssist saves in the workspace, its own state dir when inside). */
    alwaysExcluded?: readonly string[];
    env?: Readonly<Record<string, string | undefined>>;
}

/** A commit message is data QodeAssist reads back: the files left out for their size. */
function commitMessage(oversized: readonly string[]): string {
    return `QodeAssist checkpoint\n\n${JSON.stringify({ oversized })}\n`;
}

function oversizedOf(message: string): string[] {
    const json = message.slice(message.indexOf('\n\n') + 2).trim();
    try {
        const parsed: unknown = JSON.parse(json);
        const list = (parsed as { oversized?: unknown }).oversized;
        return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
    } catch {
        return [];
    }
}

/** NUL-separated git output as strings (the last, empty piece dropped). */
function nulList(output: Buffer): string[] {
    return output.toString('utf8').split('\0').filter(entry => entry.length > 0);
}

/** A path git reported, as a safe workspace-relative path: no absolute path, no `..`, no `.git` part. */
export function isSafeRelative(path: string): boolean {
    return !!path && !isAbsolute(path) && !(process.platform === 'win32' && path.includes('\\'))
        && !path.split('/').some(part => part === '..' || part === '' || part === '.' || part.toLowerCase() === '.git');
}

/**
 * The workspace's shadow repository: takes checkpoints (`git add -A` on its own index re-hashes
 * only what changed by stat), compares them and reads their files. Its commands run one at a
 * time: two chats of one workspace share its index.
 */
export class CheckpointRepository {
    readonly git: ShadowGit;
    readonly workspace: string;
    readonly maxFileBytes: number;
    private queue: Promise<unknown> = Promise.resolve();
    private ready: Promise<void> | undefined;
    private blobs: BlobReader | undefined;
    /** Commits are immutable: their trees and records, once read or written, are not asked of git again. */
    private readonly known = new Map<string, { tree: string; oversized: string[] }>();

    constructor(private readonly options: CheckpointRepositoryOptions) {
        this.workspace = options.workspace;
        this.git = new ShadowGit(options.gitDir, options.workspace, options.env);
        this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    }

    /** Runs `work` after the repository's earlier work ended. */
    exclusive<T>(work: () => Promise<T>): Promise<T> {
        const result = this.queue.then(work, work);
        this.queue = result.catch(() => undefined);
        return result;
    }

    /** The workspace as it is now, kept; `parent` is the chat's previous checkpoint (returned as it is when nothing changed). */
    take(parent?: string): Promise<Checkpoint> {
        return this.exclusive(async () => {
            await this.prepare();
            const { add, oversized } = await this.candidates();
            if (add.length > 0) {
                await this.stage(add);
            }
            if (oversized.length > 0) {
                // A tracked file that grew past the limit leaves the checkpoint: a restore must not put an old copy over it.
                await this.git.run(['rm', '--cached', '-q', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], { input: oversized.join('\0') });
            }
            const tree = (await this.git.run(['write-tree'])).toString('utf8').trim();
            if (parent) {
                const previous = await this.record(parent);
                if (previous.tree === tree && JSON.stringify(previous.oversized) === JSON.stringify(oversized)) {
                    return { commit: parent, oversized };
                }
            }
            const commit = (await this.git.run(['commit-tree', tree, ...parent ? ['-p', parent] : [], '-F', '-'], { input: commitMessage(oversized) })).toString('utf8').trim();
            this.known.set(commit, { tree, oversized });
            return { commit, oversized };
        });
    }

    /** Keeps a checkpoint from git's garbage collection under a ref of its own. */
    pin(ref: string, commit: string): Promise<void> {
        return this.exclusive(async () => {
            await this.git.run(['update-ref', ref, commit]);
        });
    }

    /** A checkpoint's record: its files left out for their size. */
    async checkpoint(commit: string): Promise<Checkpoint> {
        return { commit, oversized: (await this.exclusive(() => this.record(commit))).oversized };
    }

    private async record(commit: string): Promise<{ tree: string; oversized: string[] }> {
        let known = this.known.get(commit);
        if (!known) {
            const [tree, message] = (await this.git.run(['show', '-s', '--format=%T%x00%B', commit])).toString('utf8').split('\0');
            known = { tree, oversized: oversizedOf(message) };
            this.known.set(commit, known);
        }
        return known;
    }

    /** The files that differ from `from` to `to`, links and executable bits included; nested repositories' entries are left out. */
    diff(from: string, to: string): Promise<TreeChange[]> {
        return this.exclusive(async () => {
            const parts = nulList(await this.git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]));
            const changes: TreeChange[] = [];
            for (let index = 0; index + 1 < parts.length; index += 2) {
                const [oldMode, newMode, oldOid, newOid] = parts[index].slice(1).split(' ');
                const path = parts[index + 1];
                if (oldMode === '160000' || newMode === '160000' || !isSafeRelative(path)) {
                    continue;
                }
                const before = oldMode === '000000' ? undefined : { mode: oldMode, oid: oldOid };
                const after = newMode === '000000' ? undefined : { mode: newMode, oid: newOid };
                changes.push({ path, kind: !before ? 'added' : !after ? 'deleted' : 'modified', ...before ? { before } : {}, ...after ? { after } : {} });
            }
            return changes;
        });
    }

    /** A file of a checkpoint: its mode and blob id, undefined when the checkpoint has no such file. */
    async entry(commit: string, path: string): Promise<{ mode: string; oid: string } | undefined> {
        const out = (await this.exclusive(() => this.git.run(['ls-tree', '-z', commit, '--', path]))).toString('utf8');
        const match = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(out);
        return match && match[2] === 'blob' ? { mode: match[1], oid: match[3] } : undefined;
    }

    /** The bytes of blobs, by id. */
    read(oids: readonly string[]): Promise<Map<string, Buffer>> {
        return this.exclusive(async () => {
            this.blobs ??= new BlobReader(this.git);
            return this.blobs.read(oids);
        });
    }

    /** What checkpoints leave out now: ignored entries (folders collapsed), the given oversized files, nested repositories. */
    leftOut(oversized: readonly string[]): Promise<LeftOutFiles> {
        return this.exclusive(async () => {
            await this.prepare();
            const ignored = nulList(await this.git.run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']));
            const nested = nulList(await this.git.run(['ls-files', '-z', '--others', '--exclude-standard', '--directory'])).filter(path => path.endsWith('/'));
            return {
                ignored: ignored.length > IGNORED_LISTED ? [...ignored.slice(0, IGNORED_LISTED), `… and ${ignored.length - IGNORED_LISTED} more`] : ignored,
                oversized: [...oversized], nestedRepositories: nested
            };
        });
    }

    /** The repository exists, its exclude file follows the workspace's ignore rules. */
    private prepare(): Promise<void> {
        this.ready ??= (async () => {
            if (!existsSync(join(this.options.gitDir, 'HEAD'))) {
                await this.git.init();
            }
        })();
        return this.ready.then(() => this.writeExcludes());
    }

    /**
     * `info/exclude` from the workspace's `.qodeassistignore` and QodeAssist's own folders (git reads
     * the `.gitignore` files of the tree itself). Rewritten only when it changed: git's untracked cache
     * starts over when it does.
     */
    private async writeExcludes(): Promise<void> {
        const own = await readFile(join(this.workspace, '.qodeassistignore'), 'utf8').catch(() => '');
        const lines = ['# Written by QodeAssist from the workspace\'s .qodeassistignore; do not edit.', '.git/',
            ...(this.options.alwaysExcluded ?? []).map(folder => `/${folder.replace(/^\/+|\/+$/g, '')}/`), own];
        const text = `${lines.join('\n')}\n`;
        const file = join(this.options.gitDir, 'info', 'exclude');
        if (await readFile(file, 'utf8').catch(() => undefined) !== text) {
            await mkdir(join(this.options.gitDir, 'info'), { recursive: true });
            await writeFile(file, text);
        }
    }

    /** What changed since the index by stat (new, modified, deleted files), split into what is staged and what is too large. */
    private async candidates(): Promise<{ add: string[]; oversized: string[] }> {
        const listed = nulList(await this.git.run(['ls-files', '-z', '--others', '--modified', '--exclude-standard']));
        const add: string[] = [];
        const oversized: string[] = [];
        for (const path of new Set(listed)) {
            if (path.endsWith('/')) {
                // A folder with a `.git` of its own: git would keep it as a link to that repository, not its files.
                continue;
            }
            const stats = await lstat(join(this.workspace, path)).catch(() => undefined);
            if (stats?.isFile() && stats.size > this.maxFileBytes) {
                oversized.push(path);
            } else {
                add.push(path);
            }
        }
        // Oversized files unchanged since an earlier checkpoint are listed by `--others` every time: they stay listed.
        oversized.sort();
        return { add, oversized };
    }

    /** Stages the paths; a file gone between listing and staging is listed again once. */
    private async stage(paths: readonly string[]): Promise<void> {
        const args = ['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'];
        try {
            await this.git.run(args, { input: paths.join('\0') });
        } catch {
            const { add } = await this.candidates();
            if (add.length > 0) {
                await this.git.run(args, { input: add.join('\0') });
            }
        }
    }
}
