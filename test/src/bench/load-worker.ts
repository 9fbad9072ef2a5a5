/**
 * One user's IDE backend for the load benchmark, in a process of its own: the runtime composed as
 * the Theia backend composes it (configuration service, session pools, chat feature, completion
 * engine), its own home and workspace, talking to the shared fake provider. It waits for "go",
 * then types (completion requests as a typist's stops) and chats (a turn with a tool round), and
 * reports its latencies, requests and memory. It exits when told, and after ten minutes whatever happens.
 */
import {
    ChatEvent, ChatFeature, ChatOwners, ConfigurationService, configuredCompletionEngine, DEFAULT_COMPLETION_SETTINGS, defaultConfigRoots, EnvironmentSecretsStore, QodeAssistRuntime
} from '@qodeassist/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FILE_TEXT, LOAD_KEY, LOAD_KEY_VARIABLE, runUserSession, SessionPlan, SessionSamples, userConfiguration, UserSide } from './load-session';

export interface LoadWorkerPlan extends SessionPlan {
    fakeUrl: string;
}

export interface LoadWorkerReport extends SessionSamples {
    rssBytes: number;
    /** RSS at the session's end before the full GC: what a backend that is not told to collect holds (the real backends are measured so). */
    rssBeforeGcBytes: number;
    heapUsedBytes: number;
    /** CPU time (user + system) the backend spent on the user's session. */
    cpuMs: number;
}

const LIFETIME_MS = 10 * 60_000;

/** One user's backend as it stands once started: the configuration read, the features composed. */
interface UserBackend {
    root: string;
    home: string;
    workspace: string;
    configuration: ConfigurationService;
    runtime: QodeAssistRuntime;
    completion: ReturnType<typeof configuredCompletionEngine>;
    chat: ChatFeature;
}

/** The backend's start (as the IDE's backend starts before its user types): not part of what the user waits on at each request. */
function startBackend(plan: LoadWorkerPlan): UserBackend {
    const root = mkdtempSync(join(tmpdir(), 'qodeassist-load-user-'));
    const home = join(root, 'home');
    const workspace = join(root, 'workspace');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src', 'shapes.ts'), FILE_TEXT);
    for (const [path, text] of Object.entries(userConfiguration(plan.fakeUrl))) {
        mkdirSync(dirname(join(home, path)), { recursive: true });
        writeFileSync(join(home, path), text);
    }

    const configuration = new ConfigurationService({ ...defaultConfigRoots(undefined, home), project: undefined });
    const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({ [LOAD_KEY_VARIABLE]: LOAD_KEY }), userHome: home });
    const completion = configuredCompletionEngine(runtime, configuration, { settings: () => DEFAULT_COMPLETION_SETTINGS });
    const chat = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
    return { root, home, workspace, configuration, runtime, completion, chat };
}

/** The user's side on the composed runtime: the engine answers a stop, the chat feature a turn (its events waited on, not polled). */
function userSide(backend: UserBackend): UserSide {
    const { workspace, completion, chat } = backend;
    return {
        complete: async text => {
            await completion.engine.complete({ file: join(workspace, 'src', 'shapes.ts'), relativePath: 'src/shapes.ts', language: 'typescript', text, offset: text.length });
        },
        chatTurn: async text => {
            const events: ChatEvent[] = [];
            let firstToken = 0;
            let ended!: () => void;
            // The turn's end as the host is told it (waited on, not polled: 50 polling users would cost the CPU measured), a minute at most.
            const end = new Promise<void>(resolve => {
                ended = resolve;
                setTimeout(resolve, 60_000).unref();
            });
            const started = performance.now();
            chat.setHost({
                onEvents: (_id, batch) => {
                    events.push(...batch);
                    if (!firstToken && batch.some(event => event.type === 'TextDelta')) {
                        firstToken = performance.now() - started;
                    }
                    if (batch.some(event => event.type === 'Finished' || event.type === 'Failed')) {
                        ended();
                    }
                },
                onNotice: () => undefined, requestToolPermission: async () => 'deny'
            });
            const { chatId } = await chat.open({ location: 'user' });
            await chat.send(chatId, { text, attachments: [] }, { agent: 'load-chat', workspacePath: workspace });
            await end;
            await chat.close(chatId);
            const failed = events.find(event => event.type === 'Failed');
            if (failed?.type === 'Failed' || !firstToken) {
                throw new Error(failed?.type === 'Failed' ? failed.error.message : 'no answer');
            }
            return firstToken;
        }
    };
}

async function run(backend: UserBackend, plan: LoadWorkerPlan): Promise<LoadWorkerReport> {
    const { root, runtime, configuration, completion, chat } = backend;
    await new Promise(resolve => setTimeout(resolve, plan.startDelayMs ?? 0));
    const cpu = process.cpuUsage();
    try {
        const samples = await runUserSession(userSide(backend), plan);
        const spent = process.cpuUsage(cpu);
        const rssBeforeGcBytes = process.memoryUsage().rss;
        (globalThis as { gc?: () => void }).gc?.();
        const memory = process.memoryUsage();
        return { ...samples, cpuMs: (spent.user + spent.system) / 1000, rssBytes: memory.rss, rssBeforeGcBytes, heapUsedBytes: memory.heapUsed };
    } finally {
        completion.dispose();
        chat.dispose();
        await chat.saved();
        runtime.dispose();
        configuration.dispose();
        rmSync(root, { recursive: true, force: true });
    }
}

if (require.main === module) {
    setTimeout(() => process.exit(3), LIFETIME_MS).unref();
    const plan = JSON.parse(process.argv[2] ?? '{}') as LoadWorkerPlan;
    const backend = startBackend(plan);
    // A backend is started well before its user's first request, and the start's garbage is collected in that idle time.
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ type: 'ready' });
    process.once('message', () => {
        run(backend, plan).then(report => process.send?.({ type: 'report', report }), error => process.send?.({ type: 'report', report: {
            completionMs: [], chatFirstTokenMs: [], failures: [`worker: ${error instanceof Error ? error.stack : String(error)}`], rssBytes: 0, rssBeforeGcBytes: 0, heapUsedBytes: 0, cpuMs: 0
        } })).finally(() => setTimeout(() => process.exit(0), 50));
    });
}
