import { WorkspaceFiles } from '@qodeassist/core';

/**
 * Open editors go to a model only when they are workspace files no ignore rule hides, named
 * relative to the workspace; `except` (the file being worked on) is left out.
 */
export function shareableOpenFiles(files: WorkspaceFiles | undefined, open: ReadonlyArray<{ path: string; content: string }> | undefined, except?: string): Array<{ path: string; content: string }> {
    if (!open?.length || !files) {
        return [];
    }
    const skipped = except === undefined ? undefined : absoluteIn(files, except);
    return open.flatMap(file => {
        try {
            const path = files.resolve(file.path);
            return files.isIgnored(path) || path.absolute === skipped ? [] : [{ path: path.relative, content: file.content }];
        } catch {
            return [];
        }
    });
}

function absoluteIn(files: WorkspaceFiles, path: string): string | undefined {
    try {
        return files.resolve(path).absolute;
    } catch {
        return undefined;
    }
}
