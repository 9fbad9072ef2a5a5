/** A recorded state of the workspace: a commit of the shadow repository, and the files it left out for their size. */
export interface Checkpoint {
    commit: string;
    /** Workspace-relative paths (forward slashes) over the size limit: not in the checkpoint, never touched by a restore. */
    oversized: string[];
}

/** How a file differs between two checkpoints, read from the first to the second. */
export type FileChangeKind = 'added' | 'deleted' | 'modified';

/** One side of a change: the file's git mode (100644, 100755, 120000 for a link) and blob id. */
export interface FileSide {
    mode: string;
    oid: string;
}

/** A file that differs between two checkpoints. */
export interface TreeChange {
    path: string;
    kind: FileChangeKind;
    before?: FileSide;
    after?: FileSide;
}

/** A change as a view shows it: a unified diff (empty for a binary file or a mode change only). */
export interface FileChangeView {
    path: string;
    kind: FileChangeKind;
    diff: string;
    binary?: boolean;
    /** The executable bit or the kind of file (link, plain) changed. */
    modeChanged?: boolean;
    /** The diff was cut at the view's limit. */
    truncated?: boolean;
}

/** What QodeAssist does not keep in checkpoints, so a restore leaves it as it is. */
export interface LeftOutFiles {
    /** Ignored by `.gitignore`/`.qodeassistignore` (folders end with `/`), at most a few hundred listed. */
    ignored: string[];
    /** Over the size limit. */
    oversized: string[];
    /** Folders holding a git repository of their own (their files are that repository's business). */
    nestedRepositories: string[];
}

/** What a restore did to the workspace. */
export interface RestoreOutcome {
    /** The files written or removed, as the change from the state before the restore. */
    changed: Array<{ path: string; kind: FileChangeKind }>;
    /** Files the restore would have touched and did not, with why (a path through a link, a left-out file in the way). */
    skipped: Array<{ path: string; reason: string }>;
}
