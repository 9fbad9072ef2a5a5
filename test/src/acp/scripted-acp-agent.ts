/**
 * A scripted ACP agent for the client's integration tests: raw JSON-RPC on stdio (so it can
 * also break the protocol), run as `node scripted-acp-agent.js '<script JSON>'`. Each prompt
 * turn plays the next list of steps: session updates of every kind, permission requests, file
 * and terminal requests (their answers echoed back as message text), sleeps, stalls, crashes,
 * malformed lines. It exits when its input closes, and after a minute whatever happens.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';

export type Step =
    /** A `session/update` with this update. */
    | { update: Record<string, unknown> }
    /**
     * A request to the client. `${name.field}` in string params is replaced from an earlier saved
     * answer; `echo` sends the answer (or error) back as an agent message chunk `name: <json>`;
     * `wait: false` sends it without waiting (`await` a step later).
     */
    | { request: string; params?: Record<string, unknown>; save?: string; echo?: boolean; wait?: boolean }
    /** Waits for a request sent with `wait: false`. */
    | { await: string }
    /** Asks permission; plays `allowed` or `rejected` by the kind of the option picked (cancelled counts as rejected). */
    | { permission: { toolCall: Record<string, unknown>; options: Array<{ optionId: string; name: string; kind: string }> }; allowed?: Step[]; rejected?: Step[]; save?: string }
    | { stderr: string }
    | { sleep: number }
    /** Waits until the turn is cancelled (forever with `ignoreCancel`). */
    | { stall: true }
    /** Exits at once with this code (standard error written first when given). */
    | { crash: number; stderr?: string }
    /** Writes this line as it is. */
    | { raw: string }
    /** Ends the turn now with this stop reason. */
    | { stop: StopReason }
    /** Sends this many agent message chunks as fast as it can. */
    | { flood: number }
    /** Answers the prompt with this JSON-RPC error (its `data` as given). */
    | { fail: { code: number; message: string; data?: unknown } }
    /** Starts a long-lived child process (in the agent's process group) and writes `[own pid, child pid]` to this file. */
    | { spawnChild: string };

export interface AgentScript {
    /** Merged into the `initialize` answer (agentCapabilities, agentInfo, protocolVersion …). */
    initialize?: Record<string, unknown>;
    /** Written to standard error at start. */
    startupStderr?: string;
    /** Exits with this code on `initialize`, before answering. */
    crashOnInitialize?: number;
    /** Modes in the `session/new` answer. */
    modes?: { currentModeId: string; availableModes: Array<{ id: string; name: string; description?: string }> };
    /** Played right after answering `session/new` (commands, mode), outside any turn. */
    afterNewSession?: Step[];
    /** Played while loading a session, before answering `session/load` (a `fail` step answers it with that error). */
    load?: Step[];
    /** One list of steps per prompt turn, in order. */
    turns: Step[][];
    /** Keep playing after `session/cancel`, and never answer the prompt with `cancelled`. */
    ignoreCancel?: boolean;
    /** Every message received is appended here as a JSON line. */
    log?: string;
}

type Message = { jsonrpc: '2.0'; id?: number | string | null; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { code: number; message: string } };
type Answer = { result?: unknown; error?: { code: number; message: string } };

const script: AgentScript = JSON.parse(process.argv[2] ?? '{"turns": []}');
const LIFETIME_MS = 60_000;
setTimeout(() => process.exit(4), LIFETIME_MS).unref();

let nextId = 1;
let nextSession = 1;
let turnIndex = 0;
const pending = new Map<number, (answer: Answer) => void>();
const sent = new Map<string, Promise<Answer>>();
const saved = new Map<string, unknown>();
let cancelTurn: (() => void) | undefined;
let cancelled = false;

function send(message: Record<string, unknown>): void {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
}

function request(method: string, params: unknown): Promise<Answer> {
    const id = nextId++;
    send({ id, method, params });
    return new Promise(resolve => pending.set(id, resolve));
}

function update(sessionId: string, value: Record<string, unknown>): void {
    send({ method: 'session/update', params: { sessionId, update: value } });
}

/** `${name.path}` in every string of a value, from the saved answers. */
function substitute(value: unknown): unknown {
    if (typeof value === 'string') {
        const whole = /^\$\{([^}]+)\}$/.exec(value);
        const lookup = (path: string) => path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], Object.fromEntries(saved));
        return whole ? lookup(whole[1]) : value.replace(/\$\{([^}]+)\}/g, (_match, path: string) => String(lookup(path)));
    }
    if (Array.isArray(value)) {
        return value.map(substitute);
    }
    if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, substitute(inner)]));
    }
    return value;
}

function echo(sessionId: string, name: string, answer: Answer): void {
    update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${name}: ${JSON.stringify(answer.error ? { error: answer.error } : answer.result)}\n` } });
}

const delay = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

/** Resolves when the turn is cancelled (never with ignoreCancel). */
function whenCancelled(): Promise<void> {
    return new Promise(resolve => {
        if (cancelled && !script.ignoreCancel) {
            resolve();
        }
        cancelTurn = () => {
            if (!script.ignoreCancel) {
                resolve();
            }
        };
    });
}

async function play(steps: readonly Step[], sessionId: string): Promise<StopReason | undefined> {
    for (const step of steps) {
        if (cancelled && !script.ignoreCancel) {
            return 'cancelled';
        }
        if ('update' in step) {
            update(sessionId, substitute(step.update) as Record<string, unknown>);
        } else if ('request' in step) {
            const answer = request(step.request, { sessionId, ...substitute(step.params ?? {}) as Record<string, unknown> });
            const name = step.save ?? step.request;
            if (step.wait === false) {
                sent.set(name, answer);
                continue;
            }
            const got = await answer;
            saved.set(name, got.result ?? { error: got.error });
            if (step.echo) {
                echo(sessionId, name, got);
            }
        } else if ('await' in step) {
            const got = await sent.get(step.await)!;
            saved.set(step.await, got.result ?? { error: got.error });
            echo(sessionId, step.await, got);
        } else if ('permission' in step) {
            const got = await request('session/request_permission', { sessionId, ...substitute(step.permission) as Record<string, unknown> });
            const outcome = (got.result as { outcome?: { outcome: string; optionId?: string } } | undefined)?.outcome;
            saved.set(step.save ?? 'permission', outcome ?? { error: got.error });
            const kind = step.permission.options.find(option => option.optionId === outcome?.optionId)?.kind;
            const allowed = outcome?.outcome === 'selected' && (kind === 'allow_once' || kind === 'allow_always');
            const stop = await play((allowed ? step.allowed : step.rejected) ?? [], sessionId);
            if (stop) {
                return stop;
            }
        } else if ('crash' in step) {
            if (step.stderr) {
                process.stderr.write(step.stderr);
            }
            process.exit(step.crash);
        } else if ('sleep' in step) {
            await Promise.race([delay(step.sleep), whenCancelled()]);
        } else if ('stall' in step) {
            await whenCancelled();
        } else if ('stderr' in step) {
            process.stderr.write(step.stderr);
        } else if ('raw' in step) {
            process.stdout.write(step.raw + '\n');
        } else if ('stop' in step) {
            return step.stop;
        } else if ('spawnChild' in step) {
            const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
            writeFileSync(step.spawnChild, JSON.stringify([process.pid, child.pid]));
        } else if ('fail' in step) {
            throw step.fail;
        } else if ('flood' in step) {
            for (let index = 0; index < step.flood; index++) {
                update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '.' } });
            }
        }
    }
    return cancelled && !script.ignoreCancel ? 'cancelled' : undefined;
}

async function handleRequest(message: Message): Promise<unknown> {
    const params = message.params ?? {};
    switch (message.method) {
        case 'initialize':
            if (script.crashOnInitialize !== undefined) {
                process.exit(script.crashOnInitialize);
            }
            return {
                protocolVersion: 1,
                agentCapabilities: { loadSession: true, promptCapabilities: { image: true, audio: false, embeddedContext: true } },
                agentInfo: { name: 'scripted-agent', title: 'Scripted agent', version: '1.0.0' },
                authMethods: [],
                ...script.initialize
            };
        case 'session/new': {
            const sessionId = `sess-${nextSession++}`;
            setImmediate(() => void play(script.afterNewSession ?? [], sessionId));
            return { sessionId, ...(script.modes ? { modes: script.modes } : {}) };
        }
        case 'session/load':
            await play(script.load ?? [], String(params.sessionId));
            return { ...(script.modes ? { modes: script.modes } : {}) };
        case 'session/set_mode':
            update(String(params.sessionId), { sessionUpdate: 'current_mode_update', currentModeId: params.modeId });
            return {};
        case 'session/prompt': {
            cancelled = false;
            const steps = script.turns[turnIndex++] ?? [];
            const stop = await play(steps, String(params.sessionId));
            cancelTurn = undefined;
            return { stopReason: stop ?? 'end_turn' };
        }
        default:
            throw { code: -32601, message: `Method not found: ${message.method}` };
    }
}

const lines = createInterface({ input: process.stdin });
if (script.startupStderr) {
    process.stderr.write(script.startupStderr);
}
lines.on('line', line => {
    if (!line.trim()) {
        return;
    }
    const message = JSON.parse(line) as Message;
    if (script.log) {
        appendFileSync(script.log, line + '\n');
    }
    if (message.method !== undefined && message.id !== undefined) {
        handleRequest(message).then(
            result => send({ id: message.id, result }),
            error => send({ id: message.id, error: { code: error.code ?? -32603, message: error.message ?? String(error), ...(error.data !== undefined ? { data: error.data } : {}) } })
        );
    } else if (message.method === 'session/cancel') {
        cancelled = true;
        cancelTurn?.();
    } else if (message.id !== undefined && message.method === undefined) {
        pending.get(Number(message.id))?.({ result: message.result, error: message.error });
        pending.delete(Number(message.id));
    }
});
lines.on('close', () => process.exit(0));
