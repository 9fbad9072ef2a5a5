import { Command, CommandRegistry } from '@theia/core';
import { AbstractViewContribution } from '@theia/core/lib/browser';
import { injectable } from '@theia/core/shared/inversify';
import { ChatWidget } from './chat-widget';

export namespace QodeAssistChatCommands {
    export const OPEN: Command = Command.toLocalizedCommand(
        { id: 'qodeassist.chat.open', category: 'QodeAssist', label: 'Open Chat' }, 'qodeassist/chat/open');
}

/** The chat view in the right sidebar: a command, a View menu entry and a keybinding toggle it. */
@injectable()
export class ChatViewContribution extends AbstractViewContribution<ChatWidget> {
    constructor() {
        super({
            widgetId: ChatWidget.ID,
            widgetName: ChatWidget.LABEL,
            defaultWidgetOptions: { area: 'right', rank: 100 },
            toggleCommandId: 'qodeassist.chat.toggle',
            toggleKeybinding: 'ctrlcmd+alt+i'
        });
    }

    override registerCommands(commands: CommandRegistry): void {
        super.registerCommands(commands);
        commands.registerCommand(QodeAssistChatCommands.OPEN, {
            execute: () => this.openView({ activate: true, reveal: true })
        });
    }
}
