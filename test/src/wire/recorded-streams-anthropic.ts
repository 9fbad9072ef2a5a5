import { RecordedStream } from './recorded-streams';

const READ_MAIN = { name: 'read_file', arguments: { path: 'src/main.ts' } };
const SEARCH_TODO = { name: 'search_project', arguments: { query: 'TODO', case_sensitive: false } };
const PLAN_CUT = 'Here is the plan:\n1. Parse the config file\n2. Val';

/** Claude stream shapes the Messages docs describe beyond plain deltas, and exactly what each must decode to. */
export const ANTHROPIC_SHAPES: RecordedStream[] = [
    {
        // tool_use blocks that start with their whole input: no deltas, or only an empty one.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/tool-input-in-start.sse',
        expected: {
            text: 'I\'ll check both files.',
            toolCalls: [{ callId: 'toolu_01WhA9sKq2xBTm4', ...READ_MAIN }, { callId: 'toolu_01WhB3nLr8yCUp7', ...SEARCH_TODO }],
            usage: { inputTokens: 318, outputTokens: 87, cachedTokens: 0 }, stop: 'tool_use'
        }
    },
    {
        // The whole message, stop reason included, inside message_start; no content_block events.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/message-start-content.sse',
        expected: {
            text: 'I\'ll check both files.',
            toolCalls: [{ callId: 'toolu_01FsA6dPz3kQw8', ...READ_MAIN }, { callId: 'toolu_01FsB2hXc7mRt5', ...SEARCH_TODO }],
            usage: { inputTokens: 320, outputTokens: 89, cachedTokens: 0 }, stop: 'tool_use'
        }
    },
    {
        // Signed and redacted thinking delivered whole in message_start; message_delta still updates usage.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/message-start-thinking.sse',
        expected: {
            text: '2 + 2 = 4.', thinking: 'The user asks for 2+2, which is 4.',
            signatures: ['EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds'],
            usage: { inputTokens: 70, outputTokens: 48, cachedTokens: 30 }, stop: 'end_turn'
        }
    },
    {
        // A provider-run web search reported as marked lines, cited text kept whole, and the client call after it exact.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/web-search.sse',
        expected: {
            text: 'I\'ll look up the current release notes.\n'
                + '[Provider tool web_search: {"query":"TypeScript 5.9 release notes"}]\n'
                + '[web_search results: 3 items]\n'
                + 'TypeScript 5.9 supports deferred module evaluation with `import defer`.'
                + ' Let me look for deferred imports in your project.',
            toolCalls: [{ callId: 'toolu_01Ws5kJd2TqMv9', name: 'search_project', arguments: { query: 'import defer', case_sensitive: true } }],
            usage: { inputTokens: 2679, outputTokens: 212, cachedTokens: 0 }, stop: 'tool_use'
        }
    },
    {
        // Streamed and whole server_tool_use inputs, a search that failed, and a turn the server paused.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/web-search-paused.sse',
        expected: {
            text: 'Searching for the changelog.\n'
                + '[Provider tool web_search: {"query":"eventsource-parser 3.0 changelog"}]\n'
                + '[web_search results: 2 items]\n'
                + '[Provider tool web_search: {"query":"eventsource-parser 3.0 breaking changes"}]\n'
                + '[web_search error: unavailable]\n',
            usage: { inputTokens: 2888, outputTokens: 143, cachedTokens: 1024 }, stop: 'other (pause_turn)'
        }
    },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/max-tokens.sse',
        expected: { text: PLAN_CUT, usage: { inputTokens: 52, outputTokens: 16, cachedTokens: 0 }, stop: 'max_tokens' }
    },
    {
        // The token limit cut a create_file call: its block ends with half its JSON, then max_tokens. The text stays; the call is never run.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/max-tokens-tool-call.sse',
        expected: { text: 'I\'ll write the new module now.', notRun: ['create_file'], error: 'Validation' },
        errorSays: 'reached its output token limit (max_tokens: 64 tokens) while the model was writing a call to the tool "create_file", so the call was cut short and not run'
    },
    {
        // The same with the tool_use block still open (no content_block_stop) when max_tokens arrives.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/max-tokens-tool-open.sse',
        expected: { text: '', notRun: ['edit_file'], error: 'Validation' },
        errorSays: 'Raise max_tokens in the [body] of the agent\'s file'
    },
    {
        // The connection ends inside a tool_use block, with no stop reason: a cut stream, the call closed as not run.
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/tool-call-stream-ends.sse',
        expected: { text: 'Reading it first.', notRun: ['read_file'], error: 'Network' },
        errorSays: 'closed the stream before finishing the answer'
    },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/context-window.sse',
        expected: {
            text: 'The full listing follows:\nexport const',
            usage: { inputTokens: 198431, outputTokens: 1569, cachedTokens: 0 }, stop: 'max_tokens (model_context_window_exceeded)'
        }
    },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/stop-sequence.sse',
        expected: { text: '<answer>The function returns 42', usage: { inputTokens: 61, outputTokens: 7, cachedTokens: 0 }, stop: 'stop_sequence' }
    },
    {
        protocol: 'anthropic-messages', fixture: 'anthropic-messages/refusal.sse',
        expected: {
            text: 'I can\'t help with that request.', usage: { inputTokens: 44, outputTokens: 6, cachedTokens: 0 },
            stop: 'content_filter (refusal)'
        }
    }
];
