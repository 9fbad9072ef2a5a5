import type { ErrorInfo, LaunchStatus } from '@qodeassist/core';
import { CommandService } from '@theia/core';
import { StatusBar, StatusBarAlignment } from '@theia/core/lib/browser/status-bar/status-bar';
import { inject, injectable } from '@theia/core/shared/inversify';
import { OutputChannel, OutputChannelManager } from '@theia/output/lib/browser/output-channel';
import { MarkdownStringImpl } from '@theia/core/lib/common/markdown-rendering/markdown-string';
import { CompletionFiguresRecorder } from './completion-figures-recorder';
import { CompletionStatus, RESET_COMPLETION_FIGURES, SHOW_COMPLETION_LOG } from './completion-status';
import { completionDetailsMarkdown, completionStatusView, nextEditMarkdown, NextEditSummary, TriggerSummary } from './completion-status-view';

const ELEMENT = 'qodeassist-completion';

/**
 * The completion's state where users look: a status-bar item (idle, asking, starting a local
 * server, off, or the last error with its category) whose popover says how completion asks and
 * shows the acceptance figures, and an output channel with one line per request. A failure is
 * never silent. It is the completion service's client: the backend tells it when a completion
 * waits for a provider's server QodeAssist starts ([launch]).
 */
@injectable()
export class CompletionStatusBar implements CompletionStatus {
    @inject(StatusBar) protected readonly statusBar: StatusBar;
    @inject(OutputChannelManager) protected readonly outputs: OutputChannelManager;
    @inject(CommandService) protected readonly commands: CommandService;
    @inject(CompletionFiguresRecorder) protected readonly figures: CompletionFiguresRecorder;

    protected pending = 0;
    protected lastError: ErrorInfo | undefined;
    protected enabled = true;
    /** Local servers being started for a completion, by provider: what the item says while they start. */
    protected readonly launching = new Map<string, LaunchStatus>();
    protected trigger: (() => TriggerSummary) | undefined;
    protected nextEdit: (() => NextEditSummary | undefined) | undefined;

    get channel(): OutputChannel {
        return this.outputs.getChannel('QodeAssist Completion');
    }

    /** Where the popover learns how completion asks (the trigger mode and the timings of the moment). */
    describeTrigger(trigger: () => TriggerSummary): void {
        this.trigger = trigger;
        this.render();
    }

    /** Where the popover learns whether next edit suggestions are on for the language being edited. */
    describeNextEdit(nextEdit: () => NextEditSummary | undefined): void {
        this.nextEdit = nextEdit;
    }

    setEnabled(enabled: boolean): void {
        this.enabled = enabled;
        this.render();
    }

    started(): void {
        this.pending++;
        this.render();
    }

    /** One request ended; `error` when it failed (cancellations are not errors). */
    finished(line: string, error?: ErrorInfo): void {
        this.pending = Math.max(0, this.pending - 1);
        if (error) {
            this.lastError = error;
            this.channel.appendLine(`${new Date().toISOString()} ${error.category}: ${error.message}${error.providerDetail ? ` (${error.providerDetail})` : ''}`);
        } else {
            this.lastError = undefined;
            this.channel.appendLine(`${new Date().toISOString()} ${line}`);
        }
        this.render();
    }

    onLaunchStatus(status: LaunchStatus): void {
        if (status.state === 'starting') {
            this.launching.set(status.provider, status);
        } else {
            this.launching.delete(status.provider);
        }
        this.channel.appendLine(`${new Date().toISOString()} ${status.message}`);
        this.render();
    }

    protected render(): void {
        const view = completionStatusView({ enabled: this.enabled, pending: this.pending, lastError: this.lastError, launching: [...this.launching.values()] });
        void this.statusBar.setElement(ELEMENT, {
            text: view.text, alignment: StatusBarAlignment.RIGHT, priority: 100, command: SHOW_COMPLETION_LOG, className: view.className,
            // Made when hovered: the figures are read from storage then, and the timings are those of the moment.
            tooltip: () => this.popover(view.tooltip),
            accessibilityInformation: { label: `${view.text.replace(/\$\([^)]*\)\s*/g, '')}, ${view.tooltip}` }
        });
    }

    protected async popover(summary: string): Promise<MarkdownStringImpl> {
        const figures = await this.figures.figures().catch(() => undefined);
        const details = [this.trigger ? completionDetailsMarkdown(this.trigger(), figures, this.figures.pendingChecks) : '', nextEditMarkdown(this.nextEdit?.())]
            .filter(Boolean).join('\n\n');
        const markdown = new MarkdownStringImpl(undefined, { isTrusted: { enabledCommands: [SHOW_COMPLETION_LOG, RESET_COMPLETION_FIGURES] } });
        markdown.appendText(summary);
        return markdown.appendMarkdown(details ? `\n\n${details}` : '');
    }
}
