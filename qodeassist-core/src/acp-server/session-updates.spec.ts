import * as assert from 'node:assert/strict';
import { ChatEvent } from '../features/chat/chat-types';
import { acpStopReason, MappedUpdate, SessionUpdateMapper } from './session-updates';

const R = 'req-1';
const updates = (mapped: MappedUpdate[]) => mapped.map(entry => 'update' in entry ? entry.update : { edit: entry.edit.toolCallId });

describe('SessionUpdateMapper', () => {
    it('joins the text deltas of a batch into one chunk, thinking apart, in order', () => {
        const mapper = new SessionUpdateMapper('/w');
        const events: ChatEvent[] = [
            { type: 'ThinkingDelta', requestId: R, text: 'Let me ' }, { type: 'ThinkingDelta', requestId: R, text: 'see.' },
            { type: 'TextDelta', requestId: R, text: 'Hel' }, { type: 'TextDelta', requestId: R, text: 'lo' }
        ];
        assert.deepEqual(updates(mapper.map(events)), [
            { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Let me see.' } },
            { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } }
        ]);
    });

    it('a tool call: announced pending, then its view with the arguments, then its result; a reused provider id gets a new id', () => {
        const mapper = new SessionUpdateMapper('/w');
        const round = (text: string): ChatEvent[] => [
            { type: 'ToolCallStart', requestId: R, callId: 'call_0', name: 'read_file' },
            { type: 'ToolCallEnd', requestId: R, callId: 'call_0', name: 'read_file', arguments: { path: 'a.ts' } },
            { type: 'ToolResult', requestId: R, callId: 'call_0', name: 'read_file', content: text, isError: false }
        ];
        assert.deepEqual(updates(mapper.map(round('one'))), [
            { sessionUpdate: 'tool_call', toolCallId: 'call_0', kind: 'read', title: 'Read a file', locations: [], status: 'pending', rawInput: {} },
            { sessionUpdate: 'tool_call_update', toolCallId: 'call_0', kind: 'read', title: 'Read a.ts', locations: [{ path: '/w/a.ts' }], rawInput: { path: 'a.ts' } },
            { sessionUpdate: 'tool_call_update', toolCallId: 'call_0', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'one' } }], rawOutput: { content: 'one', isError: false } }
        ]);
        const second = updates(mapper.map(round('two')));
        assert.deepEqual(second.map(update => 'toolCallId' in update ? update.toolCallId : undefined), ['call_0#2', 'call_0#2', 'call_0#2']);
    });

    it('finds the unfinished call a permission question is about by tool and arguments', () => {
        const mapper = new SessionUpdateMapper('/w');
        mapper.map([{ type: 'ToolCallEnd', requestId: R, callId: 'c1', name: 'edit_file', arguments: { path: 'a', old_text: 'x', new_text: 'y' } }]);
        assert.equal(mapper.pendingCallFor('edit_file', { path: 'a', old_text: 'x', new_text: 'y' }), 'c1');
        assert.equal(mapper.pendingCallFor('edit_file', { path: 'b', old_text: 'x', new_text: 'y' }), undefined);
        mapper.map([{ type: 'ToolResult', requestId: R, callId: 'c1', name: 'edit_file', content: 'denied', isError: true }]);
        assert.equal(mapper.pendingCallFor('edit_file', { path: 'a', old_text: 'x', new_text: 'y' }), undefined);
    });

    it('a file edit\'s result waits for its diff; the todo list becomes the plan', () => {
        const mapper = new SessionUpdateMapper('/w');
        const mapped = mapper.map([
            { type: 'ToolResult', requestId: R, callId: 'e', name: 'edit_file', content: 'Edited a.ts', isError: false, fileEdit: { path: 'a.ts', absolutePath: '/w/a.ts', diff: '', created: false } },
            { type: 'ToolResult', requestId: R, callId: 't', name: 'todo', content: '[ ] 1. Write tests', isError: false }
        ]);
        assert.deepEqual(updates(mapped).filter(update => !('sessionUpdate' in update && update.sessionUpdate === 'tool_call_update')), [
            { edit: 'e' }, { sessionUpdate: 'plan', entries: [{ content: 'Write tests', priority: 'medium', status: 'pending' }] }
        ]);
    });

    it('a stopped or failed request ends its unfinished calls as failed', () => {
        const mapper = new SessionUpdateMapper('/w');
        mapper.map([{ type: 'ToolCallStart', requestId: R, callId: 'c', name: 'build_project' }]);
        assert.deepEqual(updates(mapper.map([{ type: 'Cancelled', requestId: R }])), [{ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed' }]);
    });

    it('the context use: the manifest\'s estimate, then the provider\'s count, against the agent\'s limit', () => {
        const mapper = new SessionUpdateMapper('/w');
        const manifest = { estimate: 1200, limit: 128000 } as never;
        assert.deepEqual(updates(mapper.map([{ type: 'Manifest', requestId: R, manifest }, { type: 'Usage', requestId: R, inputTokens: 1300, outputTokens: 40 }])), [
            { sessionUpdate: 'usage_update', used: 1200, size: 128000 }, { sessionUpdate: 'usage_update', used: 1340, size: 128000 }
        ]);
    });

    it('a command that ran in a client terminal keeps the terminal as its content', () => {
        const mapper = new SessionUpdateMapper('/w');
        mapper.map([{ type: 'ToolCallStart', requestId: R, callId: 'c', name: 'execute_terminal_command' }]);
        assert.deepEqual(mapper.attachTerminal('c', 'term-1'), { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term-1' }] });
        assert.deepEqual(updates(mapper.map([{ type: 'ToolResult', requestId: R, callId: 'c', name: 'execute_terminal_command', content: '$ ls\n[exited with code 0]', isError: false }])),
            [{ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed', rawOutput: { content: '$ ls\n[exited with code 0]', isError: false } }]);
    });
});

describe('acpStopReason', () => {
    it('a cut answer is max_tokens, a filtered one a refusal, every other finish end_turn', () => {
        assert.deepEqual((['end_turn', 'max_tokens', 'content_filter', 'stop_sequence', 'tool_use', 'other'] as const).map(acpStopReason),
            ['end_turn', 'max_tokens', 'refusal', 'end_turn', 'end_turn', 'end_turn']);
    });
});
