import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigIssue, formatIssue } from '../config/config-issue';
import { BenchHost } from './bench-features';
import { FimDatasetError } from './fim-eval-dataset';

/** What every eval command is asked: a dataset, optionally an agent, the first N cases, a results file, Ctrl+C. */
export interface EvalRequest {
    /** Absolute path of the JSONL dataset. */
    dataset: string;
    agent?: string;
    /** Only the first N valid cases. */
    limit?: number;
    /** Absolute path of the per-case JSONL results. */
    out?: string;
    /** Ctrl+C: the run stops, the summary of the cases done is printed. */
    onInterrupt(handler: () => void): () => void;
}

/** What differs between fim-eval and nes-eval: how cases run, how a result and the summary read. */
export interface EvalCommand<Case, Result, Summary> {
    name: string;
    /** What to do when the dataset has no valid case. */
    emptyFix: string;
    run(cases: readonly Case[], signal: AbortSignal, onResult: (result: Result, index: number) => void): Promise<{ results: Result[]; cancelled: boolean }>;
    summarize(results: readonly Result[]): Summary;
    summaryLines(summary: Summary): string[];
    /** Whether every case of the run failed (then the run fails). */
    allFailed(summary: Summary, results: readonly Result[]): boolean;
    progressLine(result: Result): string;
    /** More fields of the --json line, before the summary's. */
    jsonFields?(results: readonly Result[]): Record<string, unknown>;
    /** Say on stdout how many dataset lines were skipped (they are on stderr in any case). */
    noteSkipped?: boolean;
}

/**
 * A dataset through an engine of the IDE: a line per case on stderr as it goes (and in --out, written
 * as each case ends, so a stopped run keeps what it measured), the summary on stdout. Skipped dataset
 * lines make the run fail at the end, after every valid case ran: a broken dataset is never a quiet pass.
 */
export async function runEvalCommand<Case, Result, Summary>(
    host: BenchHost, request: EvalRequest, dataset: { cases: Case[]; issues: ConfigIssue[] }, command: EvalCommand<Case, Result, Summary>
): Promise<'finished' | 'failed' | 'cancelled'> {
    dataset.issues.forEach(issue => host.err(formatIssue(issue)));
    if (dataset.cases.length === 0) {
        throw new FimDatasetError(`The dataset ${request.dataset} has no valid case${dataset.issues.length ? ` (${dataset.issues.length} problem(s) above)` : ''}. ${command.emptyFix}`);
    }
    const cases = request.limit === undefined ? dataset.cases : dataset.cases.slice(0, request.limit);
    if (request.out) {
        mkdirSync(dirname(request.out), { recursive: true });
        writeFileSync(request.out, '');
    }
    const controller = new AbortController();
    const stopWatching = request.onInterrupt(() => controller.abort());
    try {
        const { results, cancelled } = await command.run(cases, controller.signal, (result, index) => {
            if (request.out) {
                appendFileSync(request.out, `${JSON.stringify(result)}\n`);
            }
            host.err(`[${index + 1}/${cases.length}] ${command.progressLine(result)}`);
        });
        const summary = command.summarize(results);
        if (host.json) {
            host.out(JSON.stringify({ dataset: request.dataset, ...command.jsonFields?.(results), skippedLines: dataset.issues.length, cancelled, ...summary }));
        } else {
            host.out(`${command.name}: ${results.length} of ${cases.length} case(s) from ${request.dataset}${request.agent ? `, agent ${request.agent}` : ''}${cancelled ? ' (stopped)' : ''}`);
            command.summaryLines(summary).forEach(line => host.out(line));
            if (command.noteSkipped && dataset.issues.length) {
                host.out(`${dataset.issues.length} dataset line(s) skipped: see the problems on stderr.`);
            }
        }
        if (cancelled) {
            return 'cancelled';
        }
        return dataset.issues.length > 0 || command.allFailed(summary, results) ? 'failed' : 'finished';
    } finally {
        stopWatching();
    }
}
