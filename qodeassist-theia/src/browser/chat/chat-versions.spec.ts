import * as assert from 'node:assert/strict';
import type { ChatBranchView } from '@qodeassist/core';
import { copyText, positionOf, versionsAfterEnd, versionsAt } from './chat-versions';
import { ChatTranscript } from './chat-transcript';

const version = (id: string, turn: number, part: 'question' | 'answer'): ChatBranchView =>
    ({ id, turn, part, reason: 'edit', createdAt: '2026-01-01T00:00:00Z', preview: id, messages: 2 });

describe('message actions', () => {
    const transcript = new ChatTranscript();
    transcript.restore([
        { role: 'user', blocks: [{ type: 'text', text: 'Q1' }] },
        { role: 'assistant', blocks: [{ type: 'thinking', text: 'hmm' }, { type: 'text', text: 'A1' }, { type: 'tool_use', id: 't', name: 'read_file', input: {} }] },
        { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 't', name: 'read_file', content: 'x', isError: false }] },
        { role: 'assistant', blocks: [{ type: 'text', text: ' and more' }] },
        { role: 'user', blocks: [{ type: 'skill_invocation', name: 'review', body: 'b' }, { type: 'text', text: 'this' }] },
        { role: 'assistant', blocks: [], ended: { reason: 'failed', error: { category: 'Network', message: 'down' } } }
    ], {});
    const [q1, a1, q2, a2] = transcript.messages;

    it('counts positions as the backend does: tool rounds belong to their answer', () => {
        assert.deepEqual([q1, a1, q2, a2].map(message => positionOf(transcript.messages, message)), [
            { turn: 0, part: 'question' }, { turn: 0, part: 'answer' }, { turn: 1, part: 'question' }, { turn: 1, part: 'answer' }
        ]);
    });

    it('shows a kept failure as failed with its error, after a reload', () => {
        assert.equal(a2.status, 'failed');
        assert.equal(a2.error?.message, 'down');
    });

    it('offers each version on its own position, and what continues past the last message after it', () => {
        const branches = [version('a', 0, 'question'), version('b', 1, 'answer'), version('c', 2, 'question')];
        assert.deepEqual(versionsAt(branches, { turn: 0, part: 'question' }).map(branch => branch.id), ['a']);
        assert.deepEqual(versionsAt(branches, { turn: 1, part: 'answer' }).map(branch => branch.id), ['b']);
        assert.deepEqual(versionsAt(branches, undefined), []);
        assert.deepEqual(versionsAfterEnd(branches, transcript.messages).map(branch => branch.id), ['c'], 'two questions shown: the third continues after them');
        assert.deepEqual(versionsAfterEnd(branches, transcript.messages.slice(0, 3)).map(branch => branch.id), ['b', 'c'], 'the last question has no answer shown');
    });

    it('copies an answer\'s text without its thinking, and a question with its skill', () => {
        assert.equal(copyText(a1), 'A1 and more');
        assert.equal(copyText(q2), '/review this');
    });

    it('takes messages out for an edit and puts them back where they were', () => {
        const local = new ChatTranscript();
        local.restore([{ role: 'user', blocks: [{ type: 'text', text: 'a' }] }, { role: 'assistant', blocks: [{ type: 'text', text: 'b' }] }], {});
        const removed = local.cutFrom(local.messages[0]);
        local.beginTurn('edited', [], undefined, 't1');
        assert.equal(local.isRecorded(local.messages[0]), false, 'a turn not taken yet is not in the saved history');
        local.dropTurn('t1');
        local.putBack(removed);
        assert.deepEqual(local.messages.map(message => message.parts.map(part => part.kind === 'text' ? part.chunks.join('') : '').join('')), ['a', 'b']);
        assert.equal(local.isRecorded(local.messages[0]), true);
    });
});
