import { structuredPatch } from 'diff';
import { ConfigurationService } from '../agents/configuration-service';
import { editDistance } from '../config/config-issue';
import { configuredNextEditEngine } from '../features/next-edit/configured-next-edit';
import { applyEdits } from '../features/next-edit/smallest-edits';
import { QodeAssistRuntime } from '../runtime/qodeassist-runtime';
import { ErrorInfo, isCancelled, toErrorInfo } from '../wire/error-info';
import { percentile } from './fim-eval-report';
import { NesCase } from './nes-eval-dataset';

export interface NesCaseResult {
    id: string;
    language: string;
    agent?: string;
    /** The file after the suggested edits is the file after the real next edit (trailing whitespace aside). */
    exact_match: boolean;
    /** 1 − Levenshtein distance ÷ the longer length, between the changed lines suggested and those of the real next edit. */
    edit_similarity: number;
    /** The model suggested no edit at all. */
    no_edit?: boolean;
    latency_ms?: number;
    error?: ErrorInfo;
}

/** The changed lines of an edit, `-old`/`+new`, without positions: what the edit does, compared between prediction and truth. */
export function editSignature(before: string, after: string): string {
    return structuredPatch('a', 'a', before, after, '', '', { context: 0 }).hunks
        .flatMap(hunk => hunk.lines.filter(line => line.startsWith('+') || line.startsWith('-')).map(line => line.replace(/\s+$/, '')))
        .join('\n');
}

export function scoreNextEdit(text: string, predicted: string, expected: string): { exactMatch: boolean; editSimilarity: number } {
    const trim = (value: string) => value.replace(/[ \t]+(?=\r?\n)/g, '').replace(/\s+$/, '');
    const guess = editSignature(text, predicted);
    const truth = editSignature(text, expected);
    const longer = Math.max(guess.length, truth.length);
    return { exactMatch: trim(predicted) === trim(expected), editSimilarity: longer === 0 ? 1 : 1 - editDistance(guess, truth) / longer };
}

export interface NesEvalOptions {
    runtime: QodeAssistRuntime;
    configuration: ConfigurationService;
    workspace: string;
    cases: readonly NesCase[];
    agent?: string;
    caseTimeoutMs?: number;
    signal?: AbortSignal;
    onResult?(result: NesCaseResult, index: number): void;
}

/** Each case through the IDE's next-edit engine (the same prompt, parsing and smallest edits), scored against the real next edit. */
export async function runNesEval(options: NesEvalOptions): Promise<{ results: NesCaseResult[]; cancelled: boolean }> {
    const engine = configuredNextEditEngine(options.runtime, options.configuration, { agent: options.agent });
    const results: NesCaseResult[] = [];
    for (const [index, testCase] of options.cases.entries()) {
        if (options.signal?.aborted) {
            return { results, cancelled: true };
        }
        const controller = new AbortController();
        const stop = () => controller.abort();
        options.signal?.addEventListener('abort', stop, { once: true });
        const timer = options.caseTimeoutMs ? setTimeout(stop, options.caseTimeoutMs) : undefined;
        const started = Date.now();
        let result: NesCaseResult;
        try {
            const suggestion = await engine.suggest({
                file: `${options.workspace}/${testCase.path}`, relativePath: testCase.path, language: testCase.language,
                text: testCase.text, offset: testCase.cursor, previous: testCase.previous, version: 1
            }, controller.signal);
            const predicted = applyEdits(testCase.text, suggestion.edits);
            const score = scoreNextEdit(testCase.text, predicted, testCase.expected);
            result = {
                id: testCase.id, language: testCase.language, agent: suggestion.agent, exact_match: score.exactMatch, edit_similarity: score.editSimilarity,
                ...suggestion.edits.length === 0 ? { no_edit: true } : {}, latency_ms: Date.now() - started
            };
        } catch (error) {
            if (isCancelled(error) && options.signal?.aborted) {
                return { results, cancelled: true };
            }
            result = { id: testCase.id, language: testCase.language, exact_match: false, edit_similarity: 0, error: toErrorInfo(error) };
        } finally {
            clearTimeout(timer);
            options.signal?.removeEventListener('abort', stop);
        }
        results.push(result);
        options.onResult?.(result, index);
    }
    return { results, cancelled: false };
}

export interface NesSummary {
    cases: number;
    exactMatch: number;
    editSimilarity: number;
    noEdit: number;
    errors: number;
    p50Ms?: number;
    p95Ms?: number;
}

/** A failed request counts as a miss (EM 0, ES 0), never as absent. */
export function summarizeNesEval(results: readonly NesCaseResult[]): NesSummary {
    const mean = (values: number[]) => values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
    const latencies = results.flatMap(result => result.latency_ms === undefined ? [] : [result.latency_ms]);
    return {
        cases: results.length,
        exactMatch: mean(results.map(result => result.exact_match ? 1 : 0)),
        editSimilarity: mean(results.map(result => result.edit_similarity)),
        noEdit: results.filter(result => result.no_edit).length,
        errors: results.filter(result => result.error).length,
        p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95)
    };
}

export function formatNesSummary(summary: NesSummary): string[] {
    const ms = (value: number | undefined) => value === undefined ? '—' : `${value} ms`;
    return [
        `exact edit match ${(100 * summary.exactMatch).toFixed(1)}%  edit similarity ${summary.editSimilarity.toFixed(3)}  over ${summary.cases} case(s)`,
        `no edit suggested ${summary.noEdit}  errors ${summary.errors}  latency p50 ${ms(summary.p50Ms)}  p95 ${ms(summary.p95Ms)}`
    ];
}
