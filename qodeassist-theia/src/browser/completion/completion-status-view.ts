import type { ErrorInfo, LaunchStatus } from '@qodeassist/core';
import { CompletionFigures, FigureCounts, totalOf } from './completion-figures';
import type { BudgetFigures } from './request-budget';

/** What the completion's status-bar item knows. */
export interface CompletionStatusState {
    enabled: boolean;
    /** Completion requests under way. */
    pending: number;
    /** The last request's failure, until one succeeds. */
    lastError?: ErrorInfo;
    /** Local servers being started for a completion ([launch]), oldest first. */
    launching: readonly LaunchStatus[];
}

export interface CompletionStatusView {
    text: string;
    tooltip: string;
    className?: string;
}

/** The item's text and tooltip: off, starting a server, asking, the last error, or idle — in that order of precedence. */
export function completionStatusView(state: CompletionStatusState): CompletionStatusView {
    const error = state.lastError;
    const launch = state.launching.at(-1);
    if (!state.enabled) {
        return { text: '$(circle-slash) QodeAssist', tooltip: 'QodeAssist completion is off (qodeassist.completion.enabled)' };
    }
    if (launch) {
        return { text: `$(loading~spin) QodeAssist: ${launch.summary}`, tooltip: `The completion waits: ${launch.message}` };
    }
    if (state.pending > 0) {
        return { text: '$(loading~spin) QodeAssist', tooltip: 'QodeAssist is asking for a completion…' };
    }
    if (error) {
        return { text: `$(warning) QodeAssist: ${error.category}`, tooltip: `Completion failed: ${error.message} — click for the log`, className: 'qa-completion-error' };
    }
    return { text: '$(sparkle) QodeAssist', tooltip: 'QodeAssist completion is on — click for the log' };
}

/** How completion asks now, for the popover. */
export interface TriggerSummary {
    mode: 'automatic' | 'hint';
    debounceMs: number;
    eagerFloorMs: number;
    /** The timings follow the typing rhythm (else the configured debounce). */
    adaptive: boolean;
    /** Languages whose mode differs from the global one, e.g. { markdown: 'off' }. */
    overrides: Readonly<Record<string, string>>;
    /** The Suggest Completion key, as shown to the user. */
    key: string;
    /** The request budget so far, against a debounce trigger at `configuredMs` (qodeassist.completion.debounceMs). */
    budget?: BudgetFigures & { configuredMs: number };
}

/** The popover below the item's line: how completion asks, then the acceptance figures kept on this machine, then what can be done. */
export function completionDetailsMarkdown(trigger: TriggerSummary, figures: CompletionFigures | undefined, pendingChecks: number): string {
    const lines: string[] = [];
    if (trigger.mode === 'hint') {
        lines.push(`**Hint mode:** asks only on ${trigger.key} (QodeAssist: Suggest Completion) or after a pause at a fresh line or after \`{ ( , = [ ; :\`.`);
    } else {
        const how = trigger.adaptive ? 'from your typing rhythm' : 'qodeassist.completion.debounceMs';
        const eager = trigger.eagerFloorMs > 0 ? `${trigger.eagerFloorMs} ms` : 'at once';
        lines.push(`**Asks** after ${trigger.debounceMs} ms of quiet (${how}); on a fresh line or after \`{ ( , = [ ; :\` ${eager}.`);
        if (trigger.budget) {
            const { sent, debounceWouldSend, credit, configuredMs } = trigger.budget;
            lines.push('', `**Requests:** ${sent} sent, where asking after every ${configuredMs} ms of quiet would have sent ${debounceWouldSend}; `
                + `${credit} may go now, also inside a burst of typing (at a fresh line or after those characters) so the answer is ready when you stop.`);
        }
    }
    const overrides = Object.entries(trigger.overrides);
    if (overrides.length) {
        lines.push('', `Per language: ${overrides.map(([language, mode]) => `${escapeMarkdown(language)} ${mode}`).join(', ')}.`);
    }
    lines.push('');
    if (!figures || figures.rows.length === 0) {
        lines.push('No suggestion shown yet. Acceptance figures are counted in this browser only and never sent anywhere.');
    } else {
        lines.push(`**Suggestions since ${figures.since.slice(0, 10)}** — counted in this browser only, never sent anywhere.`, '',
            '| Language | Agent | Shown | Accepted | Still there 30 s later |', '|---|---|---:|---:|---:|');
        const rows = [...figures.rows].sort((a, b) => b.shown - a.shown || a.language.localeCompare(b.language) || a.agent.localeCompare(b.agent));
        for (const row of rows) {
            lines.push(`| ${escapeMarkdown(row.language)} | ${escapeMarkdown(row.agent)} | ${countCells(row)} |`);
        }
        if (rows.length > 1) {
            lines.push(`| **all** | | ${countCells(totalOf(figures))} |`);
        }
        if (pendingChecks > 0) {
            lines.push('', `${pendingChecks} accepted suggestion${pendingChecks === 1 ? '' : 's'} will be looked at again 30 s after acceptance.`);
        }
    }
    lines.push('', '[Reset figures](command:qodeassist.completion.resetFigures) · [Show log](command:qodeassist.completion.showLog)');
    return lines.join('\n');
}

/** Whether next edit suggestions are asked for in the language being edited. */
export interface NextEditSummary {
    language: string;
    on: boolean;
}

/** The popover's line on next edit suggestions for the language being edited; empty when no editor is focused. */
export function nextEditMarkdown(summary: NextEditSummary | undefined): string {
    if (!summary) {
        return '';
    }
    return summary.on
        ? `**Next edit suggestions** are on for ${escapeMarkdown(summary.language)}: Tab jumps to a suggested edit, Tab again applies it, Esc dismisses.`
        : `**Next edit suggestions** are off for ${escapeMarkdown(summary.language)} (qodeassist.nextEdit.enabled, qodeassist.nextEdit.disabledLanguages).`;
}

/** Shown, accepted (share of shown) and still there (of those looked at again): the row's cells. */
function countCells(counts: FigureCounts): string {
    const share = (part: number, whole: number) => whole > 0 ? ` (${Math.round(100 * part / whole)}%)` : '';
    return `${counts.shown} | ${counts.accepted}${share(counts.accepted, counts.shown)} | ${counts.stillPresent} of ${counts.checked}${share(counts.stillPresent, counts.checked)}`;
}

function escapeMarkdown(text: string): string {
    return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, character => `\\${character}`);
}
