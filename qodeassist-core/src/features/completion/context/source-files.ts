import { readFile, stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { WorkspaceFiles } from '../../../tools/workspace-files';

/** A file read for context: its text as of `version` (mtime and size). */
export interface SourceFile {
    absolute: string;
    text: string;
    version: string;
}

/**
 * Which files a completion may show the model: workspace files no ignore rule hides, named
 * relative to their root. One per request (ignore files may change between requests).
 */
export interface ContextFileAccess {
    readonly roots: readonly string[];
    /** The workspace-relative path of a file the model may see (links followed); undefined when outside the workspace or ignored. */
    relativePath(absolute: string): string | undefined;
    /**
     * Whether a file may be read to look for what it declares (never shown by this answer alone): inside
     * a root by its path and not ignored. Cheaper than `relativePath`, as barrels are walked file by file.
     */
    mayRead(absolute: string): boolean;
}

/** The tools' view of the workspace: the same roots, links and ignore rules (`.qodeassistignore`, optionally `.gitignore`). */
export function workspaceAccess(files: WorkspaceFiles): ContextFileAccess {
    const seen = new Map<string, string | undefined>();
    return {
        roots: files.roots,
        relativePath(absolute: string): string | undefined {
            if (seen.has(absolute)) {
                return seen.get(absolute);
            }
            let shown: string | undefined;
            try {
                const path = files.resolve(absolute);
                shown = files.isIgnored(path) || path.relative === path.absolute ? undefined : path.relative;
            } catch {
                // Outside the workspace, or through a broken link: not for the model.
                shown = undefined;
            }
            seen.set(absolute, shown);
            return shown;
        },
        mayRead(absolute: string): boolean {
            const root = files.roots.find(candidate => absolute.startsWith(`${candidate}${sep}`));
            if (!root) {
                return false;
            }
            try {
                return !files.isIgnored({ absolute, root, relative: relative(root, absolute).split(sep).join('/') });
            } catch {
                return false;
            }
        }
    };
}

export interface SourceFileCacheOptions {
    /** Files larger than this are never read for context. */
    maxBytes: number;
    /** How long a file's stat is trusted before it is taken again. */
    freshMs: number;
    /** Paths remembered, files or misses (least recently used go first). */
    maxEntries: number;
    /** Characters of text held in all, at most. */
    maxTotalChars: number;
}

export const DEFAULT_SOURCE_CACHE: SourceFileCacheOptions = { maxBytes: 256 * 1024, freshMs: 2000, maxEntries: 4000, maxTotalChars: 16 * 1024 * 1024 };

interface Entry {
    checkedAt: number;
    file: SourceFile | undefined;
    derived: Map<string, unknown>;
}

/**
 * Files read for completion context, kept across requests: a file is read again only when its
 * mtime or size changed, and its stat is trusted for `freshMs` (a completion looks at the same
 * few files on every keystroke pause). Missing, oversized and non-regular files read as undefined.
 * Derived data (declarations, token windows) lives with the version it was computed from.
 */
export class SourceFileCache {
    private readonly entries = new Map<string, Entry>();
    private readonly options: SourceFileCacheOptions;
    private chars = 0;

    constructor(options: Partial<SourceFileCacheOptions> = {}, private readonly now: () => number = Date.now) {
        this.options = { ...DEFAULT_SOURCE_CACHE, ...options };
    }

    get size(): number {
        return this.entries.size;
    }

    async read(absolute: string): Promise<SourceFile | undefined> {
        const cached = this.entries.get(absolute);
        const now = this.now();
        if (cached && now - cached.checkedAt < this.options.freshMs) {
            this.touch(absolute, cached);
            return cached.file;
        }
        let file: SourceFile | undefined;
        try {
            const info = await stat(absolute);
            const version = `${info.mtimeMs}:${info.size}`;
            if (!info.isFile() || info.size > this.options.maxBytes) {
                file = undefined;
            } else if (cached?.file?.version === version) {
                file = cached.file;
            } else {
                const text = await readFile(absolute, 'utf8');
                file = text.length > this.options.maxBytes ? undefined : { absolute, text, version };
            }
        } catch {
            file = undefined;
        }
        const derived = cached && cached.file === file ? cached.derived : new Map<string, unknown>();
        this.touch(absolute, { checkedAt: now, file, derived });
        return file;
    }

    /** Whether `read` would answer from memory now, without touching the disk. */
    isFresh(absolute: string): boolean {
        const cached = this.entries.get(absolute);
        return cached !== undefined && this.now() - cached.checkedAt < this.options.freshMs;
    }

    /** `compute(file)` once per file version and key. */
    derived<T>(file: SourceFile, key: string, compute: (file: SourceFile) => T): T {
        const entry = this.entries.get(file.absolute);
        if (!entry || entry.file !== file) {
            return compute(file);
        }
        if (!entry.derived.has(key)) {
            entry.derived.set(key, compute(file));
        }
        return entry.derived.get(key) as T;
    }

    clear(): void {
        this.entries.clear();
        this.chars = 0;
    }

    private touch(absolute: string, entry: Entry): void {
        this.forget(absolute);
        this.entries.set(absolute, entry);
        this.chars += entry.file?.text.length ?? 0;
        while (this.entries.size > this.options.maxEntries || this.chars > this.options.maxTotalChars) {
            this.forget(this.entries.keys().next().value!);
        }
    }

    private forget(absolute: string): void {
        this.chars -= this.entries.get(absolute)?.file?.text.length ?? 0;
        this.entries.delete(absolute);
    }
}
