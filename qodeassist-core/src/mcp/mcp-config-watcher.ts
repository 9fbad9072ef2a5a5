import { existsSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { McpConfigFiles } from './mcp-config';

/**
 * Watches the mcp.json files a hub reads and calls `onChange` once a change has settled for
 * `delayMs`. It watches each file's folder (editors replace files rather than write them); while
 * that folder does not exist yet, its parent, until it appears.
 */
export class McpConfigWatcher {
    private readonly watchers: Array<{ close(): void }> = [];
    private timer: NodeJS.Timeout | undefined;

    constructor(private readonly onChange: () => void, private readonly delayMs: number) { }

    /** Watches these files from now on, and no others. */
    watchFiles(files: McpConfigFiles): void {
        this.closeWatchers();
        for (const file of [files.user, files.project]) {
            if (file) {
                this.watch(file);
            }
        }
    }

    close(): void {
        if (this.timer) {
            clearTimeout(this.timer);
        }
        this.closeWatchers();
    }

    private closeWatchers(): void {
        for (const watcher of this.watchers.splice(0)) {
            watcher.close();
        }
    }

    private watch(file: string): void {
        const folder = dirname(file);
        const watched = existsSync(folder) ? folder : dirname(folder);
        if (!existsSync(watched)) {
            return; // Neither the folder nor its parent: nothing to watch (a workspace that is gone).
        }
        const watcher = watch(watched, (_event, name) => {
            if (watched === folder) {
                if (name === null || name.toString() === basename(file)) {
                    this.schedule();
                }
            } else if (existsSync(folder)) {
                // The folder appeared: watch it from now on, and read what it may already hold.
                handle.close();
                this.watchers.splice(this.watchers.indexOf(handle), 1);
                this.watch(file);
                this.schedule();
            }
        });
        watcher.on('error', () => watcher.close());
        const handle = { close: () => watcher.close() };
        this.watchers.push(handle);
    }

    private schedule(): void {
        if (this.timer) {
            clearTimeout(this.timer);
        }
        this.timer = setTimeout(this.onChange, this.delayMs);
    }
}
