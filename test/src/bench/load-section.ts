/**
 * `npm run bench load`: the core-only composition at up to 50 users and real Theia backends at 1, 5
 * and 10 (what two cores hold), the same user plan in both, their ratio where both ran, and how far
 * the headless window stands from Chromium's; the text of BENCHMARKS.md's section.
 */
import { cpus, loadavg } from 'node:os';
import { failureSummary, LoadRow, loadTable, modeRatios, ratioTable } from './load-analysis';
import { FIRST_BYTE_MS, LoadRun, measureLoad, RAMP_MS, RECORD_MS, USER_PLAN } from './load-benchmark';
import { measureRealLoad } from './load-real-benchmark';
import { measureWindowCheck, WindowCheck } from './load-window-check';

/** Users of one deployment arrive over a ramp; the last core-only run has all of them start in one instant, the worst case. */
export const CORE_RUNS: readonly LoadRun[] = [{ users: 1, rampMs: 0 }, { users: 5, rampMs: RAMP_MS }, { users: 10, rampMs: RAMP_MS }, { users: 50, rampMs: RAMP_MS }, { users: 50, rampMs: 0 }];
/** A real backend holds ~220 MB and takes seconds of CPU to start: ten are what two cores hold beside the bench and the provider. */
export const REAL_RUNS: readonly LoadRun[] = [{ users: 1, rampMs: 0 }, { users: 5, rampMs: RAMP_MS }, { users: 10, rampMs: RAMP_MS }];

export interface LoadResults {
    core: LoadRow[];
    real: LoadRow[];
    check: WindowCheck;
    /** The machine's 1-minute load average before each part and at the end: other work shared the cores. */
    load: { real: number; core: number; end: number };
    wallSeconds: number;
}

export async function measureLoadSection(log: (line: string) => void): Promise<LoadResults> {
    const started = performance.now();
    // The real backends first: their bundle is built apart, while the core-only workers load qodeassist-core/lib as it stands (other work may be recompiling it).
    const load = { real: loadavg()[0], core: 0, end: 0 };
    log('Real Theia backends of the browser-app, each with a headless window…');
    const real = await measureRealLoad(REAL_RUNS, USER_PLAN, log);
    log(loadTable(real));
    failureSummary(real).forEach(line => log(line));
    load.core = loadavg()[0];
    log('Core-only composition: N user backends (bare Node processes) against one provider…');
    const core = await measureLoad(CORE_RUNS);
    log(loadTable(core));
    failureSummary(core).forEach(line => log(line));
    log('One backend with the headless window, one with Chromium\'s page…');
    const check = await measureWindowCheck();
    load.end = loadavg()[0];
    return { core, real, check, load, wallSeconds: (performance.now() - started) / 1000 };
}

const signed = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(0)}`;

export function loadSectionBody({ core, real, check, load, wallSeconds }: LoadResults): string {
    const plan = USER_PLAN;
    return [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; the whole run took ${(wallSeconds / 60).toFixed(1)} min.`,
        `The cores were shared with other work: the 1-minute load average was ${load.real.toFixed(1)} before the real-backend runs, ${load.core.toFixed(1)} before the`,
        `core-only ones and ${load.end.toFixed(1)} at the end, so compare the ratios (both sides measured in the same run), not the milliseconds across runs.`,
        '',
        `Every user, in both modes, types (${plan.completions} completion stops, ${plan.thinkMs} ms apart), then chats (${plan.chats} turns, each with a read_file tool`,
        `round, ${(plan.readMs ?? 0) / 1000} s apart), against one fake provider on 127.0.0.1 that answers after ${FIRST_BYTE_MS} ms and then sends a record every ${RECORD_MS} ms.`,
        `The one-user baseline is thus ${plan.chats} turns and ${plan.completions} stops, not two turns: a backend's first turn (code not yet optimized) no longer`,
        'makes half of it. Latencies are from the request to the outcome (completion) or to the first token of the answer the user reads',
        '(chat, after its tool round); ÷ 1 user is p95 against the same mode\'s one user. Users start evenly over *started over*.',
        '',
        '**Real Theia backends.** Each user has a backend of its own: `node browser-app/lib/backend/main.js` of the built app, its own home',
        '(the providers and agents are the user\'s own, `~/.qodeassist`) and workspace, started one after another and left idle 5 s',
        'with its window open before it is measured. The window is a headless Node client that connects as Theia\'s frontend does (the',
        'page request that sets the connection-token cookie, socket.io on `/services`, the initial-connect handshake, one multiplexed',
        'channel per service, JSON-RPC over msgpack by @theia/core\'s own classes) and opens every QodeAssist service a window opens',
        '(chat, completion, configuration, log, MCP, refactor, Theia tools, language models): the backend builds the window\'s runtime,',
        'log, MCP hub and key watcher as for a browser. It types through the completion service as the editor\'s inline provider does',
        '(default settings, cross-file context on) and chats through the chat service, the events batched by the backend as for a',
        'browser. RSS is the backend\'s process tree (VmRSS from /proc, the backend and what it forked) idle with the window, then at',
        'the session\'s end; CPU is the tree\'s during the session.',
        '',
        loadTable(real),
        '',
        `How far the headless window stands from a browser: one backend after one chat turn through the headless window held ${check.headlessMb.toFixed(0)} MB;`,
        `one with Chromium's page on it (the shell loaded, shapes.ts open in an editor, the chat view open) after one chat turn held ${check.chromiumMb.toFixed(0)} MB`,
        `(${signed(check.chromiumMb - check.headlessMb)} MB: what a page asks of Theia's own services beside QodeAssist's). Chromium's own processes are not counted.`,
        'One Chromium page per backend does not fit two cores at ten backends, hence the headless window.',
        '',
        '**Core-only composition**, kept to reach 50 users: each user is a bare Node process composing QodeAssist\'s runtime as the Theia',
        'backend does (configuration service, session pools, chat feature, completion engine), with no Theia, no websocket/JSON-RPC hop,',
        'no log, MCP hub or key watcher. RSS at the end (no collection forced, as for the real backends) and after a full GC.',
        '',
        loadTable(core),
        '',
        '**Core-only ÷ real** where both ran the same users over the same ramp: below 1, the real backend is slower or larger by that factor.',
        '',
        ratioTable(modeRatios([...core, ...real])),
        '',
        ...failureSummary([...real, ...core]).flatMap(line => [`Failures: ${line}`, '']),
        `What limits them: this machine has ${cpus().length} cores for all the backends, the fake provider, the bench and other work; nothing is`,
        'shared between the backends but the provider, whose latency is fixed, so what grows with the users is the wait for CPU, and a real',
        'backend spends much more of it per session than the core-only composition (the CPU columns): every chat turn of a real backend',
        'first keeps the workspace in its checkpoint repository (git, before any turn whose tools may write: "Restore to here"), each',
        'completion gathers cross-file context (the default 1024 tokens), and every request and event crosses the websocket and Theia\'s',
        'RPC; the core-only composition does none of these. Where the backends\' CPU per session times their number approaches the wall',
        `time times ${cpus().length} cores, the cores are saturated and the latencies grow with the users. On Theia Cloud each user's backend has a pod`,
        'and CPU of its own, which this single machine cannot show. Aim: p95 at 50 users ≤ 1.5× one user. Memory: a real backend holds',
        'Theia\'s own share on top of QodeAssist\'s runtime (the RSS columns), the core-only figure is QodeAssist\'s runtime alone.',
        'Run with `npm run bench load` (tens of minutes on two shared cores, and the whole machine).'
    ].join('\n');
}
