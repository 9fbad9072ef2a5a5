/**
 * One user's IDE backend for the load benchmark, in a process of its own: the runtime composed as
 * the Theia backend composes it (configuration service, session pools, chat feature, completion
 * engine), its own home and workspace, talking to the shared fake provider. It waits for "go",
 * then types (completion requests as a typist's stops) and chats (a turn with a tool round), and
 * reports its latencies, requests and memory. It exits when told, and after five minutes whatever happens.
 */
import {
    ChatEvent, ChatFeature, ChatOwners, ConfigurationService, configuredCompletionEngine, DEFAULT_COMPLETION_SETTINGS, defaultConfigRoots, EnvironmentSecretsStore, QodeAssistRuntime
} from '@qodeassist/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoadWorkerPlan {
    fakeUrl: string;
    /** Completion requests in the typing session. */
    completions: number;
    /** Chat turns (each with one tool round). */
    chats: number;
    /** The typist's pause between stops. */
    thinkMs: number;
    /** When this user starts after "go": users arrive over a ramp, not in one instant. */
    startDelayMs?: number;
    /** The pause between chat turns (reading the answer). */
    readMs?: number;
}

export interface LoadWorkerReport {
    completionMs: number[];
    chatFirstTokenMs: number[];
    failures: string[];
    rssBytes: number;
    heapUsedBytes: number;
    /** CPU time (user + system) the backend spent on the user's session. */
    cpuMs: number;
}

const LIFETIME_MS = 5 * 60_000;
const FILE_TEXT = 'export function area(width: number, height: number): number {\n    return width * height;\n}\n\nexport function perimeter(width: number, height: number): number {\n    ';

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
    const user = join(home, '.qodeassist');
    mkdirSync(join(user, 'providers'), { recursive: true });
    mkdirSync(join(user, 'agents'), { recursive: true });
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src', 'shapes.ts'), FILE_TEXT);
    writeFileSync(join(user, 'providers', 'load-chat.toml'), `schema_version = 1\nname = "load-chat"\nclient_api = "openai_compatible"\nurl = "${plan.fakeUrl}/v1"\napi_key_ref = "load"\n`);
    writeFileSync(join(user, 'providers', 'load-fim.toml'), `schema_version = 1\nname = "load-fim"\nclient_api = "ollama"\nurl = "${plan.fakeUrl}"\n`);
    writeFileSync(join(user, 'agents', 'load-chat.toml'), 'schema_version = 1\nname = "load-chat"\nextends = "openai-base"\nprovider_instance = "load-chat"\nmodel = "fake-model"\n');
    writeFileSync(join(user, 'agents', 'load-fim.toml'), 'schema_version = 1\nname = "load-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "load-fim"\nmodel = "fake-model"\n');
    writeFileSync(join(user, 'agents', 'rosters.toml'), 'schema_version = 1\n\n[chat]\nagents = ["load-chat"]\n\n[completion]\nagents = ["load-fim"]\n');

    const configuration = new ConfigurationService({ ...defaultConfigRoots(undefined, home), project: undefined });
    const runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({ LOAD_API_KEY: 'sk-load-0123456789' }), userHome: home });
    const completion = configuredCompletionEngine(runtime, configuration, { settings: () => DEFAULT_COMPLETION_SETTINGS });
    const chat = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home, owners: new ChatOwners(40) });
    return { root, home, workspace, configuration, runtime, completion, chat };
}

async function run(backend: UserBackend, plan: LoadWorkerPlan): Promise<LoadWorkerReport> {
    const { root, workspace, configuration, runtime, completion, chat } = backend;
    const report: LoadWorkerReport = { completionMs: [], chatFirstTokenMs: [], failures: [], rssBytes: 0, heapUsedBytes: 0, cpuMs: 0 };
    await new Promise(resolve => setTimeout(resolve, plan.startDelayMs ?? 0));
    const cpu = process.cpuUsage();
    try {
        // The typing session: the file grows a few characters per stop; each stop asks for a suggestion.
        const typed = 'return 2 * width + 2 * height;';
        for (let stop = 0; stop < plan.completions; stop++) {
            // Each stop on a line of its own: no suggestion is served from the cache or an earlier request, every stop waits for the provider.
            const text = `${FILE_TEXT}// step ${stop}: ${typed.slice(0, (stop % typed.length) + 1)}`;
            const started = performance.now();
            try {
                await completion.engine.complete({ file: join(workspace, 'src', 'shapes.ts'), relativePath: 'src/shapes.ts', language: 'typescript', text, offset: text.length });
                report.completionMs.push(performance.now() - started);
            } catch (error) {
                report.failures.push(`completion: ${error instanceof Error ? error.message : String(error)}`);
            }
            await new Promise(resolve => setTimeout(resolve, plan.thinkMs));
        }
        // Chats with a tool round: time to the first token of the answer the user reads.
        for (let turn = 0; turn < plan.chats; turn++) {
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
            await chat.send(chatId, { text: `Explain shapes.ts (${turn})`, attachments: [] }, { agent: 'load-chat', workspacePath: workspace });
            await end;
            const failed = events.find(event => event.type === 'Failed');
            if (failed?.type === 'Failed' || !firstToken) {
                report.failures.push(`chat: ${failed?.type === 'Failed' ? failed.error.message : 'no answer'}`);
            } else {
                report.chatFirstTokenMs.push(firstToken);
            }
            await chat.close(chatId);
            if (turn + 1 < plan.chats) {
                await new Promise(resolve => setTimeout(resolve, plan.readMs ?? 0));
            }
        }
        const spent = process.cpuUsage(cpu);
        report.cpuMs = (spent.user + spent.system) / 1000;
        (globalThis as { gc?: () => void }).gc?.();
        const memory = process.memoryUsage();
        report.rssBytes = memory.rss;
        report.heapUsedBytes = memory.heapUsed;
        return report;
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
            completionMs: [], chatFirstTokenMs: [], failures: [`worker: ${error instanceof Error ? error.stack : String(error)}`], rssBytes: 0, heapUsedBytes: 0, cpuMs: 0
        } })).finally(() => setTimeout(() => process.exit(0), 50));
    });
}
