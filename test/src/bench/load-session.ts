/**
 * One user's session in the load benchmark, whatever backend serves it: a typing session (completion
 * stops), then chat turns with a tool round. The core-only worker and the headless window on a real
 * Theia backend both run it, so the two modes measure the same plan.
 */

export interface SessionPlan {
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

/** What the user waited for, and what went wrong. */
export interface SessionSamples {
    completionMs: number[];
    chatFirstTokenMs: number[];
    failures: string[];
}

/** The backend as the user reaches it: a suggestion at a stop, a chat turn measured to the first token of the answer. */
export interface UserSide {
    /** Asks for a suggestion at the end of `text` in src/shapes.ts; resolves once the answer is there, throws when it failed. */
    complete(text: string): Promise<void>;
    /** Sends a chat message; resolves with the milliseconds from the send to the answer's first text token, throws when the turn failed. */
    chatTurn(text: string): Promise<number>;
}

/** The workspace file every user types in. */
export const FILE_TEXT = 'export function area(width: number, height: number): number {\n    return width * height;\n}\n\nexport function perimeter(width: number, height: number): number {\n    ';

const TYPED = 'return 2 * width + 2 * height;';

/** The file's text at a stop: each stop on a line of its own, so no suggestion comes from the cache or an earlier request and every stop waits for the provider. */
export function textAtStop(stop: number): string {
    return `${FILE_TEXT}// step ${stop}: ${TYPED.slice(0, (stop % TYPED.length) + 1)}`;
}

const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error);

/** Types, then chats, as the plan says; every latency and every failure is kept. */
export async function runUserSession(side: UserSide, plan: SessionPlan): Promise<SessionSamples> {
    const samples: SessionSamples = { completionMs: [], chatFirstTokenMs: [], failures: [] };
    for (let stop = 0; stop < plan.completions; stop++) {
        const started = performance.now();
        try {
            await side.complete(textAtStop(stop));
            samples.completionMs.push(performance.now() - started);
        } catch (error) {
            samples.failures.push(`completion: ${messageOf(error)}`);
        }
        await pause(plan.thinkMs);
    }
    for (let turn = 0; turn < plan.chats; turn++) {
        try {
            samples.chatFirstTokenMs.push(await side.chatTurn(`Explain shapes.ts (${turn})`));
        } catch (error) {
            samples.failures.push(`chat: ${messageOf(error)}`);
        }
        if (turn + 1 < plan.chats) {
            await pause(plan.readMs ?? 0);
        }
    }
    return samples;
}

/** The chat key's reference in the user's provider file; the backend reads it from `LOAD_API_KEY`. */
export const LOAD_KEY_VARIABLE = 'LOAD_API_KEY';
export const LOAD_KEY = 'sk-load-0123456789';

/**
 * The user's own QodeAssist configuration (below the home, so no workspace trust is needed): a chat
 * provider and agent on the fake provider, a FIM provider and agent on it, and the rosters.
 */
export function userConfiguration(fakeUrl: string): Record<string, string> {
    return {
        '.qodeassist/providers/load-chat.toml': `schema_version = 1\nname = "load-chat"\nclient_api = "openai_compatible"\nurl = "${fakeUrl}/v1"\napi_key_ref = "load"\n`,
        '.qodeassist/providers/load-fim.toml': `schema_version = 1\nname = "load-fim"\nclient_api = "ollama"\nurl = "${fakeUrl}"\n`,
        '.qodeassist/agents/load-chat.toml': 'schema_version = 1\nname = "load-chat"\nextends = "openai-base"\nprovider_instance = "load-chat"\nmodel = "fake-model"\n',
        '.qodeassist/agents/load-fim.toml': 'schema_version = 1\nname = "load-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "load-fim"\nmodel = "fake-model"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[chat]\nagents = ["load-chat"]\n\n[completion]\nagents = ["load-fim"]\n'
    };
}
