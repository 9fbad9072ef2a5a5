import { Command, CommandRegistry } from '@theia/core';
import { AbstractViewContribution } from '@theia/core/lib/browser';
import { injectable } from '@theia/core/shared/inversify';
import { ConfigurationWidget } from './configuration-widget';

export const OPEN_CONFIGURATION: Command = Command.toLocalizedCommand({ id: 'qodeassist.configuration.open', category: 'QodeAssist', label: 'Open Configuration' }, 'qodeassist/config/open');

/** "QodeAssist: Open Configuration" opens the configuration view in the editor area. */
@injectable()
export class ConfigurationContribution extends AbstractViewContribution<ConfigurationWidget> {
    constructor() {
        super({ widgetId: ConfigurationWidget.ID, widgetName: ConfigurationWidget.LABEL, defaultWidgetOptions: { area: 'main' } });
    }

    override registerCommands(commands: CommandRegistry): void {
        super.registerCommands(commands);
        commands.registerCommand(OPEN_CONFIGURATION, { execute: () => this.openView({ activate: true, reveal: true }) });
    }
}
