/** How suggestions fared for one language and agent. */
export interface FigureRow {
    language: string;
    /** The agent that wrote the suggestions ('unknown' when the answer did not say). */
    agent: string;
    /** Suggestions shown (a suggestion typed through or re-shown from the cache counts once). */
    shown: number;
    /** Suggestions accepted, wholly or in part (Tab, the next word, the next line). */
    accepted: number;
    /** Accepted suggestions looked at again 30 s later (the window may have closed before, for others). */
    checked: number;
    /** Of those, the ones whose accepted text was still in the document as accepted. */
    stillPresent: number;
}

/** The figures kept on this machine: counts only, no code, no file names. */
export interface CompletionFigures {
    version: 1;
    /** When counting began (ISO time): the first suggestion, or the last reset. */
    since: string;
    rows: FigureRow[];
}

export type FigureCounts = Pick<FigureRow, 'shown' | 'accepted' | 'checked' | 'stillPresent'>;
const COUNTS: ReadonlyArray<keyof FigureCounts> = ['shown', 'accepted', 'checked', 'stillPresent'];

export function emptyFigures(since: Date): CompletionFigures {
    return { version: 1, since: since.toISOString(), rows: [] };
}

/** Adds counts to a language and agent's row (made when missing); returns new figures, the input is left as it was. */
export function addCounts(figures: CompletionFigures, language: string, agent: string, counts: Partial<FigureCounts>): CompletionFigures {
    const rows = figures.rows.map(row => ({ ...row }));
    let row = rows.find(candidate => candidate.language === language && candidate.agent === agent);
    if (!row) {
        row = { language, agent, shown: 0, accepted: 0, checked: 0, stillPresent: 0 };
        rows.push(row);
    }
    for (const key of COUNTS) {
        row[key] += counts[key] ?? 0;
    }
    return { ...figures, rows };
}

/** Every row of `delta` added to `base`; `base.since` stays (counting began then). */
export function mergeFigures(base: CompletionFigures, delta: CompletionFigures): CompletionFigures {
    return delta.rows.reduce((sum, row) => addCounts(sum, row.language, row.agent, row), base);
}

/** The sum over all rows. */
export function totalOf(figures: CompletionFigures): FigureCounts {
    const total: FigureCounts = { shown: 0, accepted: 0, checked: 0, stillPresent: 0 };
    for (const row of figures.rows) {
        for (const key of COUNTS) {
            total[key] += row[key];
        }
    }
    return total;
}

/**
 * Stored figures read back; undefined when they are not figures of this version (a damaged or foreign
 * entry is dropped rather than trusted: these are counts, nothing is lost that matters).
 */
export function parseFigures(value: unknown): CompletionFigures | undefined {
    if (!value || typeof value !== 'object') {
        return undefined;
    }
    const candidate = value as Partial<CompletionFigures>;
    if (candidate.version !== 1 || typeof candidate.since !== 'string' || Number.isNaN(Date.parse(candidate.since)) || !Array.isArray(candidate.rows)) {
        return undefined;
    }
    const rows: FigureRow[] = [];
    for (const row of candidate.rows as unknown[]) {
        const r = row as Partial<FigureRow> | null;
        if (!r || typeof r.language !== 'string' || typeof r.agent !== 'string'
            || !COUNTS.every(key => Number.isInteger(r[key]) && (r[key] as number) >= 0)) {
            return undefined;
        }
        rows.push({ language: r.language, agent: r.agent, shown: r.shown!, accepted: r.accepted!, checked: r.checked!, stillPresent: r.stillPresent! });
    }
    return { version: 1, since: candidate.since, rows };
}

/**
 * Whether accepted text is still there: the text of its tracked range, whitespace aside (a formatter may
 * re-indent it). Edited, cut or deleted text is not; the range's text is undefined when it is gone.
 */
export function stillPresent(accepted: string, now: string | undefined): boolean {
    if (now === undefined) {
        return false;
    }
    const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
    return squash(now) === squash(accepted);
}
