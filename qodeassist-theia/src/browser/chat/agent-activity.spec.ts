import type { AcpToolCallState, HistoryMessage } from '@qodeassist/core';
import * as assert from 'node:assert/strict';
import { diffText } from './agent-activity';
import { ChatTranscript, textOf, toolsOf } from './chat-transcript';

const call = (status: AcpToolCallState['status'], extra: Partial<AcpToolCallState> = {}): AcpToolCallState => ({
    callId: 'c1', title: 'Read a.ts', kind: 'read', status, locations: [{ path: '/w/a.ts', line: 3 }], content: [], ...extra
});
const kinds = (transcript: ChatTranscript) => transcript.messages[1].parts.map(part => part.kind);

describe('an external agent\'s answer in the transcript', () => {
    it('shows each tool call once at its latest state, where it first appeared; the plan is replaced by each new one', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('fix it');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1', agent: 'scripted' });
        transcript.apply({ type: 'AcpPlan', requestId: 'r1', entries: [{ content: 'Read', priority: 'high', status: 'in_progress' }] });
        transcript.apply({ type: 'AcpToolCall', requestId: 'r1', call: call('in_progress'), first: true });
        transcript.apply({ type: 'TextDelta', requestId: 'r1', text: 'Reading.' });
        transcript.apply({ type: 'AcpToolCall', requestId: 'r1', call: call('completed'), first: false });
        transcript.apply({ type: 'AcpPlan', requestId: 'r1', entries: [{ content: 'Read', priority: 'high', status: 'completed' }] });
        const edit = { path: 'a.ts', absolutePath: '/w/a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n', created: false };
        transcript.apply({ type: 'AcpFileWrite', requestId: 'r1', edit, editId: 'acp-write:r1:1' });
        transcript.apply({ type: 'AcpUsage', requestId: 'r1', used: 1200, size: 200000 });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        assert.deepEqual(kinds(transcript), ['plan', 'agent-call', 'text', 'tool']);
        const [plan, read] = transcript.messages[1].parts;
        assert.ok(plan.kind === 'plan' && plan.entries[0].status === 'completed');
        assert.ok(read.kind === 'agent-call' && read.call.status === 'completed');
        assert.deepEqual(toolsOf(transcript.messages[1]).map(tool => [tool.edit?.id, tool.edit?.state]), [['acp-write:r1:1', 'applied']]);
        assert.deepEqual(transcript.messages[1].agentContext, { used: 1200, size: 200000 });
    });

    it('a reopened chat shows the agent\'s tool calls, plan and writes (with their undo state) from the history', () => {
        const history: HistoryMessage[] = [
            { role: 'user', blocks: [{ type: 'text', text: 'fix it' }] },
            {
                role: 'assistant', blocks: [
                    { type: 'agent_tool_call', agent: 'scripted', call: call('completed') },
                    { type: 'text', text: 'Done.' },
                    { type: 'file_edit', path: 'a.ts', summary: 'edited by scripted', editId: 'acp-write:r1:1' },
                    { type: 'file_edit', path: 'gone.ts', summary: 'edited by scripted', editId: 'acp-write:r1:2' },
                    { type: 'agent_plan', agent: 'scripted', entries: [{ content: 'Read', priority: 'high', status: 'completed' }] }
                ]
            }
        ];
        const transcript = new ChatTranscript();
        transcript.restore(history, { 'acp-write:r1:1': { path: 'a.ts', absolutePath: '/w/a.ts', diff: '-a\n+b\n', created: false, state: 'undone' } });
        // The second write's record is not in the chat (an imported chat keeps no edits): nothing to undo, nothing shown.
        assert.deepEqual(kinds(transcript), ['agent-call', 'text', 'tool', 'plan']);
        assert.equal(textOf(transcript.messages[1]), 'Done.');
        assert.deepEqual(toolsOf(transcript.messages[1]).map(tool => tool.edit?.state), ['undone']);
    });

    it('a diff shows its patch, else the old lines taken out and the new ones put in', () => {
        assert.equal(diffText({ path: 'a.ts', newText: 'x', patch: '@@ -1 +1 @@\n-y\n+x\n' }), '@@ -1 +1 @@\n-y\n+x\n');
        assert.equal(diffText({ path: 'a.ts', oldText: 'one\ntwo\n', newText: 'one\n' }), '@@ a.ts @@\n-one\n-two\n+one');
        assert.equal(diffText({ path: 'new.ts', newText: 'made\n' }), '@@ new.ts @@\n+made');
    });
});
