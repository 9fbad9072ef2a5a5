import * as assert from 'node:assert/strict';
import { ChatTranscript } from './chat-transcript';

describe('ChatTranscript', () => {
    it('fills the pending answer from the events of its request', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('hi');
        assert.equal(transcript.apply({ type: 'RequestStarted', requestId: 'r1' }), false);
        assert.equal(transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'Hel' }), true);
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'lo' });
        transcript.apply({ type: 'ThinkingDelta', requestId: 'r1', text: 'hmm' });
        transcript.apply({ type: 'Usage', requestId: 'r1', inputTokens: 5, outputTokens: 2 });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        const [user, answer] = transcript.messages;
        assert.deepEqual([user.role, user.text], ['user', 'hi']);
        assert.deepEqual([answer.text, answer.thinking, answer.status], ['Hello', 'hmm', 'done']);
        assert.deepEqual(answer.usage, { inputTokens: 5, outputTokens: 2, cachedTokens: undefined, reasoningTokens: undefined });
        assert.equal(transcript.pending, undefined);
    });

    it('ignores events of another request', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('hi');
        transcript.apply({ type: 'RequestStarted', requestId: 'r2' });
        assert.equal(transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'stale' }), false);
        assert.equal(transcript.messages[1].text, '');
    });

    it('marks cancelled answers apart from failed ones and keeps the partial text', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('a');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'part' });
        transcript.apply({ type: 'Cancelled', requestId: 'r1' });
        transcript.beginTurn('b');
        transcript.apply({ type: 'RequestStarted', requestId: 'r2' });
        transcript.apply({ type: 'Failed', requestId: 'r2', error: { category: 'Auth', message: 'no' } });
        assert.deepEqual(transcript.messages.map(m => [m.role, m.status, m.text, m.error?.category]), [
            ['user', 'done', 'a', undefined], ['assistant', 'cancelled', 'part', undefined],
            ['user', 'done', 'b', undefined], ['assistant', 'failed', '', 'Auth']
        ]);
        assert.equal(transcript.lastUserText(), 'b');
    });
});
