import { DEFAULT_COMPLETION_SETTINGS } from '../features/completion/completion-engine';
import { BenchHost } from './bench-features';
import { EvalRequest, runEvalCommand } from './eval-command';
import { FimCaseResult, runFimEval } from './fim-eval';
import { loadFimDataset } from './fim-eval-dataset';
import { formatFimSummary, summarizeFimEval } from './fim-eval-report';

export interface FimEvalRequest extends EvalRequest {
    caseTimeoutMs?: number;
    /** Tokens of the cases' repo_files given as open files (the IDE's qodeassist.completion.openFilesTokens). */
    openFilesTokens: number;
}

/** `fim-eval`: a dataset through the IDE's completion engine (runEvalCommand says how it reports). */
export function benchFimEval(host: BenchHost, request: FimEvalRequest): Promise<'finished' | 'failed' | 'cancelled'> {
    return runEvalCommand(host, request, loadFimDataset(request.dataset), {
        name: 'fim-eval',
        emptyFix: 'Write one case per line as README\'s "The bench CLI" describes.',
        run: (cases, signal, onResult) => runFimEval({
            runtime: host.runtime, configuration: host.configurations.forWorkspace(host.workspace), workspace: host.workspace, cases,
            agent: request.agent, settings: { ...DEFAULT_COMPLETION_SETTINGS, openFilesBudget: request.openFilesTokens },
            caseTimeoutMs: request.caseTimeoutMs, signal, onResult
        }),
        summarize: results => summarizeFimEval(results),
        summaryLines: formatFimSummary,
        allFailed: (summary, results) => summary.all.errors === results.length,
        progressLine,
        jsonFields: results => ({ cases: results.length }),
        noteSkipped: true
    });
}

function progressLine(result: FimCaseResult): string {
    if (result.error) {
        return `${result.id}  error  ${result.error.category}: ${result.error.message}`;
    }
    const tests = result.tests ? `  tests ${result.tests.passed ? 'passed' : result.tests.timed_out ? 'timed out' : 'failed'}` : '';
    return `${result.id}  ${result.exact_match ? 'EM' : '  '}  ES ${result.edit_similarity.toFixed(3)}  ${result.latency_ms} ms  ${result.agent ?? ''}${tests}`;
}
