import { Command, CommandContribution, CommandRegistry } from '@theia/core';
import { FrontendApplicationContribution } from '@theia/core/lib/browser';
import { inject, injectable } from '@theia/core/shared/inversify';
import { OutputChannel, OutputChannelManager } from '@theia/output/lib/browser/output-channel';
import { LogLine, QodeAssistLogClient, QodeAssistLogService } from '../common/log-protocol';
import { codeHighlighter } from './chat/code-highlighter';
import { QodeAssistPreferences } from './qodeassist-preferences';

export const SHOW_LOG: Command = { id: 'qodeassist.showLog', category: 'QodeAssist', label: 'Show Log' };

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

/** Keeps the backend at the level of `qodeassist.logging.level`, and opens the channel on demand. */
@injectable()
export class LogContribution implements FrontendApplicationContribution, CommandContribution {
    @inject(QodeAssistLogService) protected readonly service: QodeAssistLogService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(LogClientImpl) protected readonly client: LogClientImpl;

    onStart(): void {
        const apply = () => void this.service.setLevel(this.preferences['qodeassist.logging.level']);
        this.preferences.onPreferenceChanged(change => {
            if (change.preferenceName === 'qodeassist.logging.level') {
                apply();
            }
        });
        void this.preferences.ready.then(apply);
        codeHighlighter.reportFailuresTo(message => this.client.append({ time: new Date().toISOString(), level: 'warn', category: 'qodeassist.chat', message }));
    }

    registerCommands(commands: CommandRegistry): void {
        commands.registerCommand(SHOW_LOG, { execute: () => this.client.channel.show({ preserveFocus: true }) });
    }
}
