import { createTwoFilesPatch } from 'diff';
import { CheckpointRepository } from './checkpoint-repository';
import { FileChangeView, TreeChange } from './checkpoint-types';

/** Files larger than this are not diffed line by line: the view says they changed. */
const DIFF_FILE_BYTES = 1024 * 1024;
/** Longest diff a view gets per file. */
const DIFF_CHARS = 200_000;

function isBinary(bytes: Buffer): boolean {
    return bytes.subarray(0, 8000).includes(0);
}

/** The changes as a view shows them: each file's unified diff from its `before` to its `after`. */
export async function changeViews(repository: CheckpointRepository, changes: readonly TreeChange[]): Promise<FileChangeView[]> {
    const blobs = await repository.read(changes.flatMap(change => [change.before?.oid, change.after?.oid].filter((oid): oid is string => !!oid)));
    return changes.map(change => {
        const before = change.before ? blobs.get(change.before.oid)! : Buffer.alloc(0);
        const after = change.after ? blobs.get(change.after.oid)! : Buffer.alloc(0);
        const modeChanged = !!change.before && !!change.after && change.before.mode !== change.after.mode;
        const base = { path: change.path, kind: change.kind, ...modeChanged ? { modeChanged } : {} };
        if (isBinary(before) || isBinary(after)) {
            return { ...base, diff: '', binary: true };
        }
        if (before.length > DIFF_FILE_BYTES || after.length > DIFF_FILE_BYTES) {
            return { ...base, diff: '', truncated: true };
        }
        // The library starts with a line of `=` (its Index header's rule): a unified diff starts at `---`.
        const patch = createTwoFilesPatch(change.before ? `a/${change.path}` : '/dev/null', change.after ? `b/${change.path}` : '/dev/null',
            before.toString('utf8'), after.toString('utf8'), undefined, undefined, { context: 3 }).replace(/^=+\n/, '');
        return patch.length > DIFF_CHARS ? { ...base, diff: patch.slice(0, DIFF_CHARS), truncated: true } : { ...base, diff: patch };
    });
}
