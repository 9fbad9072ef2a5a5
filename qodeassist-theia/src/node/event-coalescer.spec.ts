import * as assert from 'node:assert/strict';
import type { SessionEvent } from '@qodeassist/core';
import { EventCoalescer, LatestValueThrottle } from './event-coalescer';

const text = (value: string, requestId = 'r1'): SessionEvent => ({ type: 'TextDelta', requestId, text: value });
const thinking = (value: string, signature?: string): SessionEvent => ({ type: 'ThinkingDelta', requestId: 'r1', text: value, ...(signature ? { signature } : {}) });

/** A clock the test moves by hand; the coalescer's timer is real but never reached unless the test waits. */
function harness(intervalMs = 30) {
    let clock = 1_000;
    const sent: SessionEvent[][] = [];
    const coalescer = new EventCoalescer<SessionEvent>(events => sent.push(events), intervalMs, () => clock);
    return { coalescer, sent, advance: (ms: number) => { clock += ms; } };
}

describe('EventCoalescer: deltas travel together, everything else at once', () => {
    it('sends the first delta at once, holds the next ones within the interval and joins them', () => {
        const { coalescer, sent, advance } = harness();
        coalescer.push([text('Hel')]);
        assert.deepEqual(sent, [[text('Hel')]], 'the first token is not delayed');
        advance(10);
        coalescer.push([text('lo')]);
        advance(10);
        coalescer.push([text(', wor'), text('ld')]);
        assert.equal(sent.length, 1, 'held within the interval');
        coalescer.flush();
        assert.deepEqual(sent[1], [text('lo, world')]);
        coalescer.dispose();
    });

    const joins: Array<{ name: string; events: SessionEvent[]; expected: SessionEvent[] }> = [
        { name: 'text after text of one request', events: [text('a'), text('b'), text('c')], expected: [text('abc')] },
        { name: 'not across requests', events: [text('a', 'r1'), text('b', 'r2')], expected: [text('a', 'r1'), text('b', 'r2')] },
        { name: 'not text into thinking', events: [thinking('t'), text('a'), text('b')], expected: [thinking('t'), text('ab')] },
        { name: 'thinking keeps the signature of its last delta', events: [thinking('x'), thinking('y', 'sig-1')], expected: [thinking('xy', 'sig-1')] },
        { name: 'not past a signature, which closes a thinking block', events: [thinking('x', 'sig-1'), thinking('y')], expected: [thinking('x', 'sig-1'), thinking('y')] }
    ];
    for (const { name, events, expected } of joins) {
        it(`joins ${name}`, () => {
            const { coalescer, sent, advance } = harness();
            coalescer.push([text('first', 'r0')]);
            advance(1);
            coalescer.push(events);
            coalescer.flush();
            assert.deepEqual(sent.slice(1), [expected]);
        });
    }

    it('sends any other event at once, after the deltas held before it, and keeps their order', () => {
        const { coalescer, sent, advance } = harness();
        coalescer.push([{ type: 'RequestStarted', requestId: 'r1' }]);
        advance(5);
        coalescer.push([text('Let me look.')]);
        advance(5);
        coalescer.push([text(' Reading'), { type: 'ToolCallStart', requestId: 'r1', callId: 'c1', name: 'read_file' }]);
        advance(5);
        coalescer.push([text('Done')]);
        coalescer.push([{ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' }]);
        assert.deepEqual(sent, [
            [{ type: 'RequestStarted', requestId: 'r1' }],
            [text('Let me look. Reading'), { type: 'ToolCallStart', requestId: 'r1', callId: 'c1', name: 'read_file' }],
            [text('Done'), { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' }]
        ]);
    });

    it('sends held deltas when the interval is over, without another push', async () => {
        const sent: SessionEvent[][] = [];
        const coalescer = new EventCoalescer<SessionEvent>(events => sent.push(events), 5);
        coalescer.push([text('a')]);
        coalescer.push([text('b')]);
        assert.equal(sent.length, 1);
        for (let i = 0; i < 100 && sent.length < 2; i++) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        assert.deepEqual(sent, [[text('a')], [text('b')]]);
    });

    it('drops what it holds when disposed, and sends nothing afterwards', async () => {
        const sent: SessionEvent[][] = [];
        const coalescer = new EventCoalescer<SessionEvent>(events => sent.push(events), 5);
        coalescer.push([text('a')]);
        coalescer.push([text('b')]);
        coalescer.dispose();
        coalescer.push([{ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' }]);
        await new Promise(resolve => setTimeout(resolve, 20));
        assert.deepEqual(sent, [[text('a')]]);
    });
});

describe('LatestValueThrottle: the newest value, at most once per interval', () => {
    it('sends the first at once, then only the latest of an interval, and nothing held after flush or dispose', async () => {
        let clock = 0;
        const sent: string[] = [];
        const throttle = new LatestValueThrottle<string>(value => sent.push(value), 30, () => clock);
        throttle.push('a');
        assert.deepEqual(sent, ['a']);
        clock += 10;
        throttle.push('ab');
        clock += 10;
        throttle.push('abc');
        assert.deepEqual(sent, ['a'], 'held within the interval');
        throttle.flush();
        assert.deepEqual(sent, ['a', 'abc'], 'the latest only');
        throttle.flush();
        assert.deepEqual(sent, ['a', 'abc'], 'nothing twice');
        clock += 100;
        throttle.push('abcd');
        assert.deepEqual(sent, ['a', 'abc', 'abcd'], 'after a quiet interval, at once');
        clock += 1;
        throttle.push('abcde');
        throttle.dispose();
        await new Promise(resolve => setTimeout(resolve, 50));
        assert.deepEqual(sent, ['a', 'abc', 'abcd']);
    });

    it('sends a held value when the interval ends, without another push', async () => {
        const sent: number[] = [];
        const throttle = new LatestValueThrottle<number>(value => sent.push(value), 5);
        throttle.push(1);
        throttle.push(2);
        throttle.push(3);
        for (let i = 0; i < 100 && sent.length < 2; i++) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        assert.deepEqual(sent, [1, 3]);
    });
});
