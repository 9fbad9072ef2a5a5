/** What the fake server does with one request. */
export type Scenario =
    | ReplayScenario
    | StatusScenario
    | HangScenario
    | DynamicScenario;

export interface ReplayScenario {
    kind: 'replay';
    /** A recording under test/fixtures, e.g. `openai-chat/text.sse`, or inline text via `recording`. */
    fixture?: string;
    recording?: string;
    /** Pause before each record after the first. */
    chunkDelayMs?: number;
    /** Pause before the response starts (the provider's time to first byte). */
    firstByteDelayMs?: number;
    /** Send the recording in pieces of this many bytes instead of one record at a time (for throughput runs). */
    chunkBytes?: number;
    /** Destroy the socket after this many records: a reset mid-stream. */
    resetAfterRecords?: number;
    /** Stop sending after this many records and keep the connection open (bounded by `hangMs`). */
    hangAfterRecords?: number;
    /** Replace one record by this text (a malformed chunk). */
    corruptRecord?: { index: number; text: string };
}

export interface StatusScenario {
    kind: 'status';
    status: number;
    body?: string;
    headers?: Record<string, string>;
    /** Pause before the response is sent. */
    firstByteDelayMs?: number;
}

/** Accept the request and never answer, until `hangMs` passes and the socket is destroyed. */
export interface HangScenario {
    kind: 'hang';
}

/** The answer depends on the request: e.g. a completion for the code before the cursor the request carries. */
export interface DynamicScenario {
    kind: 'dynamic';
    respond(body: string): ReplayScenario | StatusScenario | HangScenario;
}

export interface ScenarioRule {
    /** Matches when the raw request body contains this text. */
    bodyIncludes?: string;
    /** Matches when the last user message of the request contains this text. */
    promptIncludes?: string;
    protocol?: string;
    scenario: Scenario;
}
