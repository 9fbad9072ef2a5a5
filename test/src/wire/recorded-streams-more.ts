import { RecordedStream } from './recorded-streams';

const REFUSAL = 'I\'m sorry, but I can\'t help with that.';

/**
 * Documented stream shapes that decoders once dropped: mid-stream errors in the provider's words,
 * refusals, stops other than a normal end, and Vertex's streamed function-call arguments.
 * A summary keeps only an error's category, so the error cases here pin the category, not the words.
 */
export const MORE_SHAPES: RecordedStream[] = [
    {
        protocol: 'openai-responses', fixture: 'openai-responses/error-event.sse', expected: { text: 'Partial', error: 'Provider' },
        errorSays: 'Rate limit reached for gpt-5-mini'
    },
    {
        protocol: 'openai-responses', fixture: 'openai-responses/error-nested.sse', expected: { text: '', error: 'Provider' },
        errorSays: 'You exceeded your current quota'
    },
    {
        protocol: 'openai-responses', fixture: 'openai-responses/incomplete-max-tokens.sse',
        expected: {
            text: 'To reverse a string in TypeScript, split it into characters and',
            usage: { inputTokens: 30, outputTokens: 16, cachedTokens: 0, reasoningTokens: 0 }, stop: 'max_tokens (max_output_tokens)'
        }
    },
    {
        protocol: 'openai-responses', fixture: 'openai-responses/incomplete-content-filter.sse',
        expected: { text: 'Here is the lyric you asked for:', usage: { inputTokens: 25, outputTokens: 9, cachedTokens: 0, reasoningTokens: 0 }, stop: 'content_filter' }
    },
    {
        protocol: 'openai-responses', fixture: 'openai-responses/refusal.sse',
        expected: { text: REFUSAL, usage: { inputTokens: 41, outputTokens: 12, cachedTokens: 0, reasoningTokens: 0 }, stop: 'content_filter (refusal)' }
    },
    {
        protocol: 'gemini', fixture: 'gemini/streamed-function-call.sse',
        expected: {
            text: 'Let me look.',
            toolCalls: [
                { callId: 'read_file_0', name: 'read_file', arguments: { path: 'src/main.ts', range: { start: 10, end: 40 } } },
                { callId: 'search_project_1', name: 'search_project', arguments: { query: 'TODO', case_sensitive: false, paths: ['src', 'test'], limit: null } }
            ],
            usage: { inputTokens: 310, outputTokens: 172, reasoningTokens: 120 }, stop: 'tool_use'
        }
    },
    {
        protocol: 'gemini', fixture: 'gemini/max-tokens.sse',
        expected: { text: 'Here is a long explanation of closures in', usage: { inputTokens: 11, outputTokens: 8 }, stop: 'max_tokens' }
    },
    {
        protocol: 'gemini', fixture: 'gemini/safety.sse',
        expected: { text: 'To take the lock apart,', usage: { inputTokens: 14, outputTokens: 6 }, stop: 'content_filter (SAFETY)' }
    },
    {
        protocol: 'gemini', fixture: 'gemini/recitation.sse',
        expected: { text: 'The licence text begins:', usage: { inputTokens: 16, outputTokens: 5 }, stop: 'content_filter (RECITATION)' }
    },
    {
        protocol: 'gemini', fixture: 'gemini/malformed-function-call.sse',
        expected: { text: 'I\'ll update the file.', usage: { inputTokens: 290, outputTokens: 7 }, stop: 'other (MALFORMED_FUNCTION_CALL)' }
    },
    {
        protocol: 'openai-chat', fixture: 'openai-chat/refusal.sse',
        expected: {
            text: 'I\'m sorry, but I can\'t assist with that request.',
            usage: { inputTokens: 40, outputTokens: 10, cachedTokens: 0, reasoningTokens: 0 }, stop: 'content_filter (refusal)'
        }
    }
];
