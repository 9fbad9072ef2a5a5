import type { ErrorInfo, LaunchStatus } from '@qodeassist/core';

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
