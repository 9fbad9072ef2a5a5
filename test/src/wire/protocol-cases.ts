import { RequestBody, WireProtocolName } from '@qodeassist/core';

/** How a test talks to one protocol on the fake server: endpoint, a realistic first request, and its recordings. */
export interface ProtocolCase {
    protocol: WireProtocolName;
    /** Endpoint path below the fake server's URL. */
    path: string;
    headers: Record<string, string>;
    body: RequestBody;
    textFixture: string;
    toolFixture?: string;
    /** A broken record in this protocol's framing. */
    malformedRecord: string;
}

const TASK = 'Check src/main.ts and look for TODOs.';
const SYSTEM = 'You are a careful coding assistant.';
const READ_FILE = {
    name: 'read_file', description: 'Read a file of the project.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
};
const SEARCH = {
    name: 'search_project', description: 'Search the project for text.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, case_sensitive: { type: 'boolean' } }, required: ['query'] }
};
const openAITools = [READ_FILE, SEARCH].map(fn => ({ type: 'function', function: fn }));
const SSE_MALFORMED = 'data: {"broken": tru\n\n';

export const PROTOCOL_CASES: ProtocolCase[] = [
    {
        protocol: 'openai-chat', path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-test-secret-openai' },
        body: {
            model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true },
            messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }], tools: openAITools
        },
        textFixture: 'openai-chat/text.sse', toolFixture: 'openai-chat/reasoning-tool-calls.sse', malformedRecord: SSE_MALFORMED
    },
    {
        protocol: 'anthropic-messages', path: '/v1/messages',
        headers: { 'x-api-key': 'sk-ant-test-secret', 'anthropic-version': '2023-06-01' },
        body: {
            model: 'claude-sonnet-4-5', max_tokens: 8192, stream: true, system: SYSTEM,
            messages: [{ role: 'user', content: [{ type: 'text', text: TASK }] }],
            tools: [READ_FILE, SEARCH].map(({ parameters, ...rest }) => ({ ...rest, input_schema: parameters }))
        },
        textFixture: 'anthropic-messages/text.sse', toolFixture: 'anthropic-messages/tool-calls.sse', malformedRecord: 'event: content_block_delta\ndata: {"type":\n\n'
    },
    {
        protocol: 'openai-responses', path: '/v1/responses', headers: { authorization: 'Bearer sk-test-secret-responses' },
        body: {
            model: 'gpt-5-mini', stream: true, store: false, include: ['reasoning.encrypted_content'], instructions: SYSTEM,
            input: [{ role: 'user', content: TASK }], tools: [READ_FILE, SEARCH].map(fn => ({ type: 'function', ...fn }))
        },
        textFixture: 'openai-responses/text.sse', toolFixture: 'openai-responses/tool-calls.sse', malformedRecord: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":\n\n'
    },
    {
        protocol: 'gemini', path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', headers: { 'x-goog-api-key': 'AIza-test-secret' },
        body: {
            systemInstruction: { parts: [{ text: SYSTEM }] },
            contents: [{ role: 'user', parts: [{ text: TASK }] }],
            tools: [{ functionDeclarations: [READ_FILE, SEARCH] }]
        },
        textFixture: 'gemini/text.sse', toolFixture: 'gemini/tool-calls.sse', malformedRecord: 'data: {"candidates": [\r\n\r\n'
    },
    {
        protocol: 'ollama-chat', path: '/api/chat', headers: {},
        body: { model: 'qwen3:8b', stream: true, messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }], tools: openAITools },
        textFixture: 'ollama-chat/text.ndjson', toolFixture: 'ollama-chat/tool-calls.ndjson', malformedRecord: '{"message": {"content": "x"\n'
    },
    {
        protocol: 'ollama-generate', path: '/api/generate', headers: {},
        body: { model: 'qwen2.5-coder:7b', prompt: 'function reverse(text: string) {\n', suffix: '\n}\n', stream: true, raw: false },
        textFixture: 'ollama-generate/fim.ndjson', malformedRecord: '{"response": \n'
    },
    {
        protocol: 'mistral-fim', path: '/v1/fim/completions', headers: { authorization: 'Bearer mistral-test-secret' },
        body: { model: 'codestral-latest', prompt: 'function reverse(text: string) {\n', suffix: '\n}\n', stream: true, max_tokens: 256 },
        textFixture: 'mistral-fim/fim.sse', malformedRecord: SSE_MALFORMED
    },
    {
        protocol: 'llamacpp-infill', path: '/infill', headers: {},
        body: { input_prefix: 'function reverse(text: string) {\n', input_suffix: '\n}\n', input_extra: [], stream: true, n_predict: 128 },
        textFixture: 'llamacpp-infill/fim.sse', malformedRecord: SSE_MALFORMED
    }
];
