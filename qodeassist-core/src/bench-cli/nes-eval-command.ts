import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { BenchHost } from './bench-features';
import { EvalRequest, runEvalCommand } from './eval-command';
import { FimDatasetError } from './fim-eval-dataset';
import { NesCaseResult, formatNesSummary, runNesEval, summarizeNesEval } from './nes-eval';
import { casesFromVersions, loadNesDataset } from './nes-eval-dataset';

export interface NesEvalRequest extends EvalRequest {
    caseTimeoutMs?: number;
}

/** `nes-eval`: a dataset through the IDE's next-edit engine; the summary is exact edit match, edit similarity, latency. */
export function benchNesEval(host: BenchHost, request: NesEvalRequest): Promise<'finished' | 'failed' | 'cancelled'> {
    return runEvalCommand(host, request, loadNesDataset(request.dataset), {
        name: 'nes-eval',
        emptyFix: 'Make one with qodeassist-bench nes-dataset.',
        run: (cases, signal, onResult) => runNesEval({
            runtime: host.runtime, configuration: host.configurations.forWorkspace(host.workspace), workspace: host.workspace, cases,
            agent: request.agent, caseTimeoutMs: request.caseTimeoutMs, signal, onResult
        }),
        summarize: results => summarizeNesEval(results),
        summaryLines: formatNesSummary,
        allFailed: (summary, results) => summary.errors === results.length,
        progressLine
    });
}

/**
 * `nes-dataset`: cases cut from pairs of versions of the same file (`--file OLD --file NEW`, repeated),
 * e.g. one file of two published versions of a package; the case's path is NEW's, relative to the workspace.
 */
export function benchNesDataset(host: BenchHost, files: readonly string[], out: string): number {
    if (files.length === 0 || files.length % 2 !== 0) {
        throw new FimDatasetError('nes-dataset takes pairs of files: --file OLD --file NEW, repeated for more files.');
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, '');
    let count = 0;
    for (let index = 0; index < files.length; index += 2) {
        const path = relative(host.workspace, files[index + 1]).split(sep).join('/');
        const cases = casesFromVersions(path, readFileSync(files[index], 'utf8'), readFileSync(files[index + 1], 'utf8'), path);
        for (const testCase of cases) {
            // `line` is where a case sits in a dataset file being read: not part of a case written.
            appendFileSync(out, `${JSON.stringify({ ...testCase, line: undefined, meta: { ...testCase.meta, from: files[index], to: files[index + 1] } })}\n`);
        }
        host.err(`${path}: ${cases.length} case(s)`);
        count += cases.length;
    }
    host.out(`nes-dataset: ${count} case(s) written to ${out}`);
    return count;
}

function progressLine(result: NesCaseResult): string {
    if (result.error) {
        return `${result.id}  error  ${result.error.category}: ${result.error.message}`;
    }
    return `${result.id}  ${result.exact_match ? 'EM' : '  '}  ES ${result.edit_similarity.toFixed(3)}${result.no_edit ? '  (no edit)' : ''}  ${result.latency_ms} ms  ${result.agent ?? ''}`;
}
