import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { IProjectScanner, ScannedFile } from '../ports/project-scanner';
import { CancelledError } from '../wire/error-info';
import { WorkspaceFiles } from './workspace-files';

/**
 * The file-system adapter of IProjectScanner: a depth-first walk in code-point order, ignore rules
 * applied. Symbolic links are neither listed nor followed, like ripgrep without --follow: a link
 * could lead to an ignored file or out of the workspace, and read_file checks a link it is given.
 */
export class FileSystemProjectScanner implements IProjectScanner {
    constructor(private readonly workspace: WorkspaceFiles) { }

    async *files(from: ScannedFile, signal?: AbortSignal): AsyncGenerator<ScannedFile> {
        const entries = await readdir(from.absolute, { withFileTypes: true }).catch(() => []);
        // Code-point order, like `ls` in the C locale: stable across machines and locales.
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const entry of entries) {
            if (signal?.aborted) {
                throw new CancelledError();
            }
            const child: ScannedFile = { absolute: join(from.absolute, entry.name), root: from.root, relative: from.relative ? `${from.relative}/${entry.name}` : entry.name };
            if (this.workspace.isIgnored(child, entry.isDirectory())) {
                continue;
            }
            if (entry.isDirectory()) {
                yield* this.files(child, signal);
            } else if (entry.isFile()) {
                // Dirent types come from lstat: a link is neither a file nor a folder here.
                yield child;
            }
        }
    }
}
