import * as assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { AcpUpdateMapper } from './acp-updates';

describe('AcpUpdateMapper', () => {
    const mapper = () => new AcpUpdateMapper({ maxTrackedToolCalls: 3, roots: ['/work'] });

    it('maps message and thought text to the chat\'s TextDelta and ThinkingDelta, other content to AcpContent', () => {
        const m = mapper();
        assert.deepEqual(m.map({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }, 'r'), [{ type: 'TextDelta', requestId: 'r', text: 'hi' }]);
        assert.deepEqual(m.map({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }, 'r'), [{ type: 'ThinkingDelta', requestId: 'r', text: 'hmm' }]);
        assert.deepEqual(m.map({ sessionUpdate: 'agent_message_chunk', content: { type: 'resource_link', uri: 'file:///work/a.ts', name: 'a.ts' } }, 'r'),
            [{ type: 'AcpContent', requestId: 'r', role: 'agent', content: { type: 'resource', uri: 'file:///work/a.ts', name: 'a.ts' } }]);
        assert.deepEqual(m.map({ sessionUpdate: 'user_message_chunk', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } }, 'r'),
            [{ type: 'AcpUserMessage', requestId: 'r', content: { type: 'image', mimeType: 'image/png', data: 'AA==' } }]);
    });

    it('keeps a tool call\'s state: an update carries only what changed, the event carries the whole call, and ToolResult comes once', () => {
        const m = mapper();
        const start = m.map({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read a.ts', kind: 'read', locations: [{ path: '/work/a.ts', line: 2 }] }, 'r');
        assert.deepEqual(start.map(event => event.type), ['ToolCallStart', 'AcpToolCall']);
        const done = m.map({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'no such file' } }] }, 'r');
        assert.deepEqual(done[0], {
            type: 'AcpToolCall', requestId: 'r', first: false,
            call: { callId: 'c1', title: 'Read a.ts', kind: 'read', status: 'failed', locations: [{ path: '/work/a.ts', line: 2 }], content: [{ type: 'content', content: { type: 'text', text: 'no such file' } }] }
        });
        assert.deepEqual(done[1], { type: 'ToolResult', requestId: 'r', callId: 'c1', name: 'Read a.ts', content: 'no such file', isError: true });
        const again = m.map({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed' }, 'r');
        assert.deepEqual(again.map(event => event.type), ['AcpToolCall'], 'no second ToolResult');
    });

    it('shows a diff with a patch relative to the workspace, and none for texts too large to diff', () => {
        const m = mapper();
        const [, call] = m.map({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Edit', kind: 'edit', content: [{ type: 'diff', path: '/work/src/a.ts', newText: 'new\n' }] }, 'r');
        assert.ok(call.type === 'AcpToolCall');
        const diff = call.call.content[0];
        assert.ok(diff.type === 'diff');
        assert.match(diff.patch!, /^--- \/dev\/null\n\+\+\+ b\/src\/a\.ts\n/);
        const [, big] = m.map({ sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'Edit', content: [{ type: 'diff', path: '/work/b.ts', oldText: 'x'.repeat(300_000), newText: 'y' }] }, 'r');
        assert.ok(big.type === 'AcpToolCall' && big.call.content[0].type === 'diff');
        assert.equal((big.call.content[0] as { patch?: string }).patch, undefined);
        assert.equal(big.call.kind, 'other', 'a call without a kind is "other"');
    });

    it('treats an update for an unknown call as a new call and forgets the oldest calls past the bound', () => {
        const m = mapper();
        const events = m.map({ sessionUpdate: 'tool_call_update', toolCallId: 'ghost', status: 'in_progress' }, 'r');
        assert.deepEqual(events.map(event => event.type), ['ToolCallStart', 'AcpToolCall']);
        for (const id of ['a', 'b', 'c']) {
            m.map({ sessionUpdate: 'tool_call', toolCallId: id, title: id }, 'r');
        }
        assert.equal(m.state('ghost'), undefined, 'the oldest was forgotten');
        assert.equal(m.state('c')?.title, 'c');
    });

    it('maps plan, commands, mode, usage and notice; ignores kinds the chat has no place for', () => {
        const m = mapper();
        const updates: SessionUpdate[] = [
            { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'low', status: 'completed' }] },
            { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'init', description: 'Set up' }] },
            { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
            { sessionUpdate: 'usage_update', used: 10, size: 100 },
            { sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited' },
            { sessionUpdate: 'session_info_update', title: 'A title' }
        ];
        assert.deepEqual(updates.flatMap(update => m.map(update, 'r')), [
            { type: 'AcpPlan', requestId: 'r', entries: [{ content: 'step', priority: 'low', status: 'completed' }] },
            { type: 'AcpCommands', requestId: 'r', commands: [{ name: 'init', description: 'Set up' }] },
            { type: 'AcpMode', requestId: 'r', currentModeId: 'plan' },
            { type: 'AcpUsage', requestId: 'r', used: 10, size: 100 },
            { type: 'AcpNotice', requestId: 'r', severity: 'warning', title: 'Rate limited' }
        ]);
    });
});
