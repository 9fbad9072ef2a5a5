/** The highlight worker bundled as script text; written by scripts/bundle-highlight-worker.mjs after tsc. */
export declare const HIGHLIGHT_WORKER_SOURCE: string;
