import { readFile, stat } from 'node:fs/promises';
import { ContentRef } from './conversation-history';

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
            const info = await stat(ref.path);
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
