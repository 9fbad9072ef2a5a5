import { Command, CommandRegistry } from '@theia/core';
import { AbstractViewContribution } from '@theia/core/lib/browser';
import { injectable } from '@theia/core/shared/inversify';
import { configurationTargetOf, OPEN_CONFIGURATION_COMMAND } from '../shared/configuration-target';
import { ConfigurationWidget } from './configuration-widget';

export const OPEN_CONFIGURATION: Command = Command.toLocalizedCommand({ id: OPEN_CONFIGURATION_COMMAND, category: 'QodeAssist', label: 'Open Configuration' }, 'qodeassist/config/open');

/**
 * "QodeAssist: Open Configuration" opens the configuration view in the editor area; called with a
 * ConfigurationTarget (an error's "Open Settings"), it brings that place into sight and focuses it.
 */
@injectable()
export class ConfigurationContribution extends AbstractViewContribution<ConfigurationWidget> {
    constructor() {
        super({ widgetId: ConfigurationWidget.ID, widgetName: ConfigurationWidget.LABEL, defaultWidgetOptions: { area: 'main' } });
    }

    override registerCommands(commands: CommandRegistry): void {
        super.registerCommands(commands);
        commands.registerCommand(OPEN_CONFIGURATION, {
            execute: async (target?: unknown) => {
                const widget = await this.openView({ activate: true, reveal: true });
                const place = configurationTargetOf(target);
                if (place) {
                    widget.reveal(place);
                }
            }
        });
    }
}
