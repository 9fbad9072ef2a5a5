/**
 * How the fake server speaks one wire protocol: which requests it answers and how a
 * recorded stream is cut into records for paced replay. Later protocols (Anthropic,
 * Responses, Gemini, Ollama NDJSON, FIM endpoints) plug in as more entries.
 */
export interface FakeProtocol {
    name: string;
    method: 'GET' | 'POST';
    path: RegExp;
    contentType: string;
    /** Splits a recording into the units sent one per tick (SSE events or NDJSON lines), each with its terminator. */
    splitRecords(recording: string): string[];
    /** The text of the last user message in a request body, so rules can match the turn rather than the whole history. */
    lastUserText(body: unknown): string | undefined;
}

export function splitSseEvents(recording: string): string[] {
    const normalized = recording.replace(/\r\n/g, '\n');
    return normalized.split(/(?<=\n\n)/).filter(part => part.trim().length > 0);
}

export function splitNdjsonLines(recording: string): string[] {
    return recording.split(/(?<=\n)/).filter(line => line.trim().length > 0);
}

interface ChatMessageBody {
    messages?: Array<{ role?: string; content?: unknown }>;
}

/** Text of a message whose content is a string or a list of `{type:'text', text}` parts. */
function contentText(content: unknown): string {
    if (typeof content === 'string') {
        return content;
    }
    if (Array.isArray(content)) {
        return content.map(part => (part && typeof part === 'object' && typeof part.text === 'string') ? part.text : '').join('');
    }
    return '';
}

export const OPENAI_CHAT: FakeProtocol = {
    name: 'openai-chat',
    method: 'POST',
    path: /\/chat\/completions$/,
    contentType: 'text/event-stream',
    splitRecords: splitSseEvents,
    lastUserText: body => {
        const messages = (body as ChatMessageBody | undefined)?.messages ?? [];
        const last = [...messages].reverse().find(message => message.role === 'user');
        return last ? contentText(last.content) : undefined;
    }
};

export const BUILTIN_PROTOCOLS: readonly FakeProtocol[] = [OPENAI_CHAT];
