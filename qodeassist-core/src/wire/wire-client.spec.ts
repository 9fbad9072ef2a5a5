import * as assert from 'node:assert/strict';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ErrorInfo } from './error-info';
import { ResponseEvent } from './events';
import { HostModelPart, HostModelRequest, HostModels } from './host-models';
import { NOT_RUN_RESULT, streamWire } from './wire-client';
import { WIRE_PROTOCOLS } from './wire-protocols';

/** The IDE's models answering with these batches of parts. */
function host(batches: HostModelPart[][]): HostModels {
    return {
        list: async () => [],
        async *stream(): AsyncGenerator<HostModelPart[]> {
            yield* batches;
        }
    };
}

const body: HostModelRequest = { model: 'openai/gpt-test', messages: [{ actor: 'user', type: 'text', text: 'hi' }] };

async function events(hostModels: HostModels, limits: { maxRecordBytes?: number; maxAnswerBytes?: number }): Promise<ResponseEvent[]> {
    const out: ResponseEvent[] = [];
    for await (const batch of streamWire(WIRE_PROTOCOLS['theia-language-model'], { requestId: 'r', url: 'theia:', headers: {}, body, hostModels, ...limits })) {
        out.push(...batch);
    }
    return out;
}

function texts(list: ResponseEvent[]): string[] {
    return list.flatMap(event => event.type === 'TextDelta' ? [event.text] : []);
}

function failure(list: ResponseEvent[]): ErrorInfo {
    const last = list.at(-1);
    assert.equal(last?.type, 'Error');
    return (last as { error: ErrorInfo }).error;
}

describe('streamWire: the size limits on the IDE\'s own models', () => {
    it('a part longer than max_record_bytes ends the answer after the parts before it', async () => {
        const list = await events(host([[{ type: 'text', text: 'one' }, { type: 'text', text: 'x'.repeat(500) }, { type: 'text', text: 'three' }]]), { maxRecordBytes: 200 });
        assert.deepEqual(texts(list), ['one']);
        assert.match(failure(list).message, /^The provider sent a record .* longer than 200 bytes \(the max_record_bytes limit\)/);
    });

    it('parts past max_answer_bytes end the answer, the parts within it kept', async () => {
        const batches = Array.from({ length: 100 }, (_, index): HostModelPart[] => [{ type: 'text', text: `part ${index} ` }]);
        const list = await events(host([...batches, [{ type: 'end', reason: 'end_turn' }]]), { maxAnswerBytes: 1024 });
        const kept = texts(list);
        assert.deepEqual(kept, batches.slice(0, kept.length).map(batch => (batch[0] as { text: string }).text));
        assert.ok(kept.length > 10 && kept.length < 100, `${kept.length} parts kept`);
        assert.equal(failure(list).message, 'The answer grew past 1 KiB (the max_answer_bytes limit), so it was stopped; what arrived before it is kept. '
            + 'To allow longer answers, raise [limits] max_answer_bytes in the agent\'s file or the setting qodeassist.limits.maxAnswerBytes.');
    });

    it('an answer within both limits is not touched', async () => {
        const list = await events(host([[{ type: 'text', text: 'hello' }], [{ type: 'end', reason: 'end_turn' }]]), { maxRecordBytes: 200, maxAnswerBytes: 1024 });
        assert.deepEqual(texts(list), ['hello']);
        assert.equal(list.at(-1)?.type, 'MessageStop');
    });
});

describe('streamWire: an answer that breaks off inside a tool call', () => {
    const records = [
        { type: 'message_start', message: { content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Reading.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"src/ma' } }
    ];
    let server: Server;
    let url: string;
    before(async () => {
        // The connection breaks inside the tool_use block.
        server = createServer((request, response) => {
            request.resume();
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            response.write(records.map(record => `event: ${record.type}\ndata: ${JSON.stringify(record)}\n\n`).join(''), () => response.socket?.destroy());
        });
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
    });
    after(() => new Promise(resolve => server.close(resolve)));

    it('closes the call as not run (a ToolResult error) before the error, and never ends it', async () => {
        const list: ResponseEvent[] = [];
        for await (const batch of streamWire(WIRE_PROTOCOLS['anthropic-messages'], { requestId: 'r', url, headers: {}, body: {}, retry: { maxAttempts: 1 } })) {
            list.push(...batch);
        }
        assert.deepEqual(texts(list), ['Reading.']);
        assert.deepEqual(list.filter(event => event.type.startsWith('Tool')).map(event => event.type), ['ToolCallStart', 'ToolResult']);
        assert.deepEqual(list.find(event => event.type === 'ToolResult'), { type: 'ToolResult', requestId: 'r', callId: 'toolu_1', name: 'read_file', content: NOT_RUN_RESULT, isError: true });
        assert.equal(failure(list).category, 'Network');
    });
});
