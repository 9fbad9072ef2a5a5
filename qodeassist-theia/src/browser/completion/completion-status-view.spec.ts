import * as assert from 'node:assert/strict';
import type { LaunchStatus } from '@qodeassist/core';
import { completionStatusView } from './completion-status-view';

const starting: LaunchStatus = {
    provider: 'ollama', state: 'starting', summary: 'starting Ollama…',
    message: 'starting Ollama… (ollama serve; provider "ollama" did not answer at http://localhost:11434; waiting up to 60 s)'
};

describe('the completion status item', () => {
    it('says "starting Ollama…" while a completion waits for the server, with the whole story in the tooltip', () => {
        assert.deepEqual(completionStatusView({ enabled: true, pending: 1, launching: [starting] }), {
            text: '$(loading~spin) QodeAssist: starting Ollama…',
            tooltip: `The completion waits: ${starting.message}`
        });
    });

    it('goes back to asking once the server is up, and to the error of a start that failed', () => {
        assert.equal(completionStatusView({ enabled: true, pending: 1, launching: [] }).text, '$(loading~spin) QodeAssist');
        const failed = completionStatusView({ enabled: true, pending: 0, launching: [], lastError: { category: 'Network', message: 'Provider "ollama" did not get ready within 60 s' } });
        assert.deepEqual([failed.text, failed.className], ['$(warning) QodeAssist: Network', 'qa-completion-error']);
    });

    it('off wins over everything', () => {
        assert.equal(completionStatusView({ enabled: false, pending: 1, launching: [starting] }).text, '$(circle-slash) QodeAssist');
    });
});
