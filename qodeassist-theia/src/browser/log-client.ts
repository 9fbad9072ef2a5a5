import { inject, injectable } from '@theia/core/shared/inversify';
import { OutputChannel, OutputChannelManager } from '@theia/output/lib/browser/output-channel';
import { LogLine, QodeAssistLogClient } from '../common/log-protocol';

/** The backend's log lines of this window, in the "QodeAssist" output channel. */
@injectable()
export class LogClientImpl implements QodeAssistLogClient {
    @inject(OutputChannelManager) protected readonly outputs: OutputChannelManager;

    get channel(): OutputChannel {
        return this.outputs.getChannel('QodeAssist');
    }

    onLog(lines: LogLine[]): void {
        for (const line of lines) {
            this.append(line);
        }
    }

    /** A line of the backend's, or one the frontend logs itself (its category is its own). */
    append(line: Omit<LogLine, 'category'> & { category: string }): void {
        this.channel.appendLine(`${line.time} [${line.level}] ${line.category}: ${line.message}`);
    }
}
