import { HIGHLIGHT_WORKER_SOURCE } from './highlight-worker-source';

export interface HighlightRequest {
    id: number;
    code: string;
    language: string;
}

export interface HighlightResponse {
    id: number;
    markup: string | undefined;
}

/** Answers kept for blocks shown again (a chat moved, reopened, or re-rendered), up to this many characters of code and markup. */
const CACHE_CHARS = 4_000_000;

/**
 * Highlights code in a worker (see highlight-worker.ts) and remembers recent answers. Where no
 * worker can start (a product's content security policy forbids blob: workers), code stays
 * plain and readable; nothing is highlighted on the main thread.
 */
export class CodeHighlighter {
    private worker: Worker | undefined;
    private failed = false;
    private nextId = 1;
    private readonly waiting = new Map<number, { key: string; resolve(markup: string | undefined): void }>();
    private readonly cache = new Map<string, string | undefined>();
    private cachedChars = 0;
    private failure: string | undefined;
    private report: ((message: string) => void) | undefined;

    constructor(private readonly createWorker: () => Worker = () => {
        const url = URL.createObjectURL(new Blob([HIGHLIGHT_WORKER_SOURCE], { type: 'text/javascript' }));
        try {
            return new Worker(url, { name: 'qodeassist-highlight' });
        } finally {
            // The worker has its script once constructed; the URL is not needed any more.
            setTimeout(() => URL.revokeObjectURL(url), 10_000);
        }
    }, private readonly cacheChars = CACHE_CHARS) { }

    /** Where to say that highlighting stopped (the QodeAssist log); told at once if it already has. */
    reportFailuresTo(report: (message: string) => void): void {
        this.report = report;
        if (this.failure) {
            report(this.failure);
        }
    }

    /** Starts the worker, which compiles the common grammars while nothing is asked of it. */
    start(): void {
        this.ensureWorker();
    }

    /** A remembered answer: the markup, undefined for a language with no grammar, or 'unknown' when not asked yet. */
    cached(code: string, language: string): string | undefined | 'unknown' {
        const key = keyOf(code, language);
        return this.cache.has(key) ? this.cache.get(key) : 'unknown';
    }

    highlight(code: string, language: string): Promise<string | undefined> {
        const key = keyOf(code, language);
        if (this.cache.has(key)) {
            return Promise.resolve(this.cache.get(key));
        }
        const worker = this.ensureWorker();
        if (!worker) {
            return Promise.resolve(undefined);
        }
        return new Promise(resolve => {
            const id = this.nextId++;
            this.waiting.set(id, { key, resolve });
            worker.postMessage({ id, code, language } satisfies HighlightRequest);
        });
    }

    dispose(): void {
        this.worker?.terminate();
        this.worker = undefined;
        for (const { resolve } of this.waiting.values()) {
            resolve(undefined);
        }
        this.waiting.clear();
    }

    private ensureWorker(): Worker | undefined {
        if (this.worker || this.failed) {
            return this.worker;
        }
        try {
            const worker = this.createWorker();
            worker.onmessage = ({ data }: MessageEvent<HighlightResponse>) => this.answer(data);
            worker.onerror = event => {
                // A script that did not load gives a plain Event, without a message.
                this.fail(`The code highlighter stopped (${event.message || 'its script could not run'}); code blocks stay plain.`);
                this.dispose();
            };
            this.worker = worker;
        } catch (error) {
            this.fail(`No code highlighter could start (${error instanceof Error ? error.message : String(error)}); code blocks stay plain.`);
        }
        return this.worker;
    }

    private fail(message: string): void {
        this.failed = true;
        this.failure = message;
        this.report?.(message);
    }

    private answer({ id, markup }: HighlightResponse): void {
        const waiting = this.waiting.get(id);
        if (!waiting) {
            return;
        }
        this.waiting.delete(id);
        if (!this.cache.has(waiting.key)) {
            this.cache.set(waiting.key, markup);
            this.cachedChars += waiting.key.length + (markup?.length ?? 0);
            // Oldest first, never the answer just given.
            for (const [key, old] of this.cache) {
                if (this.cachedChars <= this.cacheChars || key === waiting.key) {
                    break;
                }
                this.cache.delete(key);
                this.cachedChars -= key.length + (old?.length ?? 0);
            }
        }
        waiting.resolve(markup);
    }
}

function keyOf(code: string, language: string): string {
    return `${language}\n${code}`;
}

/** The page's one highlighter, shared by every chat view. */
export const codeHighlighter = new CodeHighlighter();
