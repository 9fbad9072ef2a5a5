/**
 * Completions by where they were asked for, LRU, bounded in entries and bytes. A stored
 * completion also answers every prefix that types ahead into it ("forward entries"), so
 * typing the suggested text keeps hitting. Reads and writes go through one key function.
 */
export class CompletionCache {
    private readonly entries = new Map<string, string>();
    private bytes = 0;

    constructor(readonly limits: { entries: number; bytes: number; forwardChars: number } = { entries: 500, bytes: 2 * 1024 * 1024, forwardChars: 256 }) { }

    /** The one key: the file, the end of the prefix and the start of the suffix (what the model saw nearest the cursor). */
    static key(file: string, prefix: string, suffix: string): string {
        return `${file}\u0000${prefix.slice(-1000)}\u0000${suffix.slice(0, 300)}`;
    }

    get(file: string, prefix: string, suffix: string): string | undefined {
        const key = CompletionCache.key(file, prefix, suffix);
        const value = this.entries.get(key);
        if (value !== undefined) {
            this.entries.delete(key);
            this.entries.set(key, value);
        }
        return value;
    }

    /** Stores the completion for this position and for each position typing into it reaches. */
    put(file: string, prefix: string, suffix: string, completion: string): void {
        if (!completion) {
            return;
        }
        const forward = Math.min(completion.length - 1, this.limits.forwardChars);
        for (let typed = 0; typed <= forward; typed++) {
            this.set(CompletionCache.key(file, prefix + completion.slice(0, typed), suffix), completion.slice(typed));
        }
    }

    get size(): { entries: number; bytes: number } {
        return { entries: this.entries.size, bytes: this.bytes };
    }

    clear(): void {
        this.entries.clear();
        this.bytes = 0;
    }

    private set(key: string, value: string): void {
        const previous = this.entries.get(key);
        if (previous !== undefined) {
            this.entries.delete(key);
            this.bytes -= (key.length + previous.length) * 2;
        }
        this.entries.set(key, value);
        this.bytes += (key.length + value.length) * 2;
        while (this.entries.size > this.limits.entries || this.bytes > this.limits.bytes) {
            const [oldestKey, oldestValue] = this.entries.entries().next().value as [string, string];
            this.entries.delete(oldestKey);
            this.bytes -= (oldestKey.length + oldestValue.length) * 2;
        }
    }
}
