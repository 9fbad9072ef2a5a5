import * as assert from 'node:assert/strict';
import { HistoryMessage } from '../context/conversation-history';
import { TokenEstimator } from '../context/token-estimator';
import { compressHistory, deterministicDigest, transcriptOf } from './history-compressor';

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

    it('refuses an empty conversation', async () => {
        await assert.rejects(compressHistory([], { compressedFrom: 'c', limitTokens: 10, estimator: new TokenEstimator(), summarize: async () => '' }), /nothing to summarize/);
    });
});
