/**
 * The load benchmark on real Theia backends: N browser-app backends (each a `node main.js` of the
 * built app with its own home and workspace, as one user of a deployment has), each with a window
 * open on it — a headless client that connects over Theia's websocket and opens every QodeAssist
 * service a window opens — and that window's user typing and chatting, all against one fake provider.
 */
import { BrowserAppProcess, BROWSER_APP_MAIN } from '../e2e/browser-app-process';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { LoadRow, summarize, UserFigures } from './load-analysis';
import { LoadRun, respond } from './load-benchmark';
import { findProcess, treeUsage } from './load-proc';
import { FILE_TEXT, LOAD_KEY, LOAD_KEY_VARIABLE, runUserSession, SessionPlan, userConfiguration, UserSide } from './load-session';
import { ChatService, CompletionService, HeadlessWindow } from './load-window-client';
import type { ChatEvent } from '@qodeassist/core';
import { join } from 'node:path';

/** A backend idle with its window open this long before it is measured and its user starts: its start-up work (loading, the first configuration read) has settled. */
const SETTLE_MS = 5_000;
/** A turn that has not ended by then is a failure, not a wait. */
const TURN_LIMIT_MS = 60_000;

/** The editor's completion settings at their defaults (preferences `qodeassist.completion.*`), as a window sends them. */
const DEFAULT_QUERY_SETTINGS = { linesBefore: 50, linesAfter: 30, wholeFile: false, prose: 'drop', lines: 'auto', openFilesBudget: 0, useGitignore: true, contextTokens: 1024 } as const;

/** The user's side through the window's proxies: what the editor's inline provider and the chat view call. */
export function windowSide(window: HeadlessWindow, workspace: string): UserSide {
    let nextId = 1;
    const file = join(workspace, 'src', 'shapes.ts');
    const completion: CompletionService = window.completion;
    const chat: ChatService = window.chat;
    return {
        complete: async text => {
            const answer = await completion.complete({ id: nextId++, workspacePath: workspace, file, relativePath: 'src/shapes.ts', language: 'typescript', text, offset: text.length, settings: DEFAULT_QUERY_SETTINGS });
            if (answer.error || answer.cancelled || answer.skipped) {
                throw new Error(answer.error?.message ?? (answer.cancelled ? 'cancelled' : `skipped: ${answer.skipped}`));
            }
        },
        chatTurn: async text => {
            const { chatId } = await chat.openSession({ location: 'user' });
            let firstToken = 0;
            let failure: string | undefined;
            let ended!: () => void;
            const end = new Promise<void>(resolve => {
                ended = resolve;
                setTimeout(() => {
                    failure ??= `no end within ${TURN_LIMIT_MS / 1000} s`;
                    resolve();
                }, TURN_LIMIT_MS).unref();
            });
            let started = 0;
            const stop = window.listen(chatId, (events: ChatEvent[]) => {
                if (!firstToken && events.some(event => event.type === 'TextDelta')) {
                    firstToken = performance.now() - started;
                }
                const failed = events.find(event => event.type === 'Failed');
                if (failed?.type === 'Failed') {
                    failure = failed.error.message;
                }
                if (failed || events.some(event => event.type === 'Finished' || event.type === 'Cancelled')) {
                    ended();
                }
            });
            try {
                started = performance.now();
                await chat.send(chatId, { text, attachments: [] }, { agent: 'load-chat', workspacePath: workspace });
                await end;
            } finally {
                stop();
                await chat.closeSession(chatId);
            }
            if (failure || !firstToken) {
                throw new Error(failure ?? 'no answer');
            }
            return firstToken;
        }
    };
}

/** One user's backend and window, started and settled. */
interface RealUser {
    app: BrowserAppProcess;
    window: HeadlessWindow;
    pid: number;
}

async function startUser(fakeUrl: string): Promise<RealUser> {
    const app = new BrowserAppProcess();
    try {
        await app.start({ files: { 'src/shapes.ts': FILE_TEXT }, userFiles: userConfiguration(fakeUrl), env: { [LOAD_KEY_VARIABLE]: LOAD_KEY }, startTimeoutMs: 180_000 });
        const pid = findProcess([BROWSER_APP_MAIN, app.workspace]);
        if (pid === undefined) {
            throw new Error(`The backend of ${app.workspace} is not among the running processes: it exited after it started?\n${app.log}`);
        }
        const window = await HeadlessWindow.open(app.url);
        return { app, window, pid };
    } catch (error) {
        await app.stop();
        throw error;
    }
}

async function stopUser(user: RealUser): Promise<void> {
    user.window.close();
    await user.app.stop();
}

/**
 * Each run: N real backends started one after another (starting them at once on this machine's cores
 * would time out), each with its window, left to settle, measured idle; then every user's session,
 * starting over the ramp; then each backend measured again and stopped.
 */
export async function measureRealLoad(runs: readonly LoadRun[], plan: Omit<SessionPlan, 'startDelayMs'>, progress: (line: string) => void = () => undefined): Promise<LoadRow[]> {
    const server = new FakeProviderServer({ maxLifetimeMs: 60 * 60_000 });
    await server.start();
    const rows: LoadRow[] = [];
    try {
        for (const run of runs) {
            const users: RealUser[] = [];
            try {
                for (let index = 0; index < run.users; index++) {
                    users.push(await startUser(server.url));
                    progress(`  backend ${index + 1} of ${run.users} up (pid ${users[index].pid})`);
                }
                await new Promise(resolve => setTimeout(resolve, SETTLE_MS));
                server.reset();
                server.setDefault({ kind: 'dynamic', respond });
                const idle = users.map(user => treeUsage(user.pid));
                const started = performance.now();
                const sessions = await Promise.all(users.map(async (user, index) => {
                    await new Promise(resolve => setTimeout(resolve, Math.round(run.rampMs * index / run.users)));
                    return runUserSession(windowSide(user.window, user.app.workspace), plan);
                }));
                const wallSeconds = (performance.now() - started) / 1000;
                const figures: UserFigures[] = users.map((user, index) => {
                    const end = treeUsage(user.pid);
                    return { ...sessions[index], rssBytes: end.rssBytes, rssIdleBytes: idle[index].rssBytes, cpuMs: end.cpuMs - idle[index].cpuMs };
                });
                rows.push(summarize('real', run, figures, server.requests.length, wallSeconds));
            } finally {
                await Promise.all(users.map(stopUser));
            }
        }
    } finally {
        await server.stop();
    }
    return rows;
}
