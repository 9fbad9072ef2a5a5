import * as assert from 'node:assert/strict';
import type { LaunchStatus } from '@qodeassist/core';
import { addCounts, emptyFigures } from './completion-figures';
import { completionDetailsMarkdown, completionStatusView, nextEditMarkdown, TriggerSummary } from './completion-status-view';

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

describe('the completion status popover', () => {
    const automatic: TriggerSummary = { mode: 'automatic', debounceMs: 180, eagerFloorMs: 90, adaptive: true, overrides: {}, key: 'Alt+\\' };

    it('says how completion asks: the timings of the moment, from the typing rhythm or the setting', () => {
        assert.match(completionDetailsMarkdown(automatic, undefined, 0), /^\*\*Asks\*\* after 180 ms of quiet \(from your typing rhythm\); on a fresh line or after `\{ \( , = \[ ; :` 90 ms\./);
        assert.match(completionDetailsMarkdown({ ...automatic, debounceMs: 300, eagerFloorMs: 0, adaptive: false }, undefined, 0),
            /after 300 ms of quiet \(qodeassist\.completion\.debounceMs\); on a fresh line or after `\{ \( , = \[ ; :` at once\./);
        assert.match(completionDetailsMarkdown({ ...automatic, mode: 'hint', overrides: { python: 'automatic', markdown: 'off' } }, undefined, 0),
            /^\*\*Hint mode:\*\* asks only on Alt\+\\ \(QodeAssist: Suggest Completion\)[^\n]*\n\nPer language: python automatic, markdown off\./);
    });

    it('says how many requests went against what a debounce trigger would have sent, and how many may go ahead now', () => {
        const markdown = completionDetailsMarkdown({ ...automatic, budget: { sent: 11, debounceWouldSend: 53, credit: 2, configuredMs: 300 } }, undefined, 0);
        assert.match(markdown, /\n\n\*\*Requests:\*\* 11 sent, where asking after every 300 ms of quiet would have sent 53; 2 may go now, also inside a burst of typing/);
        assert.doesNotMatch(completionDetailsMarkdown({ ...automatic, mode: 'hint', budget: { sent: 1, debounceWouldSend: 2, credit: 0, configuredMs: 300 } }, undefined, 0), /Requests:/);
    });

    it('shows the figures by language and agent with shares, a total, the checks still waiting, and the reset link', () => {
        let figures = addCounts(emptyFigures(new Date('2026-11-23T10:00:00Z')), 'typescript', 'fake-fim', { shown: 4, accepted: 3, checked: 2, stillPresent: 1 });
        figures = addCounts(figures, 'python', 'fake-instruct', { shown: 1 });
        const markdown = completionDetailsMarkdown(automatic, figures, 1);
        assert.ok(markdown.includes([
            '**Suggestions since 2026-11-23** — counted in this browser only, never sent anywhere.', '',
            '| Language | Agent | Shown | Accepted | Still there 30 s later |', '|---|---|---:|---:|---:|',
            '| typescript | fake\\-fim | 4 | 3 (75%) | 1 of 2 (50%) |',
            '| python | fake\\-instruct | 1 | 0 (0%) | 0 of 0 |',
            '| **all** | | 5 | 3 (60%) | 1 of 2 (50%) |', '',
            '1 accepted suggestion will be looked at again 30 s after acceptance.'
        ].join('\n')), markdown);
        assert.ok(markdown.endsWith('[Reset figures](command:qodeassist.completion.resetFigures) · [Show log](command:qodeassist.completion.showLog)'));
    });

    it('before any suggestion: says where figures will be kept', () => {
        assert.match(completionDetailsMarkdown(automatic, emptyFigures(new Date()), 0), /No suggestion shown yet\. Acceptance figures are counted in this browser only and never sent anywhere\./);
    });

    it('a language id or agent name cannot break the table', () => {
        const markdown = completionDetailsMarkdown(automatic, addCounts(emptyFigures(new Date()), 'c|d', 'a*b', { shown: 1 }), 0);
        assert.ok(markdown.includes('| c\\|d | a\\*b | 1 |'), markdown);
    });

    it('says whether next edit suggestions are on for the language being edited, and nothing without an editor', () => {
        assert.equal(nextEditMarkdown({ language: 'typescript', on: true }),
            '**Next edit suggestions** are on for typescript: Tab jumps to a suggested edit, Tab again applies it, Esc dismisses.');
        assert.equal(nextEditMarkdown({ language: 'markdown', on: false }),
            '**Next edit suggestions** are off for markdown (qodeassist.nextEdit.enabled, qodeassist.nextEdit.disabledLanguages).');
        assert.equal(nextEditMarkdown(undefined), '');
    });
});
