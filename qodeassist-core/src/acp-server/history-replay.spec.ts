import * as assert from 'node:assert/strict';
import { replayHistory } from './history-replay';

describe('replayHistory', () => {
    it('replays questions, thinking, answers and tool calls with their results; reused call ids stay apart', () => {
        const updates = replayHistory([
            { role: 'user', blocks: [{ type: 'attachment', ref: { path: '/c/a', name: 'notes.md', mediaType: 'text/plain' } }, { type: 'text', text: 'Read it' }] },
            { role: 'assistant', blocks: [{ type: 'thinking', text: 'Hmm' }, { type: 'tool_use', id: 'call_0', name: 'read_file', input: { path: 'a.ts' } }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call_0', name: 'read_file', content: 'x', isError: false }] },
            { role: 'assistant', blocks: [{ type: 'tool_use', id: 'call_0', name: 'read_file', input: { path: 'b.ts' } }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call_0', name: 'read_file', content: 'nope', isError: true }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'Done' }] }
        ], '/w');
        assert.deepEqual(updates.map(update => update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update'
            ? `${update.sessionUpdate} ${update.toolCallId} ${update.status}`
            : `${update.sessionUpdate} ${'content' in update && !Array.isArray(update.content) && update.content.type === 'text' ? update.content.text : ''}`), [
            'user_message_chunk [attached notes.md]\n', 'user_message_chunk Read it', 'agent_thought_chunk Hmm',
            'tool_call call_0@1 pending', 'tool_call_update call_0@1 completed',
            'tool_call call_0@2 pending', 'tool_call_update call_0@2 failed',
            'agent_message_chunk Done'
        ]);
    });

    it('a stopped answer says so, and a call it never finished ends failed', () => {
        const updates = replayHistory([
            { role: 'user', blocks: [{ type: 'skill_invocation', name: 'release-notes', body: '…' }] },
            { role: 'assistant', blocks: [{ type: 'tool_use', id: 'c', name: 'build_project', input: {} }], ended: { reason: 'cancelled' } }
        ], '/w');
        assert.deepEqual(updates.map(update => update.sessionUpdate), ['user_message_chunk', 'tool_call', 'agent_message_chunk', 'tool_call_update']);
        assert.deepEqual(updates[0], { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '/release-notes' } });
        assert.deepEqual(updates[2], { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '\n\n[stopped]' } });
        assert.deepEqual(updates[3], { sessionUpdate: 'tool_call_update', toolCallId: 'c@1', status: 'failed' });
    });
});
