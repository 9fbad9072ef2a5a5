import type { ErrorInfo } from '@qodeassist/core';
import type { OutputChannel } from '@theia/output/lib/browser/output-channel';
import type { QodeAssistCompletionClient } from '../../common/completion-protocol';
import type { NextEditSummary, TriggerSummary } from './completion-status-view';

export const SHOW_COMPLETION_LOG = 'qodeassist.completion.showLog';
export const RESET_COMPLETION_FIGURES = 'qodeassist.completion.resetFigures';

/**
 * Where the completion's state is shown and logged: idle, asking, starting a local server, off,
 * or the last error. It is the completion service's client (the backend reports local servers
 * starting). `CompletionStatusBar` is QodeAssist's; a product rebinds this to show its own.
 */
export const CompletionStatus = Symbol('CompletionStatus');
export interface CompletionStatus extends QodeAssistCompletionClient {
    /** One line per request; the status item's command shows it. */
    readonly channel: OutputChannel;
    /** How completion asks (the trigger mode and the timings of the moment). */
    describeTrigger(trigger: () => TriggerSummary): void;
    /** Whether next edit suggestions are on for the language being edited. */
    describeNextEdit(nextEdit: () => NextEditSummary | undefined): void;
    setEnabled(enabled: boolean): void;
    /** A request started. */
    started(): void;
    /** One request ended; `error` when it failed (cancellations are not errors). */
    finished(line: string, error?: ErrorInfo): void;
}
