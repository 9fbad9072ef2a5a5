import { FimCaseResult } from './fim-eval';

/** The figures of a set of cases. A failed request counts as a miss (EM 0, ES 0, tests failed), never as absent. */
export interface FimSummaryRow {
    label: string;
    cases: number;
    exactMatch: number;
    editSimilarity: number;
    /** Cases that carry tests, and how many of them passed. */
    tested: number;
    passed: number;
    /** Over the cases that were answered; undefined when none was. */
    p50Ms?: number;
    p95Ms?: number;
    errors: number;
}

export interface FimSummary {
    all: FimSummaryRow;
    /** One row per language, by name. */
    byLanguage: FimSummaryRow[];
}

/** Nearest-rank percentile of the values (0 < p ≤ 100). */
export function percentile(values: readonly number[], p: number): number | undefined {
    if (values.length === 0) {
        return undefined;
    }
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

function row(label: string, results: readonly FimCaseResult[]): FimSummaryRow {
    const mean = (values: number[]) => values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
    const latencies = results.flatMap(result => result.latency_ms === undefined ? [] : [result.latency_ms]);
    const tested = results.filter(result => result.tests);
    return {
        label, cases: results.length,
        exactMatch: mean(results.map(result => result.exact_match ? 1 : 0)),
        editSimilarity: mean(results.map(result => result.edit_similarity)),
        tested: tested.length, passed: tested.filter(result => result.tests!.passed).length,
        p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95),
        errors: results.filter(result => result.error).length
    };
}

export function summarizeFimEval(results: readonly FimCaseResult[]): FimSummary {
    const languages = [...new Set(results.map(result => result.language))].sort();
    return {
        all: row('all', results),
        byLanguage: languages.length > 1 ? languages.map(language => row(language, results.filter(result => result.language === language))) : []
    };
}

/** pass@1 as a share with its counts, or "—" where no case carries tests. */
export function passAt1(row: FimSummaryRow): string {
    return row.tested ? `${(row.passed / row.tested).toFixed(3)} (${row.passed}/${row.tested})` : '—';
}

/** The summary as a fixed-width table: one row for all cases, then one per language when there are several. */
export function formatFimSummary(summary: FimSummary): string[] {
    const header = ['', 'cases', 'EM', 'ES mean', 'pass@1', 'p50 ms', 'p95 ms', 'errors'];
    const cells = [summary.all, ...summary.byLanguage].map(entry => [
        entry.label, String(entry.cases), entry.exactMatch.toFixed(3), entry.editSimilarity.toFixed(3), passAt1(entry),
        entry.p50Ms === undefined ? '—' : String(entry.p50Ms), entry.p95Ms === undefined ? '—' : String(entry.p95Ms), String(entry.errors)
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...cells.map(cell => cell[column].length)));
    const line = (values: string[]) => values.map((value, column) => column === 0 ? value.padEnd(widths[column]) : value.padStart(widths[column])).join('  ');
    return [line(header), ...cells.map(line)];
}
