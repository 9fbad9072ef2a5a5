import * as assert from 'node:assert/strict';
import { readServerSentEvents } from './sse-reader';

async function collect(chunks: string[] | Uint8Array[]): Promise<Array<{ event?: string; data: string }>> {
    const encoder = new TextEncoder();
    async function* source(): AsyncGenerator<Uint8Array> {
        for (const chunk of chunks) {
            yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
        }
    }
    const out: Array<{ event?: string; data: string }> = [];
    for await (const batch of readServerSentEvents(source())) {
        for (const message of batch) {
            out.push(message.event ? { event: message.event, data: message.data } : { data: message.data });
        }
    }
    return out;
}

describe('readServerSentEvents', () => {
    it('yields one message per event with its name and data', async () => {
        const messages = await collect(['event: ping\ndata: {}\n\ndata: {"a":1}\n\n']);
        assert.deepEqual(messages, [{ event: 'ping', data: '{}' }, { data: '{"a":1}' }]);
    });

    it('reassembles an event split inside a multi-byte UTF-8 character', async () => {
        const bytes = new TextEncoder().encode('data: "héllo – wörld"\n\n');
        const cut = bytes.indexOf(0xc3) + 1;
        const messages = await collect([bytes.slice(0, cut), bytes.slice(cut)]);
        assert.deepEqual(messages, [{ data: '"héllo – wörld"' }]);
    });

    it('delivers a last event that lacks the closing blank line', async () => {
        assert.deepEqual(await collect(['data: first\n\n', 'data: last\n']), [{ data: 'first' }, { data: 'last' }]);
    });

    it('ignores comments and joins multi-line data', async () => {
        assert.deepEqual(await collect([': keep-alive\n\ndata: a\ndata: b\n\n']), [{ data: 'a\nb' }]);
    });
});
