import * as assert from 'node:assert/strict';
import { ErrorInfo } from './error-info';
import { ResponseEvent } from './events';
import { HostModelPart, HostModelRequest, HostModels } from './host-models';
import { streamWire } from './wire-client';
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
