/** One problem found while loading configuration: data for the configuration view and `qodeassist-bench validate`. */
export interface ConfigIssue {
    severity: 'error' | 'notice';
    /** The file as the user knows it (absolute path, or `bundled:…` for packaged files). */
    file: string;
    line?: number;
    /** Dotted path of the field, e.g. `body.messages`. */
    field?: string;
    /** What is wrong. */
    message: string;
    /** What to do about it. */
    fix?: string;
}

export function formatIssue(issue: ConfigIssue): string {
    const where = `${issue.file}${issue.line !== undefined ? `:${issue.line}` : ''}`;
    const field = issue.field ? ` [${issue.field}]` : '';
    return `${where}${field}: ${issue.severity}: ${issue.message}${issue.fix ? ` — ${issue.fix}` : ''}`;
}

/** Levenshtein distance, for "did you mean" on unknown keys and names. */
export function editDistance(a: string, b: string): number {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
        let previous = row[0];
        row[0] = i;
        for (let j = 1; j <= b.length; j++) {
            const current = row[j];
            row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
            previous = current;
        }
    }
    return row[b.length];
}

/** The closest candidate within a third of the word's length (at least 2 edits), if any. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
    let best: string | undefined;
    let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
    for (const candidate of candidates) {
        const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
        if (distance < bestDistance) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

/** The 1-based line of `key = …` inside the table `[table]` (dotted path), found by scanning the TOML text. */
export function findKeyLine(text: string, path: readonly (string | number)[]): number | undefined {
    const keys = path.filter((part): part is string => typeof part === 'string');
    if (keys.length === 0) {
        return undefined;
    }
    const lines = text.split(/\r?\n/);
    // Try the deepest table first: `[a.b]` + `c = …`, then `[a]` + `b = …` (inline tables), then top level.
    for (let split = keys.length - 1; split >= 0; split--) {
        const table = keys.slice(0, split).join('.');
        const key = keys[split];
        let current = '';
        for (let i = 0; i < lines.length; i++) {
            const header = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/.exec(lines[i]);
            if (header) {
                // `[pricing."gpt-4.1"]`: a quoted key is the same key as the path's.
                current = header[1].replace(/\s+/g, '').replace(/"/g, '');
                continue;
            }
            if (current === table && new RegExp(`^\\s*("?)${escapeRegExp(key)}\\1\\s*=`).test(lines[i])) {
                return i + 1;
            }
        }
    }
    return undefined;
}

function escapeRegExp(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
