/**
 * The load benchmark's figures from its samples: one row per run (users, ramp) and mode (the
 * core-only composition, or real Theia backends each with a window), the two modes' ratio where
 * both ran the same users, and the Markdown tables BENCHMARKS.md shows.
 */
import { SessionSamples } from './load-session';
import { median, percentile } from './statistics';

export type LoadMode = 'core' | 'real';

/** One user's session and what its backend held and spent. */
export interface UserFigures extends SessionSamples {
    /** The backend's RSS at the session's end, no collection forced: comparable across the modes. */
    rssBytes: number;
    /** Core-only: RSS after a full GC at the end (the real backend cannot be told to collect). */
    rssAfterGcBytes?: number;
    /** Real: the backend (its process tree) idle with the window open, before the user starts. */
    rssIdleBytes?: number;
    /** CPU the backend spent on the session (user + system). */
    cpuMs: number;
}

export interface LoadRow {
    mode: LoadMode;
    users: number;
    /** Over how long the users started: 0 is everyone in the same instant. */
    rampMs: number;
    completionP50: number;
    completionP95: number;
    chatFirstTokenP50: number;
    chatFirstTokenP95: number;
    /** How many latencies each percentile is over. */
    completions: number;
    chatTurns: number;
    /** Median over backends: after a full GC (core-only), at the session's end (real). */
    rssPerUserMb: number;
    /** Median over backends at the session's end, no collection forced (both modes). */
    rssAtEndMb: number;
    /** Real: median over backends idle with the window open. */
    rssIdleMb?: number;
    requestsPerUser: number;
    /** CPU (user + system) each backend spent on its user's session, median. */
    cpuPerUserMs: number;
    failures: string[];
    wallSeconds: number;
}

const MB = 1024 * 1024;

/** The row of one run from every user's figures, the provider's request count and the run's wall time. */
export function summarize(mode: LoadMode, run: { users: number; rampMs: number }, users: readonly UserFigures[], requests: number, wallSeconds: number): LoadRow {
    if (users.length !== run.users) {
        throw new Error(`A run of ${run.users} users reported ${users.length}: a backend or its window was lost; its figures cannot stand for the run.`);
    }
    const completion = users.flatMap(user => user.completionMs);
    const firstToken = users.flatMap(user => user.chatFirstTokenMs);
    const idle = users.flatMap(user => user.rssIdleBytes === undefined ? [] : [user.rssIdleBytes]);
    return {
        mode, users: run.users, rampMs: run.rampMs, wallSeconds,
        completionP50: percentile(completion, 0.5), completionP95: percentile(completion, 0.95),
        chatFirstTokenP50: percentile(firstToken, 0.5), chatFirstTokenP95: percentile(firstToken, 0.95),
        completions: completion.length, chatTurns: firstToken.length,
        rssPerUserMb: median(users.map(user => user.rssAfterGcBytes ?? user.rssBytes)) / MB,
        rssAtEndMb: median(users.map(user => user.rssBytes)) / MB,
        rssIdleMb: idle.length ? median(idle) / MB : undefined,
        requestsPerUser: requests / run.users,
        cpuPerUserMs: median(users.map(user => user.cpuMs)),
        failures: users.flatMap(user => user.failures)
    };
}

/** Core-only ÷ real for the runs both modes made (same users, same ramp): above 1, the real backend is faster or smaller. */
export interface ModeRatio {
    users: number;
    rampMs: number;
    completionP50: number;
    completionP95: number;
    chatFirstTokenP50: number;
    chatFirstTokenP95: number;
    rssAtEnd: number;
}

export function modeRatios(rows: readonly LoadRow[]): ModeRatio[] {
    const real = rows.filter(row => row.mode === 'real');
    return rows.filter(row => row.mode === 'core').flatMap(core => {
        const other = real.find(row => row.users === core.users && row.rampMs === core.rampMs);
        return other ? [{
            users: core.users, rampMs: core.rampMs,
            completionP50: core.completionP50 / other.completionP50, completionP95: core.completionP95 / other.completionP95,
            chatFirstTokenP50: core.chatFirstTokenP50 / other.chatFirstTokenP50, chatFirstTokenP95: core.chatFirstTokenP95 / other.chatFirstTokenP95,
            rssAtEnd: core.rssAtEndMb / other.rssAtEndMb
        }] : [];
    });
}

const times = (value: number) => Number.isFinite(value) ? `${value.toFixed(2)}×` : '–';
const ms = (value: number) => Number.isFinite(value) ? value.toFixed(0) : '–';
const ramp = (rampMs: number) => rampMs ? `${Number((rampMs / 1000).toFixed(1))} s` : 'one instant';

/** A mode's rows, latencies also as p95 against the mode's one-user run (its first row when it has none). */
export function loadTable(rows: readonly LoadRow[]): string {
    if (rows.length === 0) {
        return '';
    }
    const base = rows.find(row => row.users === 1) ?? rows[0];
    const real = rows[0].mode === 'real';
    const memory = (row: LoadRow) => real ? `${row.rssIdleMb?.toFixed(0) ?? '–'} / ${row.rssAtEndMb.toFixed(0)} MB` : `${row.rssAtEndMb.toFixed(0)} / ${row.rssPerUserMb.toFixed(0)} MB`;
    return [
        `| ${real ? 'real backends (one user each)' : 'users'} | started over | completion p50 / p95 (ms) | ÷ 1 user (p95) | chat first token p50 / p95 (ms) | ÷ 1 user (p95) | samples (completions / turns) | `
        + `${real ? 'RSS per backend: idle with window / at end' : 'RSS per user backend: at end / after GC'} | CPU per ${real ? 'backend' : 'user'} | requests per user | failures | wall time |`,
        '|---|---|---|---|---|---|---|---|---|---|---|---|',
        ...rows.map(row => `| ${row.users} | ${ramp(row.rampMs)} | ${ms(row.completionP50)} / ${ms(row.completionP95)} | ${times(row.completionP95 / base.completionP95)} | `
            + `${ms(row.chatFirstTokenP50)} / ${ms(row.chatFirstTokenP95)} | ${times(row.chatFirstTokenP95 / base.chatFirstTokenP95)} | ${row.completions} / ${row.chatTurns} | `
            + `${memory(row)} | ${(row.cpuPerUserMs / 1000).toFixed(2)} s | ${row.requestsPerUser.toFixed(1)} | ${row.failures.length} | ${row.wallSeconds.toFixed(0)} s |`)
    ].join('\n');
}

/** Core-only ÷ real where both ran. */
export function ratioTable(ratios: readonly ModeRatio[]): string {
    return [
        '| users | started over | completion p50 / p95: core-only ÷ real | chat first token p50 / p95: core-only ÷ real | RSS at end: core-only ÷ real |',
        '|---|---|---|---|---|',
        ...ratios.map(ratio => `| ${ratio.users} | ${ramp(ratio.rampMs)} | ${times(ratio.completionP50)} / ${times(ratio.completionP95)} | `
            + `${times(ratio.chatFirstTokenP50)} / ${times(ratio.chatFirstTokenP95)} | ${times(ratio.rssAtEnd)} |`)
    ].join('\n');
}

/** What failed in each run, each distinct message once with its count: the table's failure column says how many, this says what. */
export function failureSummary(rows: readonly LoadRow[]): string[] {
    return rows.filter(row => row.failures.length > 0).map(row => {
        const counts = new Map<string, number>();
        for (const failure of row.failures) {
            // Request ids and timings differ from user to user; the message's kind is what repeats.
            const kind = failure.replace(/\d+/g, 'N').slice(0, 160);
            counts.set(kind, (counts.get(kind) ?? 0) + 1);
        }
        const what = [...counts].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} (×${count})`).join('; ');
        return `${row.mode === 'real' ? 'Real' : 'Core-only'}, ${row.users} users over ${ramp(row.rampMs)}: ${what}.`;
    });
}
