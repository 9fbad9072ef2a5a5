import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigurationService } from '../agents/configuration-service';
import { EnvFacts } from '../context/env-block';
import { ITerminal } from '../ports/process-ports';
import { QodeAssistRuntime } from '../runtime/qodeassist-runtime';
import { CancelledError, ErrorInfo, toErrorInfo } from '../wire/error-info';
import { configuredCompletionEngine } from '../features/completion/configured-completion';
import { CompletionSettings } from '../features/completion/completion-engine';
import { FimCase } from './fim-eval-dataset';
import { runCaseTests, FimTestOutcome } from './fim-eval-tests';
import { scoreCompletion } from './fim-scoring';

/** One line of `--out`: what the engine answered for a case and how it scored. */
export interface FimCaseResult {
    id: string;
    language: string;
    path: string;
    /** The case's line in the dataset file. */
    dataset_line: number;
    agent?: string;
    /** The whole text the engine would insert. */
    completion?: string;
    /** The part of it that was scored: as many lines as `expected`, trailing whitespace trimmed. */
    scored?: string;
    expected: string;
    exact_match: boolean;
    edit_similarity: number;
    /** Request to answer, through the engine (context, agent, stream, post-processing). */
    latency_ms?: number;
    tests?: { passed: boolean; exit_code: number | null; timed_out: boolean; output?: string };
    /** The request failed: the case scores 0 (and fails its tests). */
    error?: ErrorInfo;
    meta?: Record<string, unknown>;
}

export interface FimEvalRun {
    runtime: QodeAssistRuntime;
    configuration: ConfigurationService;
    /** Where the IDE's workspace would be: the engine's cache key and the environment facts. */
    workspace: string;
    cases: readonly FimCase[];
    /** An agent for every case; otherwise the completion roster picks one per file, as in the IDE. */
    agent?: string;
    settings: CompletionSettings;
    /** A case without an answer by then is an error, and the run goes on. */
    caseTimeoutMs?: number;
    /** Stops the run (Ctrl+C): the case under way is dropped, the ones done are kept. */
    signal: AbortSignal;
    terminal?: ITerminal;
    onResult(result: FimCaseResult, index: number): void;
}

/**
 * Every case through the IDE's completion engine, one after another (a local server answers
 * one at a time, and latency is only honest that way), each scored against its expected text
 * and, where it carries tests, run with its completion in place.
 */
export async function runFimEval(run: FimEvalRun): Promise<{ results: FimCaseResult[]; cancelled: boolean }> {
    const completion = configuredCompletionEngine(run.runtime, run.configuration, { settings: () => run.settings, agent: run.agent });
    const environment = await run.runtime.environment({ workspace: run.workspace });
    const results: FimCaseResult[] = [];
    try {
        for (const [index, testCase] of run.cases.entries()) {
            if (run.signal.aborted) {
                return { results, cancelled: true };
            }
            const result = await evaluateCase(run, testCase, environment, completion.engine);
            if (!result) {
                return { results, cancelled: true };
            }
            results.push(result);
            run.onResult(result, index);
        }
        return { results, cancelled: false };
    } finally {
        completion.dispose();
    }
}

type Engine = ReturnType<typeof configuredCompletionEngine>['engine'];

/** One case; undefined when the run was stopped meanwhile. */
async function evaluateCase(run: FimEvalRun, testCase: FimCase, environment: EnvFacts, engine: Engine): Promise<FimCaseResult | undefined> {
    const base = { id: testCase.id, language: testCase.language, path: testCase.path, dataset_line: testCase.line };
    const failed = (error: ErrorInfo): FimCaseResult => ({
        ...base, expected: testCase.expected, exact_match: false, edit_similarity: 0,
        tests: testCase.tests ? { passed: false, exit_code: null, timed_out: false } : undefined, error, meta: testCase.meta
    });
    // Every case is a request to the model: a case that repeats another's text must not be answered from the cache.
    engine.cache.clear();
    const controller = new AbortController();
    const stop = () => controller.abort();
    run.signal.addEventListener('abort', stop, { once: true });
    let timedOut = false;
    const timer = run.caseTimeoutMs === undefined ? undefined : setTimeout(() => { timedOut = true; controller.abort(); }, run.caseTimeoutMs);
    const started = performance.now();
    try {
        const outcome = await engine.complete({
            file: join(run.workspace, testCase.path), relativePath: testCase.path, language: testCase.language,
            text: testCase.prefix + testCase.suffix, offset: testCase.prefix.length, openFiles: testCase.repo_files, environment
        }, controller.signal);
        const latency = Math.round(performance.now() - started);
        clearTimeout(timer);
        const score = scoreCompletion(outcome.text, testCase.expected);
        const tests = await runCaseTests(testCase, outcome.text, { terminal: run.terminal, signal: run.signal });
        if (run.signal.aborted) {
            return undefined;
        }
        return {
            ...base, agent: outcome.agent, expected: testCase.expected, completion: outcome.text, scored: score.scored, exact_match: score.exactMatch,
            edit_similarity: score.editSimilarity, latency_ms: latency, tests: tests && testsRecord(tests), meta: testCase.meta
        };
    } catch (error) {
        if (run.signal.aborted) {
            return undefined;
        }
        if (timedOut && (error instanceof CancelledError || controller.signal.aborted)) {
            return failed({ category: 'Network', message: `No answer within ${run.caseTimeoutMs! / 1000} s (--timeout).` });
        }
        return failed(toErrorInfo(error));
    } finally {
        clearTimeout(timer);
        run.signal.removeEventListener('abort', stop);
    }
}

function testsRecord(outcome: FimTestOutcome): NonNullable<FimCaseResult['tests']> {
    return { passed: outcome.passed, exit_code: outcome.exitCode, timed_out: outcome.timedOut, output: outcome.output };
}
