import { WireProtocolName } from '@qodeassist/core';
import { StreamSummary } from './stream-summary';

export interface RecordedStream {
    protocol: WireProtocolName;
    fixture: string;
    expected: StreamSummary;
    /** Words of the provider's error the user must see (the summary keeps only its category). */
    errorSays?: string;
}

const READ_AND_SEARCH = [
    { name: 'read_file', arguments: { path: 'src/main.ts' } },
    { name: 'search_project', arguments: { query: 'TODO', case_sensitive: false } }
];
const withIds = (ids: string[]) => READ_AND_SEARCH.map((call, i) => ({ callId: ids[i], ...call }));
const GREETING = 'Hello! How can I help you today?';

/** Every recorded stream in test/fixtures and exactly what it must decode to. */
export const RECORDED_STREAMS: RecordedStream[] = [
    {
        protocol: 'openai-chat', fixture: 'openai-chat/text.sse',
        expected: { text: GREETING, usage: { inputTokens: 12, outputTokens: 9, cachedTokens: 0, reasoningTokens: 0 }, stop: 'end_turn' }
    },
    {
        protocol: 'openai-chat', fixture: 'openai-chat/reasoning-tool-calls.sse',
        expected: {
            text: '', thinking: 'The userwants the weather in two cities.',
            toolCalls: [
                { callId: 'call_a1', name: 'get_weather', arguments: { city: 'Paris' } },
                { callId: 'call_b2', name: 'get_weather', arguments: { city: 'Berlin – Mitte' } }
            ],
            usage: { inputTokens: 80, outputTokens: 30, cachedTokens: 64, reasoningTokens: 11 }, stop: 'tool_use'
        }
    },
    { protocol: 'openai-chat', fixture: 'openai-chat/error.sse', expected: { text: 'Partial', error: 'Provider' } },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/text.sse',
        expected: { text: GREETING, usage: { inputTokens: 25, outputTokens: 12, cachedTokens: 0 }, stop: 'end_turn' }
    },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/thinking.sse',
        expected: {
            text: '2 + 2 = 4.', thinking: 'The user asks for 2+2, which is 4.',
            signatures: ['EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds'],
            usage: { inputTokens: 70, outputTokens: 48, cachedTokens: 30 }, stop: 'end_turn'
        }
    },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/tool-calls.sse',
        expected: {
            text: 'I\'ll check both files.', toolCalls: withIds(['toolu_01A', 'toolu_01B']),
            usage: { inputTokens: 320, outputTokens: 89, cachedTokens: 0 }, stop: 'tool_use'
        }
    },
    { protocol: 'anthropic-messages', fixture: 'anthropic-messages/error.sse', expected: { text: 'Partial', error: 'Provider' } },
    {
        protocol: 'openai-responses', fixture: 'openai-responses/text.sse',
        expected: { text: GREETING, usage: { inputTokens: 22, outputTokens: 11, cachedTokens: 0, reasoningTokens: 0 }, stop: 'end_turn' }
    },
    {
        protocol: 'openai-responses', fixture: 'openai-responses/tool-calls.sse',
        expected: {
            text: '', thinking: '**Planning reads**\n\nRead the file, then search.', signatures: ['gAAAAABoENCRYPTEDreasoning=='],
            toolCalls: withIds(['call_R1', 'call_R2']),
            usage: { inputTokens: 410, outputTokens: 96, cachedTokens: 256, reasoningTokens: 64 }, stop: 'tool_use'
        }
    },
    { protocol: 'openai-responses', fixture: 'openai-responses/error.sse', expected: { text: 'Partial', error: 'Provider' } },
    {
        protocol: 'gemini', fixture: 'gemini/text.sse',
        expected: { text: GREETING, usage: { inputTokens: 9, outputTokens: 10 }, stop: 'end_turn' }
    },
    {
        protocol: 'gemini', fixture: 'gemini/thinking.sse',
        expected: {
            text: '2 + 2 = 4.', thinking: '**Adding numbers**\n\nThe user asks for 2+2.', signatures: ['CiIBVKhc7oGsig=='],
            usage: { inputTokens: 12, outputTokens: 38, cachedTokens: 4, reasoningTokens: 30 }, stop: 'end_turn'
        }
    },
    {
        protocol: 'gemini', fixture: 'gemini/tool-calls.sse',
        expected: {
            text: 'I\'ll check both.', toolCalls: withIds(['read_file_0', 'search_project_1']),
            usage: { inputTokens: 300, outputTokens: 40 }, stop: 'tool_use'
        }
    },
    { protocol: 'gemini', fixture: 'gemini/error.sse', expected: { text: 'Partial', error: 'Provider' } },
    {
        protocol: 'ollama-chat', fixture: 'ollama-chat/text.ndjson',
        expected: { text: GREETING, usage: { inputTokens: 26, outputTokens: 10 }, stop: 'end_turn' }
    },
    {
        protocol: 'ollama-chat', fixture: 'ollama-chat/thinking.ndjson',
        expected: { text: '2 + 2 = 4.', thinking: 'The user asks for 2+2.', usage: { inputTokens: 18, outputTokens: 21 }, stop: 'end_turn' }
    },
    {
        protocol: 'ollama-chat', fixture: 'ollama-chat/tool-calls.ndjson',
        expected: {
            text: '', thinking: 'Need two tools.', toolCalls: withIds(['call_0', 'call_1']),
            usage: { inputTokens: 280, outputTokens: 35 }, stop: 'tool_use'
        }
    },
    { protocol: 'ollama-chat', fixture: 'ollama-chat/error.ndjson', expected: { text: 'Partial', error: 'Provider' } },
    {
        protocol: 'ollama-generate', fixture: 'ollama-generate/fim.ndjson',
        expected: { text: '    return [...text].reverse().join(\'\');', usage: { inputTokens: 64, outputTokens: 12 }, stop: 'end_turn' }
    },
    {
        protocol: 'ollama-generate', fixture: 'ollama-generate/length.ndjson',
        expected: { text: '    const a = 1;\n    const b = 2;\n', usage: { inputTokens: 64, outputTokens: 8 }, stop: 'max_tokens' }
    },
    {
        protocol: 'mistral-fim', fixture: 'mistral-fim/fim.sse',
        expected: { text: '    return [...text].reverse().join(\'\');', usage: { inputTokens: 48, outputTokens: 12 }, stop: 'end_turn' }
    },
    {
        protocol: 'llamacpp-infill', fixture: 'llamacpp-infill/fim.sse',
        expected: { text: '    return [...text].reverse().join(\'\');', usage: { inputTokens: 70, outputTokens: 12 }, stop: 'end_turn' }
    },
    { protocol: 'llamacpp-infill', fixture: 'llamacpp-infill/error.sse', expected: { text: '', error: 'Provider' } }
];
