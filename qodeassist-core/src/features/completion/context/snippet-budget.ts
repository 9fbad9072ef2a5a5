import { ContextSnippet, ContextSnippetRecord, ContextSourceKind, RepoFile } from './context-snippet';

/** Most important first: the order sources are filled in, and the reverse of the order files are rendered in. */
export const SOURCE_ORDER: readonly ContextSourceKind[] = ['definition', 'recent-edit', 'similar'];

/** The share of the budget each source may take before the others had theirs; what one leaves unused goes to the rest in order. */
export const DEFAULT_SHARES: Readonly<Record<ContextSourceKind, number>> = { 'definition': 0.5, 'recent-edit': 0.2, 'similar': 0.3 };

/** A snippet whose meaningful lines are at least this share already shown (the cursor window, earlier snippets) is dropped. */
const DUPLICATE_SHARE = 0.8;

export interface Fitted {
    chosen: ContextSnippet[];
    records: ContextSnippetRecord[];
    /** Left out because the window or an earlier snippet already shows them. */
    duplicates: number;
    /** Left out because the budget was spent. */
    overBudget: number;
}

/**
 * Chooses snippets within `budget` tokens: each source gets its share in order of importance, then
 * what is left goes to the remaining candidates in the same order. Within a source, candidates come
 * best first. A snippet is counted with its path line, as templates render it.
 */
export function fitSnippets(
    candidates: Readonly<Partial<Record<ContextSourceKind, readonly ContextSnippet[]>>>, around: { prefix: string; suffix: string },
    budget: number, estimate: (text: string) => number, shares: Readonly<Record<ContextSourceKind, number>> = DEFAULT_SHARES
): Fitted {
    const shown = new Set(meaningfulLines(`${around.prefix}\n${around.suffix}`));
    const chosen: ContextSnippet[] = [];
    const records: ContextSnippetRecord[] = [];
    const settled = new Set<ContextSnippet>();
    let duplicates = 0;
    let left = Math.max(0, budget);
    const consider = (snippet: ContextSnippet, allowance: number): number => {
        if (settled.has(snippet)) {
            return 0;
        }
        const lines = meaningfulLines(snippet.content);
        if (lines.length === 0 || lines.filter(line => shown.has(line)).length >= DUPLICATE_SHARE * lines.length) {
            settled.add(snippet);
            duplicates++;
            return 0;
        }
        const tokens = estimate(`${snippet.path}\n${snippet.content}\n`);
        if (tokens > allowance || tokens > left) {
            return 0;
        }
        settled.add(snippet);
        lines.forEach(line => shown.add(line));
        chosen.push(snippet);
        records.push({ source: snippet.source, path: snippet.path, ...(snippet.symbol ? { symbol: snippet.symbol } : {}), tokens });
        left -= tokens;
        return tokens;
    };
    for (const source of SOURCE_ORDER) {
        let allowance = Math.floor(budget * shares[source]);
        for (const snippet of candidates[source] ?? []) {
            allowance -= consider(snippet, allowance);
        }
    }
    for (const source of SOURCE_ORDER) {
        for (const snippet of candidates[source] ?? []) {
            consider(snippet, left);
        }
    }
    const total = SOURCE_ORDER.reduce((sum, source) => sum + (candidates[source]?.length ?? 0), 0);
    return { chosen, records, duplicates, overBudget: total - chosen.length - duplicates };
}

/**
 * The chosen snippets as files for a template: one entry per path, its snippets in line order
 * (separated by a blank line), the least important files first so that the most important end
 * nearest the code being completed.
 */
export function repoFilesOf(chosen: readonly ContextSnippet[]): RepoFile[] {
    const byPath = new Map<string, ContextSnippet[]>();
    for (const snippet of chosen) {
        byPath.set(snippet.path, [...byPath.get(snippet.path) ?? [], snippet]);
    }
    const rank = (source: ContextSourceKind) => SOURCE_ORDER.indexOf(source);
    const files = [...byPath.entries()].map(([path, snippets]) => ({
        path,
        source: snippets.map(snippet => snippet.source).sort((a, b) => rank(a) - rank(b))[0],
        content: [...snippets].sort((a, b) => a.startLine - b.startLine).map(snippet => snippet.content.replace(/\n+$/, '')).join('\n\n') + '\n'
    }));
    // Stable: within one kind, the order of choice (best first) is reversed too, so the best ends last.
    return files.map((file, order) => ({ file, order })).sort((a, b) => rank(b.file.source) - rank(a.file.source) || b.order - a.order).map(entry => entry.file);
}

/** Trimmed lines that say something: not blank, not a lone bracket or keyword. */
function meaningfulLines(text: string): string[] {
    return text.split('\n').map(line => line.trim()).filter(line => line.length > 3 && !/^[\s{}()[\];,]*$/.test(line));
}
