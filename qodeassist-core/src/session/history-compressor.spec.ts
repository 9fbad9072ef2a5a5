import * as assert from 'node:assert/strict';
import { HistoryMessage } from '../context/conversation-history';
import { TokenEstimator } from '../context/token-estimator';
import { compressHistory, deterministicDigest, recentStart, transcriptOf } from './history-compressor';

const history: HistoryMessage[] = [
    { role: 'user', blocks: [{ type: 'text', text: 'Fix the build' }] },
    { role: 'assistant', blocks: [{ type: 'thinking', text: 'secret plan', signature: 's' }, { type: 'tool_use', id: 't', name: 'build_project', input: {} }] },
    { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 't', name: 'build_project', content: 'error: x', isError: true }] },
    { role: 'assistant', blocks: [{ type: 'file_edit', path: 'a.ts', summary: '+1' }, { type: 'text', text: 'Fixed a.ts.' }] }
];

describe('history compression', () => {
    it('leaves tool traffic, thinking and edit records out of the transcript', () => {
        assert.equal(transcriptOf(history), 'User: Fix the build\n\nAssistant: Fixed a.ts.');
    });

    it('summarizes through the model and records compressedFrom', async () => {
        let asked = '';
        const result = await compressHistory(history, {
            compressedFrom: 'chat-1', limitTokens: 10_000, estimator: new TokenEstimator(),
            summarize: async prompt => { asked = prompt; return '  The build was fixed in a.ts.  '; }
        });
        assert.match(asked, /<conversation>\nUser: Fix the build\n\nAssistant: Fixed a.ts.\n<\/conversation>$/);
        assert.equal(result.deterministic, false);
        assert.equal(result.summary, 'The build was fixed in a.ts.');
        assert.deepEqual(result.history[0], {
            role: 'user', blocks: [{ type: 'text', text: 'Summary of the conversation so far:\n\nThe build was fixed in a.ts.' }], compressedFrom: 'chat-1'
        });
        assert.equal(result.history[1].role, 'assistant');
    });

    it('falls back to a deterministic digest, without calling the model, when the summary request would overflow', async () => {
        const long: HistoryMessage[] = Array.from({ length: 60 }, (_, i): HistoryMessage[] => [
            { role: 'user', blocks: [{ type: 'text', text: `request ${i} ${'x'.repeat(500)}` }] },
            { role: 'assistant', blocks: [{ type: 'text', text: `answer ${i}` }] }
        ]).flat();
        const result = await compressHistory(long, {
            compressedFrom: 'chat-2', limitTokens: 1_000, estimator: new TokenEstimator(),
            summarize: async () => { throw new Error('must not be called'); }
        });
        assert.equal(result.deterministic, true);
        assert.equal(result.summary, deterministicDigest(long));
        assert.match(result.summary, /60 user messages in total/);
        assert.match(result.summary, /Requests \(the last 40\):\n- request 20 x{389}…\n- request 21 /);
        assert.match(result.summary, /Last answer: answer 59$/);
    });

    it('keeps the last turns that fit word for word after the summary, cut where the user wrote, and summarizes only what comes before', async () => {
        const chat: HistoryMessage[] = [
            { role: 'user', blocks: [{ type: 'text', text: 'Plan the parser' }] },
            { role: 'assistant', blocks: [{ type: 'text', text: 'Recursive descent.' }] },
            ...history
        ];
        let asked = '';
        const result = await compressHistory(chat, {
            compressedFrom: 'chat-3', limitTokens: 10_000, estimator: new TokenEstimator(), keepRecentTokens: 1_000,
            summarize: async prompt => { asked = prompt; return 'A parser was planned.'; }
        });
        assert.equal(result.kept, 4, 'the last turn with its tool round');
        assert.deepEqual(result.history.slice(2), history, 'kept as they were: the tool call stays with its result');
        assert.match(asked, /<conversation>\nUser: Plan the parser\n\nAssistant: Recursive descent.\n<\/conversation>$/);
        assert.equal(result.history[0].compressedFrom, 'chat-3');
    });

    it('keeps at most two turns, none when the last does not fit, and none that would leave nothing to summarize', () => {
        const turns = (count: number, size: number): HistoryMessage[] => Array.from({ length: count }, (_, i): HistoryMessage[] => [
            { role: 'user', blocks: [{ type: 'text', text: `${i} ${'x'.repeat(size)}` }] },
            { role: 'assistant', blocks: [{ type: 'text', text: `answer ${i}` }] }
        ]).flat();
        const estimator = new TokenEstimator();
        assert.equal(recentStart(turns(5, 10), estimator, 10_000), 6, 'the last two of five turns');
        assert.equal(recentStart(turns(5, 400), estimator, 150), 8, 'one turn of ~120 tokens fits 150, two do not');
        assert.equal(recentStart(turns(5, 800), estimator, 150), 10, 'the last turn alone is too large');
        assert.equal(recentStart(turns(1, 10), estimator, 10_000), 2, 'a single turn is summarized, not kept');
        assert.equal(recentStart(history, estimator, 10_000), 4, 'a tool round is never where a kept part begins');
    });

    it('refuses an empty conversation', async () => {
        await assert.rejects(compressHistory([], { compressedFrom: 'c', limitTokens: 10, estimator: new TokenEstimator(), summarize: async () => '' }), /nothing to summarize/);
    });
});
