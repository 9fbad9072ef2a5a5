import type { HistoryMessage } from '@qodeassist/core';
import * as assert from 'node:assert/strict';
import { ChatTranscript, textOf, thinkingOf, toolsOf } from './chat-transcript';

const user = (text: string): HistoryMessage => ({ role: 'user', blocks: [{ type: 'text', text }] });
const shape = (transcript: ChatTranscript) => transcript.messages.map(message => [message.role, textOf(message), message.status]);

describe('ChatTranscript', () => {
    it('fills the pending answer from the events of its request', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('hi', [{ name: 'shot.png', mediaType: 'image/png' }]);
        assert.equal(transcript.apply({ type: 'RequestStarted', requestId: 'r1' }), false);
        assert.equal(transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'Hel' }), true);
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'lo' });
        transcript.apply({ type: 'ThinkingDelta', requestId: 'r1', text: 'hmm' });
        transcript.apply({ type: 'Usage', requestId: 'r1', inputTokens: 5, outputTokens: 2 });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        const [user, answer] = transcript.messages;
        assert.deepEqual([user.role, textOf(user), user.attachments], ['user', 'hi', [{ name: 'shot.png', mediaType: 'image/png' }]]);
        assert.deepEqual([textOf(answer), thinkingOf(answer), answer.status], ['Hello', 'hmm', 'done']);
        assert.deepEqual(answer.usage, { requests: 1, inputTokens: 5, outputTokens: 2, cachedTokens: 0, reasoningTokens: 0 });
        assert.equal(transcript.pending, undefined);
    });

    it('keeps text, thinking and tools in the order they streamed, with the edit a tool made', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('fix it');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'Manifest', requestId: 'r1', manifest: { estimate: 10, limit: 100 } as never });
        transcript.apply({ type: 'ThinkingDelta', requestId: 'r1', text: 'plan' });
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'Editing.' });
        transcript.apply({ type: 'ToolCallStart', requestId: 'r1', callId: 'c1', name: 'edit_file' });
        transcript.apply({ type: 'ToolCallEnd', requestId: 'r1', callId: 'c1', name: 'edit_file', arguments: { path: 'a.ts' } });
        const fileEdit = { path: 'a.ts', absolutePath: '/w/a.ts', diff: '-x\n+y\n', created: false };
        transcript.apply({ type: 'ToolResult', requestId: 'r1', callId: 'c1', name: 'edit_file', content: 'Edited a.ts', isError: false, fileEdit });
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'Done.' });
        const answer = transcript.messages[1];
        assert.deepEqual(answer.parts.map(part => part.kind), ['thinking', 'text', 'tool', 'text']);
        assert.deepEqual(toolsOf(answer)[0].edit, { id: 'c1', record: fileEdit, state: 'applied' });
        assert.equal(answer.manifest?.estimate, 10);
        assert.deepEqual(transcript.editsOf(answer).map(tool => tool.callId), ['c1']);
    });

    it('ignores events of another request', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('hi');
        transcript.apply({ type: 'RequestStarted', requestId: 'r2' });
        assert.equal(transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'stale' }), false);
        assert.equal(textOf(transcript.messages[1]), '');
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
        assert.deepEqual(transcript.messages.map(m => [m.role, m.status, textOf(m), m.error?.category]), [
            ['user', 'done', 'a', undefined], ['assistant', 'cancelled', 'part', undefined],
            ['user', 'done', 'b', undefined], ['assistant', 'failed', '', 'Auth']
        ]);
        assert.equal(transcript.lastUserText(), 'b');
    });

    it('rebuilds a saved chat: one answer per user turn gathering its tool rounds, edits with their saved state', () => {
        const transcript = new ChatTranscript();
        transcript.restore([
            { role: 'user', blocks: [{ type: 'text', text: 'Summary of the conversation so far' }], compressedFrom: 'old' },
            { role: 'user', blocks: [{ type: 'image', ref: { path: '/c/a.png', name: 'a.png', mediaType: 'image/png' } }, { type: 'skill_invocation', name: 'tone', body: 'b' }, { type: 'text', text: 'edit' }] },
            { role: 'assistant', blocks: [{ type: 'thinking', text: 't' }, { type: 'tool_use', id: 'c1', name: 'edit_file', input: { path: 'a.ts' } }, { type: 'tool_use', id: 'c2', name: 'read_file', input: {} }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'c1', name: 'edit_file', content: 'Edited', isError: false }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'Done.' }], usage: { inputTokens: 9, outputTokens: 1 } }
        ], { c1: { path: 'a.ts', absolutePath: '/w/a.ts', diff: 'd', created: false, state: 'undone' } });
        const [summary, user, answer] = transcript.messages;
        assert.equal(transcript.messages.length, 3);
        assert.equal(summary.compressedFrom, 'old');
        assert.deepEqual([user.skill, user.attachments, textOf(user)], ['tone', [{ name: 'a.png', mediaType: 'image/png' }], 'edit']);
        assert.deepEqual(answer.parts.map(part => part.kind), ['thinking', 'tool', 'tool', 'text']);
        const [edit, read] = toolsOf(answer);
        assert.deepEqual([edit.status, edit.edit?.state, edit.edit?.record.absolutePath], ['done', 'undone', '/w/a.ts']);
        assert.deepEqual([read.status, read.result], ['error', 'No result was recorded (the request ended first).']);
        assert.deepEqual(answer.usage, { requests: 1, inputTokens: 9, outputTokens: 1, cachedTokens: 0, reasoningTokens: 0 });
    });

    it('keeps calls apart when a provider reuses an id across rounds, live and restored, each edit under its own key', () => {
        const edit = (path: string) => ({ path, absolutePath: `/w/${path}`, diff: `-${path}\n`, created: false });
        const transcript = new ChatTranscript();
        transcript.beginTurn('edit both');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        for (const [round, path] of [[1, 'a.ts'], [2, 'b.ts']] as const) {
            transcript.apply({ type: 'ToolCallStart', requestId: 'r1', callId: 'call_0', name: 'edit_file' });
            transcript.apply({ type: 'ToolCallEnd', requestId: 'r1', callId: 'call_0', name: 'edit_file', arguments: { path } });
            transcript.apply({
                type: 'ToolResult', requestId: 'r1', callId: 'call_0', name: 'edit_file', content: `Edited ${path}`, isError: false, fileEdit: edit(path),
                editId: round === 1 ? 'call_0' : 'call_0#2'
            });
        }
        const live = toolsOf(transcript.messages[1]);
        assert.deepEqual(live.map(tool => [tool.arguments?.path, tool.result, tool.edit?.id]), [['a.ts', 'Edited a.ts', 'call_0'], ['b.ts', 'Edited b.ts', 'call_0#2']]);

        const round = (path: string) => [
            { role: 'assistant' as const, blocks: [{ type: 'tool_use' as const, id: 'call_0', name: 'edit_file', input: { path } }] },
            { role: 'user' as const, blocks: [{ type: 'tool_result' as const, toolUseId: 'call_0', name: 'edit_file', content: `Edited ${path}`, isError: false }] }
        ];
        transcript.restore([
            { role: 'user', blocks: [{ type: 'text', text: 'edit a and b' }] }, ...round('a.ts'), ...round('b.ts'),
            { role: 'user', blocks: [{ type: 'text', text: 'and c' }] }, ...round('c.ts')
        ], {
            'call_0': { ...edit('a.ts'), state: 'applied' }, 'call_0#2': { ...edit('b.ts'), state: 'undone' }, 'call_0#3': { ...edit('c.ts'), state: 'applied' }
        });
        const restored = transcript.messages.filter(message => message.role === 'assistant').flatMap(toolsOf);
        assert.deepEqual(restored.map(tool => [tool.arguments?.path, tool.result, tool.edit?.id, tool.edit?.record.path, tool.edit?.state]), [
            ['a.ts', 'Edited a.ts', 'call_0', 'a.ts', 'applied'],
            ['b.ts', 'Edited b.ts', 'call_0#2', 'b.ts', 'undone'],
            ['c.ts', 'Edited c.ts', 'call_0#3', 'c.ts', 'applied']
        ]);
    });

    it('shows an answer saved while it streamed as interrupted, with what had arrived, its question in the history', () => {
        const transcript = new ChatTranscript();
        transcript.restore([
            user('explain'),
            { role: 'assistant', blocks: [{ type: 'text', text: 'It reads' }, { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.ts' } }], interrupted: true }
        ], {});
        const answer = transcript.messages[1];
        assert.deepEqual([answer.status, textOf(answer), answer.recorded], ['interrupted', 'It reads', true]);
        assert.deepEqual(toolsOf(answer).map(tool => tool.status), ['error']);
        assert.equal(transcript.pending, undefined);
    });

    it('shows a running request from its events so far after the history that asked for it', () => {
        const transcript = new ChatTranscript();
        transcript.restore([user('explain')], {}, [{ type: 'RequestStarted', requestId: 'r1', agent: 'a' }, { type: 'TextDelta', requestId: 'r1', text: 'so far' }]);
        assert.deepEqual(shape(transcript), [['user', 'explain', 'done'], ['assistant', 'so far', 'streaming']]);
        assert.equal(transcript.pending?.requestId, 'r1');
    });

    it('shows another window\'s message with an answer the events fill; its own UserMessage changes nothing visible', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('mine', [], undefined, 't1');
        transcript.taken('t1');
        assert.equal(transcript.apply({ type: 'UserMessage', turnId: 't1', message: user('mine') }), false);
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        assert.equal(transcript.apply({ type: 'UserMessage', turnId: 'other', message: { role: 'user', blocks: [{ type: 'skill_invocation', name: 'tone', body: '' }, { type: 'text', text: 'theirs' }] } }), true);
        transcript.apply({ type: 'RequestStarted', requestId: 'r2' });
        transcript.apply({ type: 'TextDelta', requestId: 'r2', text: 'their answer' });
        assert.deepEqual(shape(transcript), [['user', 'mine', 'done'], ['assistant', '', 'done'], ['user', 'theirs', 'done'], ['assistant', 'their answer', 'streaming']]);
        assert.deepEqual([transcript.messages[2].skill, transcript.messages[2].turnId, transcript.messages[3].recorded], ['tone', undefined, true]);
    });

    it('puts another window\'s message above this view\'s turn waiting to go, which is queued until its own UserMessage', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('mine', [], undefined, 't1');
        transcript.apply({ type: 'UserMessage', turnId: 'other', message: user('theirs') });
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'their answer' });
        assert.deepEqual(shape(transcript), [['user', 'theirs', 'done'], ['assistant', 'their answer', 'streaming'], ['user', 'mine', 'done'], ['assistant', '', 'streaming']]);
        assert.deepEqual(transcript.messages.map(message => message.queued ?? false), [false, false, true, false]);
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        assert.equal(transcript.apply({ type: 'UserMessage', turnId: 't1', message: user('mine') }), true);
        transcript.apply({ type: 'RequestStarted', requestId: 'r2' });
        transcript.apply({ type: 'TextDelta', requestId: 'r2', text: 'my answer' });
        assert.deepEqual(shape(transcript).slice(2), [['user', 'mine', 'done'], ['assistant', 'my answer', 'streaming']]);
        assert.deepEqual([transcript.messages[2].queued, transcript.messages[3].recorded], [false, true]);
    });

    it('marks this view\'s waiting turn queued when the backend says so', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('mine', [], undefined, 't1');
        assert.equal(transcript.apply({ type: 'Queued', turnId: 't1' }), true);
        assert.equal(transcript.messages[0].queued, true);
    });

    it('keeps this view\'s turn waiting to go last when a History replaces the conversation; the next request answers the history', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('old question');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'Failed', requestId: 'r1', error: { category: 'Provider', message: 'no' } });
        transcript.beginTurn('mine', [], undefined, 't1');
        assert.equal(transcript.apply({ type: 'History', history: [user('old question')], edits: {}, branches: [] }), true);
        assert.deepEqual(shape(transcript), [['user', 'old question', 'done'], ['user', 'mine', 'done'], ['assistant', '', 'streaming']]);
        transcript.apply({ type: 'RequestStarted', requestId: 'r2' });
        transcript.apply({ type: 'TextDelta', requestId: 'r2', text: 'retried' });
        assert.deepEqual(shape(transcript), [
            ['user', 'old question', 'done'], ['assistant', 'retried', 'streaming'], ['user', 'mine', 'done'], ['assistant', '', 'streaming']
        ]);
    });

    it('ignores a RequestStarted it has seen already (events told again after a reconnect)', () => {
        const transcript = new ChatTranscript();
        transcript.restore([user('q')], {}, [{ type: 'RequestStarted', requestId: 'r1' }]);
        assert.equal(transcript.apply({ type: 'RequestStarted', requestId: 'r1' }), false);
        assert.equal(transcript.messages.length, 2);
    });

    it('says that streaming answers wait for the backend while it is away, and ends them here on a Stop that cannot reach it', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('q');
        assert.equal(transcript.stall(true), true);
        assert.equal(transcript.messages[1].stalled, true);
        assert.equal(transcript.stall(true), false);
        assert.equal(transcript.cancelStreaming(), true);
        assert.deepEqual([transcript.messages[1].status, transcript.messages[1].stalled, transcript.pending], ['cancelled', undefined, undefined]);
    });

    it('takes back a turn the backend did not take, and says whether it shows any message the backend has had', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('mine', [], undefined, 't1');
        assert.equal(transcript.showsConversation(), false);
        assert.equal(transcript.dropTurn('t1'), true);
        assert.deepEqual([transcript.messages, transcript.dropTurn('t1')], [[], false]);
        transcript.restore([user('q')], {});
        assert.equal(transcript.showsConversation(), true);
    });

    it('gives the question an answer answers, its skill included', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('first');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        transcript.beginTurn('the parser', [], 'review');
        const [, firstAnswer, , secondAnswer] = transcript.messages;
        assert.deepEqual([transcript.questionOf(firstAnswer), transcript.questionOf(secondAnswer), transcript.lastUserText()], ['first', '/review the parser', '/review the parser']);
    });
});
