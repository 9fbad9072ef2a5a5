import type { HistoryMessage } from '@qodeassist/core';
import * as assert from 'node:assert/strict';
import { ChatTranscript } from './chat-transcript';

const usd = (amount: number) => ({ amount, currency: 'USD' });

describe('ChatTranscript: the usage line sums the whole turn', () => {
    it('adds up every request of a tool loop as it streams; a later report of the same request replaces the earlier', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('what is here?');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'Usage', requestId: 'r1', round: 0, inputTokens: 100, outputTokens: 1 });
        transcript.apply({ type: 'Usage', requestId: 'r1', round: 0, inputTokens: 1_000, outputTokens: 20, cost: usd(0.0033) });
        transcript.apply({ type: 'ToolCallStart', requestId: 'r1', callId: 'c1', name: 'list_project_files' });
        transcript.apply({ type: 'ToolResult', requestId: 'r1', callId: 'c1', name: 'list_project_files', content: 'a.ts', isError: false });
        transcript.apply({ type: 'Usage', requestId: 'r1', round: 1, inputTokens: 2_000, outputTokens: 10, cachedTokens: 900, cost: usd(0.005) });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        const answer = transcript.messages[1];
        assert.deepEqual(answer.requests?.map(request => request.inputTokens), [1_000, 2_000]);
        assert.deepEqual(answer.usage, {
            requests: 2, inputTokens: 3_000, outputTokens: 30, cachedTokens: 900, reasoningTokens: 0, cost: { amounts: [{ currency: 'USD', amount: 0.0083 }], unpriced: 0 }
        });
    });

    it('a saved turn sums the usage each of its answers recorded, tool rounds included', () => {
        const history: HistoryMessage[] = [
            { role: 'user', blocks: [{ type: 'text', text: 'go' }] },
            { role: 'assistant', blocks: [{ type: 'tool_use', id: 'c1', name: 'read_file', input: {} }], usage: { inputTokens: 10, outputTokens: 2, cost: usd(0.25) } },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'c1', name: 'read_file', content: 'x', isError: false }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'done' }], usage: { inputTokens: 20, outputTokens: 3, cachedTokens: 10 } },
            { role: 'user', blocks: [{ type: 'text', text: 'and?' }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'no price' }], usage: { inputTokens: 5, outputTokens: 1 } }
        ];
        const transcript = new ChatTranscript();
        transcript.restore(history, {});
        const [, first, , second] = transcript.messages;
        assert.deepEqual(first.usage, {
            requests: 2, inputTokens: 30, outputTokens: 5, cachedTokens: 10, reasoningTokens: 0, cost: { amounts: [{ currency: 'USD', amount: 0.25 }], unpriced: 1 }
        });
        assert.deepEqual(second.usage, { requests: 1, inputTokens: 5, outputTokens: 1, cachedTokens: 0, reasoningTokens: 0 }, 'no price: no figure');
    });
});
