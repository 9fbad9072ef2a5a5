import type { ErrorInfo } from '@qodeassist/core';
import { CommandService } from '@theia/core';
import { StatusBar, StatusBarAlignment } from '@theia/core/lib/browser/status-bar/status-bar';
import { inject, injectable } from '@theia/core/shared/inversify';
import { OutputChannel, OutputChannelManager } from '@theia/output/lib/browser/output-channel';

export const SHOW_COMPLETION_LOG = 'qodeassist.completion.showLog';
const ELEMENT = 'qodeassist-completion';

/**
 * The completion's state where users look: a status-bar item (idle, asking, off, or the last
 * error with its category) and an output channel with one line per request. A failure is
 * never silent.
 */
@injectable()
export class CompletionStatus {
    @inject(StatusBar) protected readonly statusBar: StatusBar;
    @inject(OutputChannelManager) protected readonly outputs: OutputChannelManager;
    @inject(CommandService) protected readonly commands: CommandService;

    protected pending = 0;
    protected lastError: ErrorInfo | undefined;
    protected enabled = true;

    get channel(): OutputChannel {
        return this.outputs.getChannel('QodeAssist Completion');
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

    protected render(): void {
        const error = this.lastError;
        const text = !this.enabled ? '$(circle-slash) QodeAssist'
            : this.pending > 0 ? '$(loading~spin) QodeAssist'
                : error ? `$(warning) QodeAssist: ${error.category}` : '$(sparkle) QodeAssist';
        const tooltip = !this.enabled ? 'QodeAssist completion is off (qodeassist.completion.enabled)'
            : this.pending > 0 ? 'QodeAssist is asking for a completion…'
                : error ? `Completion failed: ${error.message} — click for the log` : 'QodeAssist completion is on — click for the log';
        void this.statusBar.setElement(ELEMENT, {
            text, tooltip, alignment: StatusBarAlignment.RIGHT, priority: 100, command: SHOW_COMPLETION_LOG,
            className: error && this.pending === 0 ? 'qa-completion-error' : undefined
        });
    }
}
