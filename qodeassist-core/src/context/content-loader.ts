import { lstat, readFile } from 'node:fs/promises';
import { ContentRef } from './conversation-history';

/** No stored copy is larger (the chat takes images to 5 MB, files to 512 KB); a bigger file is not one of them. */
const MAX_CONTENT_BYTES = 16 * 1024 * 1024;

export type LoadedContent =
    | { ok: true; kind: 'image'; mediaType: string; data: string }
    | { ok: true; kind: 'text'; text: string }
    | { ok: false; reason: string };

/**
 * Materializes stored attachments and images for a request. Results are cached by
 * (path, mtime, size): a turn re-sends the same bytes (prompt caches stay warm) and
 * nothing is re-read or re-encoded unless the file changed.
 */
export class ContentLoader {
    private readonly cache = new Map<string, LoadedContent>();

    constructor(private readonly maxEntries = 256) { }

    async load(ref: ContentRef): Promise<LoadedContent> {
        let key: string;
        try {
            // The chat's own copies are regular files; a link or a device planted in their place is never read.
            const info = await lstat(ref.path);
            if (!info.isFile()) {
                return { ok: false, reason: 'not a regular file' };
            }
            if (info.size > MAX_CONTENT_BYTES) {
                return { ok: false, reason: `larger than ${MAX_CONTENT_BYTES / 1024 / 1024} MiB` };
            }
            key = `${ref.path}\0${info.mtimeMs}\0${info.size}`;
        } catch (error) {
            return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? String(error) };
        }
        const cached = this.cache.get(key);
        if (cached) {
            return cached;
        }
        let loaded: LoadedContent;
        try {
            const bytes = await readFile(ref.path);
            loaded = ref.mediaType.startsWith('image/')
                ? { ok: true, kind: 'image', mediaType: ref.mediaType, data: bytes.toString('base64') }
                : { ok: true, kind: 'text', text: bytes.toString('utf8') };
        } catch (error) {
            return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? String(error) };
        }
        if (this.cache.size >= this.maxEntries) {
            this.cache.delete(this.cache.keys().next().value as string);
        }
        this.cache.set(key, loaded);
        return loaded;
    }

    get size(): number {
        return this.cache.size;
    }
}
