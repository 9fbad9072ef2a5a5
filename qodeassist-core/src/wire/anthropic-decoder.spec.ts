import * as assert from 'node:assert/strict';
import { AnthropicDecoder } from './anthropic-decoder';
import { QodeAssistError } from './error-info';
import { ResponseEvent } from './events';

const MESSAGE_START = { type: 'message_start', message: { content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } };
const END = [{ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }, { type: 'message_stop' }];

function decodeAll(records: object[]): { events: ResponseEvent[]; decoder: AnthropicDecoder } {
    const decoder = new AnthropicDecoder('r1');
    const events = records.flatMap(record => decoder.decode(JSON.stringify(record)));
    return { events: [...events, ...decoder.finish()], decoder };
}

const block = (index: number, contentBlock: object) => [
    { type: 'content_block_start', index, content_block: contentBlock },
    { type: 'content_block_stop', index }
];
const textOf = (events: ResponseEvent[]) => events.flatMap(event => event.type === 'TextDelta' ? [event.text] : []).join('');

describe('AnthropicDecoder', () => {
    it('tool arguments that are not JSON with stop_reason tool_use are still the model\'s mistake (Provider), never a call', () => {
        const decoder = new AnthropicDecoder('r1');
        const events = [
            MESSAGE_START,
            { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } },
            { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path": src' } },
            { type: 'content_block_stop', index: 0 }
        ].flatMap(record => decoder.decode(JSON.stringify(record)));
        assert.ok(!events.some(event => event.type === 'ToolCallEnd'));
        assert.throws(() => decoder.decode(JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } })), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Provider' && /arguments for tool "read_file" that are not a JSON object/.test(error.info.message));
    });

    it('a call cut by the context window (model_context_window_exceeded) says so and is not run', () => {
        const decoder = new AnthropicDecoder('r1');
        [MESSAGE_START, { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_2', name: 'edit_file', input: {} } }]
            .forEach(record => decoder.decode(JSON.stringify(record)));
        assert.throws(() => decoder.decode(JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'model_context_window_exceeded' } })), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Validation'
            && error.info.message.startsWith('The answer filled the model\'s context window while the model was writing a call to the tool "edit_file", so the call was cut short and not run'));
    });

    it('takes a tool input from the deltas when any follow, even if the start carried one', () => {
        const { events } = decodeAll([
            MESSAGE_START,
            { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'stale.ts' } } },
            { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"src/main.ts"}' } },
            { type: 'content_block_stop', index: 0 },
            ...END
        ]);
        assert.deepEqual(events.filter(event => event.type === 'ToolCallEnd'), [
            { type: 'ToolCallEnd', requestId: 'r1', callId: 'toolu_1', name: 'read_file', arguments: { path: 'src/main.ts' } }
        ]);
    });

    it('replays provider-run tools, their results and citations exactly as sent, and keeps the reported lines in history', () => {
        const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'theia' } };
        const result = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://theia-ide.org', title: 'Theia', encrypted_content: 'Eq' }] };
        const citation = { type: 'web_search_result_location', cited_text: 'Theia is an IDE framework.', url: 'https://theia-ide.org', title: 'Theia', encrypted_index: 'Eo' };
        const { events, decoder } = decodeAll([
            MESSAGE_START, ...block(0, search), ...block(1, result),
            { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
            { type: 'content_block_delta', index: 2, delta: { type: 'citations_delta', citation } },
            { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'An IDE framework.' } },
            { type: 'content_block_stop', index: 2 },
            ...END
        ]);
        const text = '[Provider tool web_search: {"query":"theia"}]\n[web_search results: 1 item]\nAn IDE framework.';
        assert.equal(textOf(events), text);
        assert.ok(!events.some(event => event.type === 'ToolCallStart' || event.type === 'ToolCallEnd'));
        assert.deepEqual(decoder.turn().native, {
            role: 'assistant',
            content: [search, result, { type: 'text', text: 'An IDE framework.', citations: [citation] }]
        });
        assert.deepEqual(decoder.turn().blocks, [{ type: 'text', text }]);
    });

    it('labels other provider results by their tool: an error flag, an error code, a single object', () => {
        const { events } = decodeAll([
            MESSAGE_START,
            ...block(0, { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: true, content: [{ type: 'text', text: 'denied' }] }),
            ...block(1, { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_2', content: { type: 'web_fetch_tool_error', error_code: 'url_not_accessible' } }),
            ...block(2, { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_3', content: { type: 'code_execution_result', stdout: '4\n', stderr: '', return_code: 0 } }),
            ...END
        ]);
        assert.equal(textOf(events), '[mcp error]\n[web_fetch error: url_not_accessible]\n[code_execution result]\n');
    });

    it('shortens a long provider tool input to 200 characters of JSON', () => {
        const code = 'x'.repeat(300);
        const { events } = decodeAll([
            MESSAGE_START, ...block(0, { type: 'server_tool_use', id: 'srvtoolu_4', name: 'code_execution', input: { code } }), ...END
        ]);
        assert.equal(textOf(events), `[Provider tool code_execution: ${JSON.stringify({ code }).slice(0, 200)}…]\n`);
    });

    it('still shows text whose block was never started', () => {
        const { events, decoder } = decodeAll([
            MESSAGE_START,
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Orphan text.' } },
            { type: 'content_block_stop', index: 0 },
            ...END
        ]);
        assert.equal(textOf(events), 'Orphan text.');
        assert.deepEqual(decoder.turn().blocks, [{ type: 'text', text: 'Orphan text.' }]);
    });

    it('treats a filled message_start without message_stop as a cut stream', () => {
        const decoder = new AnthropicDecoder('r1');
        decoder.decode(JSON.stringify({ type: 'message_start', message: { content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn' } }));
        assert.throws(() => decoder.finish(), (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Network');
    });
});
