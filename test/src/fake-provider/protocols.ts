/**
 * How the fake server speaks one wire protocol: which requests it answers and how a
 * recorded stream is cut into records for paced replay. Each entry matches one
 * endpoint family of docs/ARCHITECTURE.md §5; model listings are JSON routes.
 */
export interface FakeProtocol {
    name: string;
    method: 'GET' | 'POST';
    path: RegExp;
    contentType: string;
    /** Splits a recording into the units sent one per tick (SSE events or NDJSON lines), each with its terminator. */
    splitRecords(recording: string): string[];
    /** The text of the last user message (or prompt) in a request body, so rules can match the turn rather than the whole history. */
    lastUserText(body: unknown): string | undefined;
    /** Recording served when no scenario names one. */
    defaultFixture: string;
    /** Only requests carrying this header match (Claude's model list shares its path with OpenAI's). */
    requiresHeader?: string;
}

/** SSE events end at a blank line; `\r\n` line ends (Google sends them) are kept byte for byte. */
export function splitSseEvents(recording: string): string[] {
    return recording.split(/(?<=\n\r?\n)/).filter(part => part.trim().length > 0);
}

export function splitNdjsonLines(recording: string): string[] {
    return recording.split(/(?<=\n)/).filter(line => line.trim().length > 0);
}

function whole(recording: string): string[] {
    return [recording];
}

type Json = Record<string, unknown> | undefined;

/** Text of a content that is a string or a list of parts with `text`. */
function contentText(content: unknown): string {
    if (typeof content === 'string') {
        return content;
    }
    if (Array.isArray(content)) {
        return content.map(part => (part && typeof part === 'object' && typeof part.text === 'string') ? part.text : '').join('');
    }
    return '';
}

function lastUserMessage(messages: unknown, contentKey = 'content'): string | undefined {
    if (!Array.isArray(messages)) {
        return undefined;
    }
    const last = [...messages].reverse().find(message => message?.role === 'user' && contentText(message[contentKey]) !== '');
    return last ? contentText(last[contentKey]) : undefined;
}

const sse = 'text/event-stream';

export const OPENAI_CHAT: FakeProtocol = {
    name: 'openai-chat', method: 'POST', path: /\/chat\/completions$/, contentType: sse,
    splitRecords: splitSseEvents, defaultFixture: 'openai-chat/text.sse',
    lastUserText: body => lastUserMessage((body as Json)?.messages)
};

export const ANTHROPIC_MESSAGES: FakeProtocol = {
    name: 'anthropic-messages', method: 'POST', path: /\/v1\/messages$/, contentType: sse,
    splitRecords: splitSseEvents, defaultFixture: 'anthropic-messages/text.sse',
    lastUserText: body => lastUserMessage((body as Json)?.messages)
};

export const OPENAI_RESPONSES: FakeProtocol = {
    name: 'openai-responses', method: 'POST', path: /\/responses$/, contentType: sse,
    splitRecords: splitSseEvents, defaultFixture: 'openai-responses/text.sse',
    lastUserText: body => {
        const input = (body as Json)?.input;
        return typeof input === 'string' ? input : lastUserMessage(input);
    }
};

export const GEMINI: FakeProtocol = {
    name: 'gemini', method: 'POST', path: /\/models\/[^/]+:streamGenerateContent$/, contentType: sse,
    splitRecords: splitSseEvents, defaultFixture: 'gemini/text.sse',
    lastUserText: body => lastUserMessage((body as Json)?.contents, 'parts')
};

export const OLLAMA_CHAT: FakeProtocol = {
    name: 'ollama-chat', method: 'POST', path: /\/api\/chat$/, contentType: 'application/x-ndjson',
    splitRecords: splitNdjsonLines, defaultFixture: 'ollama-chat/text.ndjson',
    lastUserText: body => lastUserMessage((body as Json)?.messages)
};

export const OLLAMA_GENERATE: FakeProtocol = {
    name: 'ollama-generate', method: 'POST', path: /\/api\/generate$/, contentType: 'application/x-ndjson',
    splitRecords: splitNdjsonLines, defaultFixture: 'ollama-generate/fim.ndjson',
    lastUserText: body => contentText((body as Json)?.prompt)
};

export const MISTRAL_FIM: FakeProtocol = {
    name: 'mistral-fim', method: 'POST', path: /\/v1\/fim\/completions$/, contentType: sse,
    splitRecords: splitSseEvents, defaultFixture: 'mistral-fim/fim.sse',
    lastUserText: body => contentText((body as Json)?.prompt)
};

export const LLAMACPP_INFILL: FakeProtocol = {
    name: 'llamacpp-infill', method: 'POST', path: /\/infill$/, contentType: sse,
    splitRecords: splitSseEvents, defaultFixture: 'llamacpp-infill/fim.sse',
    lastUserText: body => contentText((body as Json)?.input_prefix)
};

function modelListing(name: string, path: RegExp, fixture: string, requiresHeader?: string): FakeProtocol {
    return {
        name, method: 'GET', path, contentType: 'application/json', splitRecords: whole,
        defaultFixture: fixture, lastUserText: () => undefined, requiresHeader
    };
}

export const MODEL_LISTINGS: readonly FakeProtocol[] = [
    modelListing('ollama-tags', /\/api\/tags$/, 'models/ollama-tags.json'),
    modelListing('gemini-models', /\/v1beta\/models$/, 'models/gemini-models.json'),
    modelListing('anthropic-models', /\/v1\/models$/, 'models/anthropic-models.json', 'anthropic-version'),
    modelListing('openai-models', /\/models$/, 'models/openai-models.json')
];

export const BUILTIN_PROTOCOLS: readonly FakeProtocol[] = [
    OPENAI_CHAT, ANTHROPIC_MESSAGES, OPENAI_RESPONSES, GEMINI, OLLAMA_CHAT, OLLAMA_GENERATE, MISTRAL_FIM, LLAMACPP_INFILL,
    ...MODEL_LISTINGS
];
