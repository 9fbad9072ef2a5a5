import { Command, CommandContribution, CommandRegistry } from '@theia/core';
import { FrontendApplicationContribution } from '@theia/core/lib/browser';
import { inject, injectable } from '@theia/core/shared/inversify';
import { QodeAssistLogService } from '../common/log-protocol';
import { LogClientImpl } from './log-client';
import { codeHighlighter } from './chat/code-highlighter';
import { QodeAssistPreferences } from './qodeassist-preferences';

export const SHOW_LOG: Command = { id: 'qodeassist.showLog', category: 'QodeAssist', label: 'Show Log' };

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
