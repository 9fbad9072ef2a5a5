import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
    CompletionContextRetriever, ContextFileAccess, ContextSnippet, ContextSourceKind, cursorWindow, DEFAULT_CONTEXT, DEFAULT_DEFINITIONS, DEFAULT_RETRIEVER, DEFAULT_SIMILAR,
    filesWithinBudget,
    findDefinitions, fitSnippets, similarSnippets, SourceFileCache, sourceFamily, TokenEstimator, WorkspaceFiles, workspaceAccess
} from '@qodeassist/core';
import { casesOf, ContextCase, ContextProject, directoryNeighbours, installedProjects } from './completion-context-cases';
import { percentile } from './statistics';

export const CONTEXT_BUDGETS = [512, 1024, 2048] as const;
/** Open editors a user working on a file plausibly has: its nearest neighbours in the folder. */
export const OPEN_NEIGHBOURS = 4;
export const CASES_PER_PROJECT = 80;

/** What one way of building the context put in front of the model, as path and text per piece. */
type Context = ReadonlyArray<{ path: string; content: string }>;

/** The ways of building context the table compares, each a function of the case and the budget. */
export const CONTEXT_ROWS = ['open files, whole (today)', 'definitions (lexical)', 'similar snippets (neighbours)', 'all new sources (assembled)'] as const;
export type ContextRow = typeof CONTEXT_ROWS[number];

export interface CaseResult {
    project: string;
    /** Per row, per budget: whether the defining lines were in the context. */
    hits: Record<ContextRow, boolean[]>;
    /**
     * The first request at this position, at 1,024 tokens, as the engine runs it (its reading deadline included): with the engine's
     * cache as earlier cases left it, and with a fresh cache. Milliseconds, and whether the defining lines were in the context.
     */
    warmMs: number;
    warmHit: boolean;
    coldMs: number;
    coldHit: boolean;
}

/** The steady state at a position (the files read): every row without the engine's reading deadline. */
const UNHURRIED = { ...DEFAULT_RETRIEVER, definitions: { ...DEFAULT_DEFINITIONS, deadlineMs: Infinity }, recentFilesDeadlineMs: Infinity };

export interface ContextBenchResult {
    projects: Array<{ name: string; files: number; cases: number }>;
    missing: string[];
    results: CaseResult[];
}

/** A hit: some piece from the defining file holds one of its declaration lines. */
export function containsDefinition(context: Context, relativeDefinition: string, lines: readonly string[]): boolean {
    return context.some(piece => piece.path === relativeDefinition && piece.content.split('\n').some(line => lines.includes(line.trim())));
}

/**
 * One case, every row and budget: today's context (open neighbours sent whole while they fit), each
 * new source alone, and the assembled retrieval as the engine runs it (a new WorkspaceFiles per
 * request, as the IDE's service makes, and the engine's long-lived file cache).
 */
export async function measureCase(found: ContextCase, root: string, retriever: CompletionContextRetriever, estimator: TokenEstimator): Promise<CaseResult> {
    const estimate = (text: string) => estimator.estimateText(text);
    const access = () => workspaceAccess(new WorkspaceFiles([root]));
    const relativeDefinition = access().relativePath(found.definitionFile) ?? found.definitionFile;
    const around = cursorWindow(found.text, found.offset, DEFAULT_CONTEXT);
    const neighbours = directoryNeighbours(found.file, OPEN_NEIGHBOURS);
    const open = neighbours.map(path => ({ path: access().relativePath(path) ?? path, content: readFileSync(path, 'utf8') }));
    const hit = (context: Context) => containsDefinition(context, relativeDefinition, found.definitionLines);
    const request = (budget: number) => ({
        file: found.file, language: sourceFamily(found.file) === 'py' ? 'python' : 'typescript', text: found.text, offset: found.offset, around, budget,
        access: access(), recentFiles: neighbours
    });

    // Timed first: the engine's cache is as earlier cases (other files of the project) left it.
    let started = performance.now();
    const first = await retriever.retrieve(request(1024));
    const warmMs = performance.now() - started;
    const cold = new CompletionContextRetriever(estimate, new SourceFileCache());
    started = performance.now();
    const fresh = await cold.retrieve(request(1024));
    const coldMs = performance.now() - started;

    const steady = new CompletionContextRetriever(estimate, retriever.cache, UNHURRIED);
    const definitions = await findDefinitions({ file: found.file, text: found.text, offset: found.offset, family: sourceFamily(found.file), access: access() },
        retriever.cache, UNHURRIED.definitions);
    const similar = similarSnippets(around.prefix, open.map(file => ({ path: file.path, text: file.content })), DEFAULT_SIMILAR);
    const alone = (source: ContextSourceKind, snippets: ContextSnippet[], budget: number) =>
        fitSnippets({ [source]: snippets }, around, budget, estimate, { 'definition': 0, 'recent-edit': 0, 'similar': 0, [source]: 1 }).chosen;

    const hits = Object.fromEntries(CONTEXT_ROWS.map(row => [row, [] as boolean[]])) as unknown as Record<ContextRow, boolean[]>;
    for (const budget of CONTEXT_BUDGETS) {
        hits['open files, whole (today)'].push(hit(filesWithinBudget(open, budget, estimator)));
        hits['definitions (lexical)'].push(hit(alone('definition', definitions, budget)));
        hits['similar snippets (neighbours)'].push(hit(alone('similar', similar, budget)));
        hits['all new sources (assembled)'].push(hit((await steady.retrieve(request(budget))).repoFiles));
    }
    return { project: found.project, hits, warmMs, warmHit: hit(first.repoFiles), coldMs, coldHit: hit(fresh.repoFiles) };
}

/** Every installed project's cases, measured one after another (one engine cache per project, as one IDE window). */
export async function measureCompletionContext(perProject = CASES_PER_PROJECT, projects?: ContextProject[]): Promise<ContextBenchResult> {
    const installed = projects ? { projects, missing: [] } : installedProjects();
    const estimator = new TokenEstimator();
    const results: CaseResult[] = [];
    const summary: ContextBenchResult['projects'] = [];
    for (const project of installed.projects) {
        const cases = casesOf(project, perProject);
        const retriever = new CompletionContextRetriever(text => estimator.estimateText(text));
        for (const found of cases) {
            results.push(await measureCase(found, project.root, retriever, estimator));
        }
        summary.push({ name: project.name, files: project.files.length, cases: cases.length });
    }
    return { projects: summary, missing: installed.missing, results };
}

/** Share of cases with a hit, for one row at one budget index. */
export function recall(results: readonly CaseResult[], row: ContextRow, budgetIndex: number): number {
    return share(results, result => result.hits[row][budgetIndex]);
}

function share(results: readonly CaseResult[], counts: (result: CaseResult) => boolean): number {
    return results.length === 0 ? 0 : results.filter(counts).length / results.length;
}

export function completionContextTable(bench: ContextBenchResult): string {
    const fmt = (value: number) => value.toFixed(2);
    const header = `| context | ${CONTEXT_BUDGETS.map(budget => `recall @ ${budget.toLocaleString('en')} tok`).join(' | ')} |`;
    const rows = CONTEXT_ROWS.map(row => `| ${row} | ${CONTEXT_BUDGETS.map((_, index) => fmt(recall(bench.results, row, index))).join(' | ')} |`);
    const perProject = bench.projects.map(project => {
        const own = bench.results.filter(result => result.project === project.name);
        const today = recall(own, 'open files, whole (today)', 1);
        const assembled = recall(own, 'all new sources (assembled)', 1);
        return `| ${project.name} | ${project.files} | ${project.cases} | ${fmt(today)} | ${fmt(assembled)} | ${fmt(percentile(own.map(r => r.warmMs), 0.5))} / ${fmt(percentile(own.map(r => r.warmMs), 0.95))} |`;
    });
    const warm = bench.results.map(result => result.warmMs);
    const cold = bench.results.map(result => result.coldMs);
    return [
        `${bench.results.length} cases in ${bench.projects.length} projects${bench.missing.length ? ` (not installed here: ${bench.missing.join(', ')})` : ''}.`,
        '',
        header,
        `|---|${CONTEXT_BUDGETS.map(() => '---:').join('|')}|`,
        ...rows,
        '',
        '| first request at a position (all new sources, 1,024 tok, 10 ms reading deadline) | p50 | p95 | recall |',
        '|---|---:|---:|---:|',
        `| engine cache as earlier cases left it | ${fmt(percentile(warm, 0.5))} ms | ${fmt(percentile(warm, 0.95))} ms | ${fmt(share(bench.results, result => result.warmHit))} |`,
        `| fresh cache (every file read from disk) | ${fmt(percentile(cold, 0.5))} ms | ${fmt(percentile(cold, 0.95))} ms | ${fmt(share(bench.results, result => result.coldHit))} |`,
        '',
        '| project | source files | cases | recall @ 1,024: today | recall @ 1,024: new | warm p50 / p95 |',
        '|---|---:|---:|---:|---:|---:|',
        ...perProject
    ].join('\n');
}

/** The access a case's workspace grants (exported for the spec's fixture). */
export function accessFor(root: string): ContextFileAccess {
    return workspaceAccess(new WorkspaceFiles([root]));
}
