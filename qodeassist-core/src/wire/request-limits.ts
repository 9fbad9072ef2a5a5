import { QodeAssistError } from './error-info';

/**
 * The limits of one request: how long to wait for the provider, how much it may send back and
 * how many tool rounds to run. Built-in defaults (or the host's, e.g. completion's tighter ones),
 * then an agent's `[limits]` table, then the user's settings (`qodeassist.limits.*`); every error
 * a limit produces names the setting that raises it.
 */
export interface RequestLimits {
    /** Seconds from sending a request until the response headers arrive, per attempt. */
    connectSeconds: number;
    /** Longest silence between two chunks of an answer, in seconds. */
    idleSeconds: number;
    /** Seconds for one whole answer of the model: every connection attempt and every chunk (each tool round is its own answer). */
    totalSeconds: number;
    /** Tool rounds one request may run before it is stopped. */
    maxToolRounds: number;
    /** Longest one record of an answer (an SSE event, an NDJSON line) may grow before it ends, in bytes. */
    maxRecordBytes: number;
    /** Bytes one whole answer of the model may bring, as they arrive (each tool round is its own answer). */
    maxAnswerBytes: number;
}

export type LimitName = keyof RequestLimits;

/** Some limits; an absent (or non-positive) one leaves the value below it in force. */
export type LimitOverrides = Partial<RequestLimits>;

export const LIMIT_NAMES: readonly LimitName[] = ['connectSeconds', 'idleSeconds', 'totalSeconds', 'maxToolRounds', 'maxRecordBytes', 'maxAnswerBytes'];

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Generous for chat and agentic work: a reasoning model may think for minutes before it answers,
 * and the largest documented answer (128k output tokens as the Responses API's one-token delta
 * events) is about 26 MB on the wire. No provider sends a single record near 8 MiB.
 */
export const DEFAULT_LIMITS: Readonly<RequestLimits> = {
    connectSeconds: 30, idleSeconds: 120, totalSeconds: 1800, maxToolRounds: 30, maxRecordBytes: 8 * MiB, maxAnswerBytes: 64 * MiB
};

/**
 * The completion pipeline's defaults: a suggestion is a few hundred tokens (≤ 250 KB on the most
 * verbose wire) and is worthless after half a minute, so a runaway answer ends long before chat's would.
 */
export const COMPLETION_LIMIT_DEFAULTS: Readonly<LimitOverrides> = { totalSeconds: 30, maxAnswerBytes: 512 * KiB };

/** Each limit's key in an agent's `[limits]` table. */
export const LIMIT_TOML_KEYS: Readonly<Record<LimitName, string>> = {
    connectSeconds: 'connect', idleSeconds: 'idle', totalSeconds: 'total', maxToolRounds: 'max_tool_rounds',
    maxRecordBytes: 'max_record_bytes', maxAnswerBytes: 'max_answer_bytes'
};

/** Each limit's user setting. */
export const LIMIT_SETTINGS: Readonly<Record<LimitName, string>> = {
    connectSeconds: 'qodeassist.limits.connectSeconds', idleSeconds: 'qodeassist.limits.idleSeconds',
    totalSeconds: 'qodeassist.limits.totalSeconds', maxToolRounds: 'qodeassist.limits.maxToolRounds',
    maxRecordBytes: 'qodeassist.limits.maxRecordBytes', maxAnswerBytes: 'qodeassist.limits.maxAnswerBytes'
};

/** Limits that count something whole (rounds, bytes): a value of 2.5 means 2. */
const WHOLE_LIMITS: readonly LimitName[] = ['maxToolRounds', 'maxRecordBytes', 'maxAnswerBytes'];

/** Where a limit's value came from. */
export type LimitSource = 'default' | 'agent' | 'setting';

/** The limits in force for one request, with where each came from: what a limit error needs to say how to raise it. */
export interface EffectiveLimits {
    values: RequestLimits;
    from: Record<LimitName, LimitSource>;
    /** The agent's file as the user knows it (a path, or `bundled:agents/…`). */
    agentFile?: string;
}

/** How the user raises a limit that was hit: the clause ending a limit error ("raise … or the setting …."). */
export type LimitAdvice = (limit: LimitName) => string;

function usable(value: unknown): value is number {
    return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** Only the limits that are set: positive finite numbers under the limits' names (e.g. of settings that came over RPC). */
export function usableLimits(overrides: LimitOverrides | undefined): LimitOverrides {
    return Object.fromEntries(LIMIT_NAMES.filter(name => usable(overrides?.[name])).map(name => [name, overrides![name]]));
}

/** An agent's `[limits]` table as written (TOML keys) as the limits a request takes; keys it does not set stay absent. */
export function limitOverridesOfTable(table: Readonly<Partial<Record<string, number>>> | undefined): LimitOverrides {
    return Object.fromEntries(LIMIT_NAMES.filter(name => table?.[LIMIT_TOML_KEYS[name]] !== undefined).map(name => [name, table![LIMIT_TOML_KEYS[name]]]));
}

export interface LimitLayers {
    /** The host's own defaults over the built-in ones (e.g. completion's tighter ones, a benchmark's longer tool runs). */
    defaults?: LimitOverrides;
    /** The agent's `[limits]`. */
    agent?: LimitOverrides;
    /** The user's settings (`qodeassist.limits.*`). */
    settings?: LimitOverrides;
    /** The agent's file, for the advice. */
    agentFile?: string;
}

/** Built-in default (← the host's defaults) ← the agent's `[limits]` ← the user's settings; absent or non-positive values are skipped. */
export function effectiveLimits(layers: LimitLayers = {}): EffectiveLimits {
    const { defaults, agent, settings, agentFile } = layers;
    const values = { ...DEFAULT_LIMITS };
    const from = {} as Record<LimitName, LimitSource>;
    for (const name of LIMIT_NAMES) {
        const fromSetting = settings?.[name];
        const fromAgent = agent?.[name];
        const fromHost = defaults?.[name];
        if (usable(fromSetting)) {
            values[name] = fromSetting;
            from[name] = 'setting';
        } else if (usable(fromAgent)) {
            values[name] = fromAgent;
            from[name] = 'agent';
        } else {
            values[name] = usable(fromHost) ? fromHost : DEFAULT_LIMITS[name];
            from[name] = 'default';
        }
    }
    for (const name of WHOLE_LIMITS) {
        values[name] = Math.max(1, Math.floor(values[name]));
    }
    return { values, from, ...(agentFile !== undefined ? { agentFile } : {}) };
}

/**
 * Exactly where to raise a limit: the setting when it is what set the value (it wins over
 * the agent file), otherwise the agent's `[limits]` key or the setting. A bundled file
 * cannot be edited, so its advice says to copy it into the user's agents folder.
 */
export function raiseLimitAdvice(limit: LimitName, limits?: Pick<EffectiveLimits, 'from' | 'agentFile'>): string {
    const setting = LIMIT_SETTINGS[limit];
    const key = `[limits] ${LIMIT_TOML_KEYS[limit]}`;
    if (limits?.from[limit] === 'setting') {
        return `raise the setting ${setting} (it overrides ${key} of the agent file).`;
    }
    const file = limits?.agentFile;
    const where = file === undefined ? 'the agent\'s file'
        : file.startsWith('bundled:') ? `a copy of the agent file ${file.slice('bundled:'.length)} in ~/.qodeassist/agents/`
            : `the agent file ${file}`;
    return `raise ${key} in ${where} or the setting ${setting}.`;
}

/** The error a record longer than the record limit ends an answer with; what arrived before it stays with the caller. */
export function recordLimitError(maxBytes: number, advice: LimitAdvice = raiseLimitAdvice): QodeAssistError {
    return new QodeAssistError({
        category: 'Provider',
        message: `The provider sent a record (one event or line of the stream) longer than ${formatBytes(maxBytes)} (the max_record_bytes limit), `
            + `so the answer was stopped; what arrived before it is kept. Check the provider's URL and protocol; if it really sends records this large, ${advice('maxRecordBytes')}`
    });
}

/** The error an answer longer than the answer limit ends with; what arrived before it stays with the caller. */
export function answerLimitError(maxBytes: number, advice: LimitAdvice = raiseLimitAdvice): QodeAssistError {
    return new QodeAssistError({
        category: 'Provider',
        message: `The answer grew past ${formatBytes(maxBytes)} (the max_answer_bytes limit), so it was stopped; what arrived before it is kept. `
            + `To allow longer answers, ${advice('maxAnswerBytes')}`
    });
}

/** Sizes as people write them: `8 MiB`, `512 KiB`, `1.5 MiB`, `300 bytes`. */
export function formatBytes(bytes: number): string {
    const [unit, size] = bytes >= MiB ? ['MiB', MiB] : bytes >= KiB ? ['KiB', KiB] : ['bytes', 1];
    return `${Number((bytes / size).toFixed(2))} ${unit}`;
}

/** Seconds as people write them: `600 s`, `0.2 s`. */
export function formatSeconds(ms: number): string {
    return `${Number((ms / 1000).toFixed(3))} s`;
}
