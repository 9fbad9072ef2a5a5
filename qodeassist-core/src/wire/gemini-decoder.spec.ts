import * as assert from 'node:assert/strict';
import { ResponseEvent } from './events';
import { WIRE_PROTOCOLS } from './wire-protocols';

/** One Vertex chunk carrying a function-call fragment. */
const chunk = (functionCall: Record<string, unknown>) => JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall }] } }] });

function decodeAll(chunks: string[]): ResponseEvent[] {
    const decoder = WIRE_PROTOCOLS.gemini.createDecoder('r1');
    return [...chunks.flatMap(text => decoder.decode(text)), ...decoder.finish()];
}

describe('Gemini streamed function-call arguments from a hostile model', () => {
    it('never writes through a path to a prototype', () => {
        const events = decodeAll([
            chunk({ name: 'read_file', partialArgs: [{ jsonPath: '$.__proto__.polluted', stringValue: 'yes' }], willContinue: true }),
            chunk({ partialArgs: [{ jsonPath: '$.path', stringValue: 'a.ts' }] }),
            JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP' }] })
        ]);
        const end = events.find(event => event.type === 'ToolCallEnd');
        assert.ok(end?.type === 'ToolCallEnd');
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
        assert.equal(end.arguments.path, 'a.ts');
        assert.equal(Object.getPrototypeOf(end.arguments), Object.prototype);
    });

    it('refuses an array index far past the end (a huge sparse array) with a Provider error', () => {
        assert.throws(() => decodeAll([chunk({ name: 'x', partialArgs: [{ jsonPath: '$.a[4294967294]', stringValue: 'v' }] })]),
            /array index past 10000/);
    });
});
