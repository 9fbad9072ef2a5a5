import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ReplayScenario } from '../fake-provider/scenarios';
import { LoadWorkerPlan, LoadWorkerReport } from './load-worker';
import { median, percentile } from './statistics';

/** The provider side's fixed latency: time to first byte, and the pause between records. */
export const FIRST_BYTE_MS = 300;
export const RECORD_MS = 10;

/** Users arrive over this many milliseconds (evenly spread), as users of one deployment do, unless a row asks for a burst. */
export const RAMP_MS = 5_000;

export interface LoadRow {
    users: number;
    /** Over how long the users started: 0 is everyone in the same instant. */
    rampMs: number;
    completionP50: number;
    completionP95: number;
    chatFirstTokenP50: number;
    chatFirstTokenP95: number;
    rssPerUserMb: number;
    requestsPerUser: number;
    /** CPU (user + system) each backend spent on its user's session, median. */
    cpuPerUserMs: number;
    failures: string[];
    wallSeconds: number;
}

const sse = (records: readonly object[]) => records.map(record => `data: ${JSON.stringify(record)}\n\n`).join('') + 'data: [DONE]\n\n';
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] });

/**
 * The model of every user's chat: the first request of a turn calls read_file, the one after the
 * tool result answers. Completion requests (Ollama generate) get the protocol's recorded FIM answer.
 */
export function respond(body: string): ReplayScenario {
    const pacing = { firstByteDelayMs: FIRST_BYTE_MS, chunkDelayMs: RECORD_MS };
    if (body.includes('"role":"tool"')) {
        return { kind: 'replay', ...pacing, recording: sse([chunk({ role: 'assistant', content: '' }), ...'It computes areas and perimeters.'.split(' ').map(word => chunk({ content: `${word} ` })), chunk({}, 'stop')]) };
    }
    if (body.includes('"messages"')) {
        return {
            kind: 'replay', ...pacing, recording: sse([
                chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_read', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
                chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ path: 'src/shapes.ts' }) } }] }),
                chunk({}, 'tool_calls')
            ])
        };
    }
    return { kind: 'replay', ...pacing, fixture: 'ollama-generate/fim.ndjson' };
}

function spawnWorker(plan: LoadWorkerPlan): { child: ChildProcess; ready: Promise<void>; report: Promise<LoadWorkerReport> } {
    const child = fork(join(__dirname, 'load-worker.js'), [JSON.stringify(plan)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let signalReady!: () => void;
    const ready = new Promise<void>(resolve => { signalReady = resolve; });
    const report = new Promise<LoadWorkerReport>((resolve, reject) => {
        child.on('message', (message: { type: string; report?: LoadWorkerReport }) => {
            if (message.type === 'ready') {
                signalReady();
            } else if (message.type === 'report' && message.report) {
                resolve(message.report);
            }
        });
        child.once('exit', code => reject(new Error(`a user backend exited with ${code} before reporting`)));
    });
    report.catch(() => undefined);
    return { child, ready, report };
}

/** The plan of every user: a typing session, then chats. */
export const USER_PLAN: Omit<LoadWorkerPlan, 'fakeUrl' | 'startDelayMs'> = { completions: 20, chats: 2, thinkMs: 150, readMs: 1_000 };

/** One run: how many users, and over how long they start. */
export interface LoadRun {
    users: number;
    rampMs: number;
}

/** N user backends against one provider, each run's users starting over its ramp; the figures of every user together. */
export async function measureLoad(runs: readonly LoadRun[], plan: Omit<LoadWorkerPlan, 'fakeUrl' | 'startDelayMs'> = USER_PLAN): Promise<LoadRow[]> {
    const server = new FakeProviderServer({ maxLifetimeMs: 30 * 60_000 });
    await server.start();
    server.setDefault({ kind: 'dynamic', respond });
    const rows: LoadRow[] = [];
    try {
        for (const { users, rampMs } of runs) {
            server.reset();
            server.setDefault({ kind: 'dynamic', respond });
            const workers = Array.from({ length: users }, (_, index) => spawnWorker({ ...plan, fakeUrl: server.url, startDelayMs: Math.round(rampMs * index / users) }));
            try {
                // Start-up (loading the extension, reading the configuration) is not what a user waits on at each request.
                await Promise.all(workers.map(worker => worker.ready));
                const started = performance.now();
                workers.forEach(worker => worker.child.send('go'));
                const reports = await Promise.all(workers.map(worker => worker.report));
                const completion = reports.flatMap(report => report.completionMs);
                const firstToken = reports.flatMap(report => report.chatFirstTokenMs);
                rows.push({
                    users, rampMs, wallSeconds: (performance.now() - started) / 1000,
                    completionP50: percentile(completion, 0.5), completionP95: percentile(completion, 0.95),
                    chatFirstTokenP50: percentile(firstToken, 0.5), chatFirstTokenP95: percentile(firstToken, 0.95),
                    rssPerUserMb: median(reports.map(report => report.rssBytes)) / 1024 / 1024,
                    requestsPerUser: server.requests.length / users,
                    cpuPerUserMs: median(reports.map(report => report.cpuMs)),
                    failures: reports.flatMap(report => report.failures)
                });
            } finally {
                workers.forEach(worker => worker.child.kill());
            }
        }
    } finally {
        await server.stop();
    }
    return rows;
}

export function loadTable(rows: readonly LoadRow[]): string {
    const base = rows[0];
    const ratio = (value: number, of: number) => `${(value / of).toFixed(2)}×`;
    return [
        '| users | started over | completion p50 / p95 (ms) | ÷ 1 user (p95) | chat first token p50 / p95 (ms) | ÷ 1 user (p95) | RSS per user backend | CPU per user | requests per user | failures | wall time |',
        '|---|---|---|---|---|---|---|---|---|---|---|',
        ...rows.map(row => `| ${row.users} | ${row.rampMs ? `${Number((row.rampMs / 1000).toFixed(1))} s` : 'one instant'} | ${row.completionP50.toFixed(0)} / ${row.completionP95.toFixed(0)} | ${ratio(row.completionP95, base.completionP95)} | `
            + `${row.chatFirstTokenP50.toFixed(0)} / ${row.chatFirstTokenP95.toFixed(0)} | ${ratio(row.chatFirstTokenP95, base.chatFirstTokenP95)} | `
            + `${row.rssPerUserMb.toFixed(0)} MB | ${(row.cpuPerUserMs / 1000).toFixed(2)} s | ${row.requestsPerUser.toFixed(1)} | ${row.failures.length} | ${row.wallSeconds.toFixed(0)} s |`)
    ].join('\n');
}
