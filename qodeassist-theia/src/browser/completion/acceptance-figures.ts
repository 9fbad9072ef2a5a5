import { addCounts, CompletionFigures, emptyFigures, mergeFigures, parseFigures, stillPresent } from './completion-figures';

/** Accepted text is looked at again this long after its (last) acceptance. */
export const STILL_PRESENT_AFTER_MS = 30_000;
/** Counts are written this long after they change (a burst of suggestions is one write). */
export const FLUSH_AFTER_MS = 1_000;

/** Where the figures are kept: this machine's browser storage in the IDE. */
export interface FiguresStorage {
    read(): Promise<unknown>;
    write(figures: CompletionFigures): Promise<void>;
}

/** The accepted text's place in its document, following later edits. */
export interface TrackedText {
    /** Its text now; undefined when it is gone. */
    read(): string | undefined;
    dispose(): void;
}

export interface FiguresClock {
    now(): Date;
    setTimeout(run: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
}

const REAL_CLOCK: FiguresClock = {
    now: () => new Date(),
    setTimeout: (run, ms) => setTimeout(run, ms),
    clearTimeout: handle => clearTimeout(handle as ReturnType<typeof setTimeout>)
};

interface PendingCheck {
    language: string;
    agent: string;
    text: string;
    tracked: TrackedText;
    timer: unknown;
}

/**
 * The completion's acceptance figures — shown, accepted, still present 30 s later, by language and
 * agent — counted in this window and added to what storage holds. Counts only: no code and no file
 * names are kept, and nothing here is ever sent anywhere. A reset drops the stored counts, this
 * window's unwritten ones and the checks still waiting.
 */
export class AcceptanceFigures {
    private delta: CompletionFigures;
    private readonly checks = new Map<object, PendingCheck>();
    private flushTimer: unknown;
    private writing: Promise<void> = Promise.resolve();
    private readonly listeners = new Set<() => void>();

    constructor(private readonly storage: FiguresStorage, private readonly clock: FiguresClock = REAL_CLOCK) {
        this.delta = emptyFigures(clock.now());
    }

    onChange(listener: () => void): { dispose(): void } {
        this.listeners.add(listener);
        return { dispose: () => this.listeners.delete(listener) };
    }

    /** A new suggestion was shown (the caller counts a suggestion once, not at each keystroke typed through it). */
    shown(language: string, agent: string): void {
        this.count(language, agent, { shown: 1 });
    }

    /**
     * The user accepted text of a suggestion; `suggestion` identifies it, so accepting it a word or a line at a time counts
     * once, and the check waits for the last part. `tracked` is where the whole accepted text is now.
     */
    accepted(suggestion: object, language: string, agent: string, text: string, tracked: TrackedText): void {
        const pending = this.checks.get(suggestion);
        if (pending) {
            pending.tracked.dispose();
            this.clock.clearTimeout(pending.timer);
        } else {
            this.count(language, agent, { accepted: 1 });
        }
        const check: PendingCheck = { language, agent, text, tracked, timer: undefined };
        check.timer = this.clock.setTimeout(() => this.settle(suggestion, check), STILL_PRESENT_AFTER_MS);
        this.checks.set(suggestion, check);
    }

    /** Checks still waiting for their 30 s. */
    get pendingChecks(): number {
        return this.checks.size;
    }

    /** The stored figures with this window's unwritten counts. */
    async figures(): Promise<CompletionFigures> {
        await this.writing;
        const stored = parseFigures(await this.storage.read()) ?? { ...this.delta, rows: [] };
        return mergeFigures(stored, this.delta);
    }

    async reset(): Promise<void> {
        for (const check of this.checks.values()) {
            this.clock.clearTimeout(check.timer);
            check.tracked.dispose();
        }
        this.checks.clear();
        this.clock.clearTimeout(this.flushTimer);
        this.flushTimer = undefined;
        this.delta = emptyFigures(this.clock.now());
        await this.writing;
        this.writing = this.storage.write(emptyFigures(this.clock.now())).catch(() => undefined);
        await this.writing;
        this.changed();
    }

    /** Writes what this window counted now (the window is closing, or a test wants it stored). */
    async flush(): Promise<void> {
        this.clock.clearTimeout(this.flushTimer);
        this.flushTimer = undefined;
        const delta = this.delta;
        if (delta.rows.length === 0) {
            return this.writing;
        }
        this.delta = emptyFigures(this.clock.now());
        // Read and write in turn: another window adds its own counts the same way.
        this.writing = this.writing.then(async () => {
            const stored = parseFigures(await this.storage.read()) ?? { ...delta, rows: [] };
            await this.storage.write(mergeFigures(stored, delta));
        }).catch(() => undefined);
        return this.writing;
    }

    dispose(): void {
        for (const check of this.checks.values()) {
            this.clock.clearTimeout(check.timer);
            check.tracked.dispose();
        }
        this.checks.clear();
        void this.flush();
        this.listeners.clear();
    }

    private settle(suggestion: object, check: PendingCheck): void {
        if (this.checks.get(suggestion) !== check) {
            return;
        }
        this.checks.delete(suggestion);
        const present = stillPresent(check.text, check.tracked.read());
        check.tracked.dispose();
        this.count(check.language, check.agent, { checked: 1, stillPresent: present ? 1 : 0 });
    }

    private count(language: string, agent: string, counts: Parameters<typeof addCounts>[3]): void {
        this.delta = addCounts(this.delta, language, agent, counts);
        if (this.flushTimer === undefined) {
            this.flushTimer = this.clock.setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
        }
        this.changed();
    }

    private changed(): void {
        for (const listener of this.listeners) {
            listener();
        }
    }
}
