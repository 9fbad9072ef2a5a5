import { median, percentile } from './statistics';

/** Where the typist stopped: on a fresh line it just opened (an eager context), or inside a line. */
export type StopKind = 'fresh line' | 'in line';

export interface KeyEvent { t: number; key: string }
export interface GhostEvent { t: number; text: string }

/** One app's run of the typist's script. */
export interface CompletionRun {
    app: string;
    /** The kind of each stop, in the script's order (the same for every app). */
    stops: StopKind[];
    /** Keystroke → correct ghost text per stop, in ms; undefined where none showed within the pause. */
    latencies: Array<number | undefined>;
    /** What had been typed on the line at each stop without a correct suggestion. */
    missedAt: string[];
    requests: number;
    /** Requests the app cancelled (closed before the answer was complete). */
    cancelled: number;
    /** Ghost texts shown that did not fit what had been typed by then. */
    stale: number;
    /** The timings the app said it used (QodeAssist's popover), when it says. */
    timings?: string;
}

/** A stop answered this fast showed what was already on screen (rendering only); a slower one waited for something. */
export const WAITED_MS = 50;

/** What the typist had typed at time `t`: the line and how much of it. */
export function typedAt(keys: readonly KeyEvent[], t: number): { line: number; column: number } {
    let line = 0;
    let column = 0;
    for (const key of keys) {
        if (key.t > t) {
            break;
        }
        if (key.key === 'Enter') {
            line++;
            column = 0;
        } else {
            column++;
        }
    }
    return { line, column };
}

/**
 * Reads a run back: for each stop (the index of its last key), the time to the first ghost text that is exactly the rest of
 * the line being typed; every ghost text that is not a start of that rest is stale.
 */
export function analyseRun(app: string, lines: readonly string[], keys: readonly KeyEvent[], ghosts: readonly GhostEvent[], stops: ReadonlyArray<{ key: number; kind: StopKind }>):
    Pick<CompletionRun, 'app' | 'stops' | 'latencies' | 'missedAt' | 'stale'> {
    const expectedAt = (t: number) => {
        const { line, column } = typedAt(keys, t);
        return lines[line]?.slice(column) ?? '';
    };
    const latencies: Array<number | undefined> = [];
    const missedAt: string[] = [];
    for (const stop of stops) {
        const key = keys[stop.key];
        const next = keys[stop.key + 1]?.t ?? Number.POSITIVE_INFINITY;
        const shown = ghosts.find(ghost => ghost.t > key.t && ghost.t < next && ghost.text !== '' && ghost.text === expectedAt(ghost.t));
        latencies.push(shown ? shown.t - key.t : undefined);
        if (!shown) {
            const { line, column } = typedAt(keys, key.t);
            missedAt.push(lines[line]?.slice(0, column) ?? '');
        }
    }
    // Monaco may render a long ghost text in more than one step: a start of the right text is not stale.
    const stale = ghosts.filter(ghost => ghost.text !== '' && !expectedAt(ghost.t).startsWith(ghost.text)).length;
    return { app, stops: stops.map(stop => stop.kind), latencies, missedAt, stale };
}

/**
 * The stops where some app's user waited: any app took WAITED_MS or more, or showed nothing. Every app is measured on the same
 * stops, so the comparison is not skewed by one app typing through where another had to ask.
 */
export function contestedStops(runs: readonly CompletionRun[]): number[] {
    const count = runs[0]?.stops.length ?? 0;
    return Array.from({ length: count }, (_, index) => index)
        .filter(index => runs.some(run => run.latencies[index] === undefined || run.latencies[index]! >= WAITED_MS));
}

/** A stop's wait; a stop without a suggestion counts as the whole pause (the user saw nothing for that long). */
export function waitAt(run: CompletionRun, index: number, pauseMs: number): number {
    return run.latencies[index] ?? pauseMs;
}

export interface RunFigures {
    correct: number;
    contestedMedian: number;
    contestedP95: number;
    freshLineMedian: number;
    inLineWaitedMedian: number;
}

export function runFigures(run: CompletionRun, contested: readonly number[], pauseMs: number): RunFigures {
    const waits = (indexes: readonly number[]) => indexes.map(index => waitAt(run, index, pauseMs));
    const all = run.stops.map((_, index) => index);
    return {
        correct: run.latencies.filter(latency => latency !== undefined).length,
        contestedMedian: median(waits(contested)),
        contestedP95: percentile(waits(contested), 0.95),
        freshLineMedian: median(waits(all.filter(index => run.stops[index] === 'fresh line'))),
        inLineWaitedMedian: median(waits(contested.filter(index => run.stops[index] === 'in line')))
    };
}

/** One app's figures over the baseline's (the first run) in the same run: the aims of issue #38. */
export interface BaselineRatios {
    medianRatio: number;
    p95Ratio: number;
    requestsRatio: number;
    shownRatio: number;
    /** Ours, then the baseline's (a ratio to 0 says nothing). */
    stale: [number, number];
    /** Requests ≤ 1.0× at a median keystroke → ghost text ≤ 0.5×, and no stale suggestion. */
    aimMet: boolean;
}

export const AIMS = { medianRatio: 0.5, requestsRatio: 1.0 } as const;

export function ratiosToBaseline(runs: readonly CompletionRun[], pauseMs: number): Map<CompletionRun, BaselineRatios> {
    const [baseline, ...ours] = runs;
    const contested = contestedStops(runs);
    const base = runFigures(baseline, contested, pauseMs);
    return new Map(ours.map(run => {
        const f = runFigures(run, contested, pauseMs);
        const ratios = {
            medianRatio: f.contestedMedian / base.contestedMedian,
            p95Ratio: f.contestedP95 / base.contestedP95,
            requestsRatio: run.requests / baseline.requests,
            shownRatio: f.correct / base.correct,
            stale: [run.stale, baseline.stale] as [number, number]
        };
        return [run, { ...ratios, aimMet: ratios.medianRatio <= AIMS.medianRatio && ratios.requestsRatio <= AIMS.requestsRatio && run.stale === 0 }];
    }));
}

/** The side-by-side table: the baseline first, then each QodeAssist variant with its ratios to the baseline. */
export function completionTable(runs: readonly CompletionRun[], pauseMs: number): string {
    const [baseline] = runs;
    const contested = contestedStops(runs);
    if (contested.length === 0) {
        throw new Error('No stop made any app wait: the script measures nothing. Check the stops in completion-benchmark.ts.');
    }
    const figures = new Map(runs.map(run => [run, runFigures(run, contested, pauseMs)]));
    const ms = (value: number) => Number.isFinite(value) ? `${value.toFixed(0)} ms` : '–';
    const row = (run: CompletionRun) => {
        const f = figures.get(run)!;
        return `| ${run.app} | ${run.timings ?? '–'} | ${f.correct} of ${run.stops.length} | ${ms(f.contestedMedian)}, p95 ${ms(f.contestedP95)} | `
            + `${ms(f.freshLineMedian)} | ${ms(f.inLineWaitedMedian)} | ${run.requests} | ${run.cancelled} | ${run.stale} |`;
    };
    return [
        `| app | asks after | stops with a correct suggestion | keystroke → ghost text at the ${contested.length} stops where a user waited: median, p95 | `
        + 'fresh-line stops: median | in-line stops where a user waited: median | requests sent | cancelled | stale suggestions shown |',
        '|---|---|---|---|---|---|---|---|---|',
        ...runs.map(row),
        '',
        ...runs.filter(run => run.missedAt.length).flatMap(run => [`${run.app} showed nothing at: ${run.missedAt.map(typed => `\`${typed}\``).join(', ')}.`, '']),
        ...[...ratiosToBaseline(runs, pauseMs)].map(([run, r]) =>
            `${run.app} ÷ ${baseline.app}: keystroke → ghost text median ${r.medianRatio.toFixed(2)}× (aim ≤ ${AIMS.medianRatio}×), `
            + `p95 ${r.p95Ratio.toFixed(2)}×, requests ${r.requestsRatio.toFixed(2)}× (aim ≤ ${AIMS.requestsRatio.toFixed(1)}×), `
            + `stops with a correct suggestion ${r.shownRatio.toFixed(2)}×, stale suggestions ${r.stale[0]} against ${r.stale[1]} (aim 0).`)
    ].join('\n');
}

/** One line per typing rhythm and QodeAssist variant: its ratios to the baseline of the same rhythm, and whether the aim holds. */
export function rhythmSummaryTable(byRhythm: ReadonlyArray<{ rhythm: string; runs: readonly CompletionRun[] }>, pauseMs: number): string {
    const rows = byRhythm.flatMap(({ rhythm, runs }) => {
        const contested = contestedStops(runs);
        const base = runFigures(runs[0], contested, pauseMs);
        return [...ratiosToBaseline(runs, pauseMs)].map(([run, r]) => {
            const f = runFigures(run, contested, pauseMs);
            return `| ${rhythm} | ${run.app} | ${f.contestedMedian.toFixed(0)} / ${base.contestedMedian.toFixed(0)} ms = **${r.medianRatio.toFixed(2)}×** | `
                + `${f.contestedP95.toFixed(0)} / ${base.contestedP95.toFixed(0)} ms = ${r.p95Ratio.toFixed(2)}× | `
                + `${run.requests} / ${runs[0].requests} = **${r.requestsRatio.toFixed(2)}×** | ${f.correct} / ${base.correct} = ${r.shownRatio.toFixed(2)}× | `
                + `${r.stale[0]} / ${r.stale[1]} | ${r.aimMet ? 'yes' : 'no'} |`;
        });
    });
    return [
        `| typing | QodeAssist variant | keystroke → ghost text, median (ours / Theia AI) | p95 | requests | stops with a correct suggestion | stale suggestions | aim met (requests ≤ ${AIMS.requestsRatio.toFixed(1)}×, median ≤ ${AIMS.medianRatio}×, 0 stale) |`,
        '|---|---|---|---|---|---|---|---|',
        ...rows
    ].join('\n');
}
