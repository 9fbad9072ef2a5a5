import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { formatIssue } from '../config/config-issue';
import { BenchHost } from './bench-features';
import { FimDatasetError } from './fim-eval-dataset';
import { NesCaseResult, formatNesSummary, runNesEval, summarizeNesEval } from './nes-eval';
import { casesFromVersions, loadNesDataset } from './nes-eval-dataset';

export interface NesEvalRequest {
    dataset: string;
    agent?: string;
    limit?: number;
    out?: string;
    caseTimeoutMs?: number;
    onInterrupt(handler: () => void): () => void;
}

/**
 * `nes-eval`: a dataset through the IDE's next-edit engine, a line per case on stderr, the summary
 * (exact edit match, edit similarity, latency) on stdout. Skipped dataset lines fail the run at the end.
 */
export async function benchNesEval(host: BenchHost, request: NesEvalRequest): Promise<'finished' | 'failed' | 'cancelled'> {
    const dataset = loadNesDataset(request.dataset);
    dataset.issues.forEach(issue => host.err(formatIssue(issue)));
    if (dataset.cases.length === 0) {
        throw new FimDatasetError(`The dataset ${request.dataset} has no valid case${dataset.issues.length ? ` (${dataset.issues.length} problem(s) above)` : ''}. Make one with qodeassist-bench nes-dataset.`);
    }
    const cases = request.limit === undefined ? dataset.cases : dataset.cases.slice(0, request.limit);
    if (request.out) {
        mkdirSync(dirname(request.out), { recursive: true });
        writeFileSync(request.out, '');
    }
    const controller = new AbortController();
    const stopWatching = request.onInterrupt(() => controller.abort());
    try {
        const { results, cancelled } = await runNesEval({
            runtime: host.runtime, configuration: host.configurations.forWorkspace(host.workspace), workspace: host.workspace, cases,
            agent: request.agent, caseTimeoutMs: request.caseTimeoutMs, signal: controller.signal,
            onResult: (result, index) => {
                if (request.out) {
                    appendFileSync(request.out, `${JSON.stringify(result)}\n`);
                }
                host.err(`[${index + 1}/${cases.length}] ${progressLine(result)}`);
            }
        });
        const summary = summarizeNesEval(results);
        if (host.json) {
            host.out(JSON.stringify({ dataset: request.dataset, skippedLines: dataset.issues.length, cancelled, ...summary }));
        } else {
            host.out(`nes-eval: ${results.length} of ${cases.length} case(s) from ${request.dataset}${request.agent ? `, agent ${request.agent}` : ''}${cancelled ? ' (stopped)' : ''}`);
            formatNesSummary(summary).forEach(line => host.out(line));
        }
        if (cancelled) {
            return 'cancelled';
        }
        return dataset.issues.length > 0 || summary.errors === results.length ? 'failed' : 'finished';
    } finally {
        stopWatching();
    }
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
