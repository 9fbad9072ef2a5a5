import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ReplayScenario } from '../fake-provider/scenarios';
import { LoadRow, summarize } from './load-analysis';
import { SessionPlan } from './load-session';
import { LoadWorkerPlan, LoadWorkerReport } from './load-worker';

export { loadTable } from './load-analysis';
export type { LoadRow } from './load-analysis';

/** The provider side's fixed latency: time to first byte, and the pause between records. */
export const FIRST_BYTE_MS = 300;
export const RECORD_MS = 10;

/** Users arrive over this many milliseconds (evenly spread), as users of one deployment do, unless a row asks for a burst. */
export const RAMP_MS = 5_000;

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
    let failReady!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
        signalReady = resolve;
        failReady = reject;
    });
    const report = new Promise<LoadWorkerReport>((resolve, reject) => {
        child.on('message', (message: { type: string; report?: LoadWorkerReport }) => {
            if (message.type === 'ready') {
                signalReady();
            } else if (message.type === 'report' && message.report) {
                resolve(message.report);
            }
        });
        // A backend that dies (e.g. its runtime fails to load) fails the run at once instead of leaving it waiting for its "ready".
        child.once('exit', code => {
            const error = new Error(`a user backend exited with ${code} before reporting`);
            failReady(error);
            reject(error);
        });
    });
    ready.catch(() => undefined);
    report.catch(() => undefined);
    return { child, ready, report };
}

/**
 * The plan of every user, in both modes: a typing session, then chats. Twenty turns each: with two,
 * half of a user's turns were its backend's first (code not yet optimized) and the one-user baseline
 * swung from run to run (issue #34).
 */
export const USER_PLAN: Omit<SessionPlan, 'startDelayMs'> = { completions: 20, chats: 20, thinkMs: 150, readMs: 1_000 };

/** One run: how many users, and over how long they start. */
export interface LoadRun {
    users: number;
    rampMs: number;
}

/** N user backends against one provider, each run's users starting over its ramp; the figures of every user together. */
export async function measureLoad(runs: readonly LoadRun[], plan: Omit<SessionPlan, 'startDelayMs'> = USER_PLAN): Promise<LoadRow[]> {
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
                // Both modes compare the RSS at the session's end; the core-only backend's after a full GC is kept beside it.
                const figures = reports.map(report => ({ ...report, rssBytes: report.rssBeforeGcBytes, rssAfterGcBytes: report.rssBytes }));
                rows.push(summarize('core', { users, rampMs }, figures, server.requests.length, (performance.now() - started) / 1000));
            } finally {
                workers.forEach(worker => worker.child.kill());
            }
        }
    } finally {
        await server.stop();
    }
    return rows;
}
