import type { ErrorInfo, LaunchStatus } from '@qodeassist/core';

export const QODEASSIST_COMPLETION_PATH = '/services/qodeassist/completion';

/** The user's completion settings (preferences `qodeassist.completion.*`) that shape a request. */
export interface CompletionQuerySettings {
    linesBefore: number;
    linesAfter: number;
    wholeFile: boolean;
    prose: 'drop' | 'comment';
    lines: 'auto' | 'single' | 'multi';
    /** Tokens of open-file context; 0: none. */
    openFilesBudget: number;
    useGitignore: boolean;
    /** Tokens of cross-file context (definitions, recent edits, similar code) for agents without their own `completion_context_tokens`; 0: none. */
    contextTokens?: number;
}

/** An editor's document as a backend feature receives it: where it is, what language, its whole text (unsaved changes included). */
export interface DocumentQuery {
    /** The workspace folder whose `.qodeassist` configuration applies. */
    workspacePath?: string;
    project?: string;
    /** Absolute path of the file. */
    file: string;
    relativePath: string;
    language: string;
    text: string;
}

/** One ask for a completion at the cursor of an editor. */
export interface CompletionQuery extends DocumentQuery {
    /** Increases with every query of a frontend: a cancel names the one it means. */
    id: number;
    offset: number;
    /** Other open editors (absolute paths); the backend keeps those in the workspace that no ignore rule hides. */
    openFiles?: Array<{ path: string; content: string }>;
    settings: CompletionQuerySettings;
    /**
     * Answer only from what costs no model request: the cache, or a request under way whose answer the user is typing
     * (it is waited for). The frontend asks this at every keystroke, before any debounce; nothing fits → empty text, no source.
     */
    reuseOnly?: boolean;
    /** What the editor's definition providers answered for identifiers near the cursor, within a short time cap (absolute paths, 0-based lines). */
    definitions?: Array<{ path: string; line: number; symbol?: string }>;
    /** Regions edited lately in this window, the newest first, as their lines read now (absolute paths, 0-based lines). */
    recentEdits?: Array<{ path: string; startLine: number; text: string }>;
    /** The open editors' files (absolute paths): the backend reads them, through its cache, for similar code. */
    recentFiles?: string[];
}

/** What came back: text to show, or why there is none. Errors are data here, so the status bar can show them. */
export interface CompletionAnswer {
    text: string;
    source?: 'cache' | 'in-flight' | 'model';
    /** The agent that wrote it (for a cached answer: the agent whose answer for this file was cached). */
    agent?: string;
    /** The language the file was taken for: the editor's, or the file name's when the editor says plaintext. */
    language?: string;
    /** A newer query or the user cancelled this one. */
    cancelled?: boolean;
    /** Not asked at all, and why (an ignored file, no agent…). */
    skipped?: string;
    error?: ErrorInfo;
    /** Milliseconds the backend spent, model included. */
    elapsedMs: number;
    /** The cross-file context sent, snippet by snippet with its estimated tokens (the completion log lists it). */
    context?: Array<{ source: string; path: string; symbol?: string; tokens: number }>;
}

export const QodeAssistCompletionService = Symbol('QodeAssistCompletionService');

export interface QodeAssistCompletionService extends QodeAssistNextEditService {
    complete(query: CompletionQuery): Promise<CompletionAnswer>;
    /** Cancels the query with this id if it is still under way. */
    cancel(id: number): Promise<void>;
}

/** What the backend tells the window's completion: a provider's local server being started for it ([launch]). */
export interface QodeAssistCompletionClient {
    /** `starting Ollama…` while a completion of this window waits for a server QodeAssist starts, then how that start ended. */
    onLaunchStatus(status: LaunchStatus): void;
}

/** One ask for a next edit suggestion after an edit paused (qodeassist.nextEdit.*). */
export interface NextEditQuery extends DocumentQuery {
    /** Increases with every query of a frontend: a cancel names the one it means. */
    id: number;
    offset: number;
    /** The document before the recent edits: the edits go to the model as its diff to `text`. */
    previous: string;
    /** The editor's version of `text`: the answer is for it and stale for any other. */
    version: number;
    useGitignore: boolean;
    /**
     * Other files' recent edits, the most recent first (absolute paths): each file's changed lines with a few around them,
     * before its recent edits and now. The backend keeps only those inside the workspace that no ignore rule hides.
     */
    otherEdits?: NextEditOtherFile[];
}

/** One other file's recent edits as the browser saw them (0-based lines). */
export interface NextEditOtherFile {
    path: string;
    /** The changed lines with a few around them before the recent edits, and now; both start at `startLine`. */
    previous: string;
    text: string;
    startLine: number;
    /** The line of the file's latest change. */
    line: number;
    /** Milliseconds since the file was last edited. */
    ageMs: number;
}

/** The next edit, as replacements in the queried text; errors are data, as for completions. */
export interface NextEditAnswer {
    /** Offsets into the queried text, in document order; empty when there is no edit to suggest. */
    edits: Array<{ offset: number; length: number; text: string }>;
    version: number;
    /** The region the model could rewrite and its text then (offsets into the queried text). */
    regionStart?: number;
    regionEnd?: number;
    regionText?: string;
    agent?: string;
    cancelled?: boolean;
    /** Not asked at all, and why (an ignored file, a file too large…). */
    skipped?: string;
    error?: ErrorInfo;
    elapsedMs: number;
}

/** Next edit suggestions live beside completion (same connection, same trust, ignore and size rules). */
export interface QodeAssistNextEditService {
    nextEdit(query: NextEditQuery): Promise<NextEditAnswer>;
    cancelNextEdit(id: number): Promise<void>;
}
