import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatIssue } from '../config/config-issue';
import { DEFAULT_COMPLETION_SETTINGS } from '../features/completion/completion-engine';
import { BenchHost } from './bench-features';
import { FimCaseResult, runFimEval } from './fim-eval';
import { FimDatasetError, loadFimDataset } from './fim-eval-dataset';
import { formatFimSummary, summarizeFimEval } from './fim-eval-report';

export interface FimEvalRequest {
    /** Absolute path of the JSONL dataset. */
    dataset: string;
    agent?: string;
    /** Only the first N valid cases. */
    limit?: number;
    /** Absolute path of the per-case JSONL results. */
    out?: string;
    caseTimeoutMs?: number;
    /** Tokens of the cases' repo_files given as open files (the IDE's qodeassist.completion.openFilesTokens). */
    openFilesTokens: number;
    /** Ctrl+C: the run stops, the summary of the cases done is printed. */
    onInterrupt(handler: () => void): () => void;
}

/**
 * `fim-eval`: a dataset through the IDE's completion engine, a line per case on stderr as it
 * goes (and in --out), the summary on stdout. Skipped dataset lines make the run fail at the
 * end, after every valid case ran: a broken dataset is never a quiet pass.
 */
export async function benchFimEval(host: BenchHost, request: FimEvalRequest): Promise<'finished' | 'failed' | 'cancelled'> {
    const dataset = loadFimDataset(request.dataset);
    dataset.issues.forEach(issue => host.err(formatIssue(issue)));
    if (dataset.cases.length === 0) {
        throw new FimDatasetError(`The dataset ${request.dataset} has no valid case${dataset.issues.length ? ` (${dataset.issues.length} problem(s) above)` : ''}. Write one case per line as README's "The bench CLI" describes.`);
    }
    const cases = request.limit === undefined ? dataset.cases : dataset.cases.slice(0, request.limit);
    if (request.out) {
        mkdirSync(dirname(request.out), { recursive: true });
        writeFileSync(request.out, '');
    }
    const controller = new AbortController();
    const stopWatching = request.onInterrupt(() => controller.abort());
    try {
        const { results, cancelled } = await runFimEval({
            runtime: host.runtime, configuration: host.configurations.forWorkspace(host.workspace), workspace: host.workspace, cases,
            agent: request.agent, settings: { ...DEFAULT_COMPLETION_SETTINGS, openFilesBudget: request.openFilesTokens },
            caseTimeoutMs: request.caseTimeoutMs, signal: controller.signal,
            onResult: (result, index) => {
                // Written as each case ends, so a stopped run keeps what it measured.
                if (request.out) {
                    appendFileSync(request.out, `${JSON.stringify(result)}\n`);
                }
                host.err(`[${index + 1}/${cases.length}] ${progressLine(result)}`);
            }
        });
        const summary = summarizeFimEval(results);
        if (host.json) {
            host.out(JSON.stringify({ dataset: request.dataset, cases: results.length, skippedLines: dataset.issues.length, cancelled, ...summary }));
        } else {
            host.out(`fim-eval: ${results.length} of ${cases.length} case(s) from ${request.dataset}${request.agent ? `, agent ${request.agent}` : ''}${cancelled ? ' (stopped)' : ''}`);
            formatFimSummary(summary).forEach(line => host.out(line));
            if (dataset.issues.length) {
                host.out(`${dataset.issues.length} dataset line(s) skipped: see the problems on stderr.`);
            }
        }
        if (cancelled) {
            return 'cancelled';
        }
        return dataset.issues.length > 0 || summary.all.errors === results.length ? 'failed' : 'finished';
    } finally {
        stopWatching();
    }
}

function progressLine(result: FimCaseResult): string {
    if (result.error) {
        return `${result.id}  error  ${result.error.category}: ${result.error.message}`;
    }
    const tests = result.tests ? `  tests ${result.tests.passed ? 'passed' : result.tests.timed_out ? 'timed out' : 'failed'}` : '';
    return `${result.id}  ${result.exact_match ? 'EM' : '  '}  ES ${result.edit_similarity.toFixed(3)}  ${result.latency_ms} ms  ${result.agent ?? ''}${tests}`;
}
