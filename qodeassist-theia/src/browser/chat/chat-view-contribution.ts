import { Command, CommandRegistry, MenuModelRegistry } from '@theia/core';
import { AbstractViewContribution, ApplicationShell, KeybindingRegistry, WidgetManager } from '@theia/core/lib/browser';
import { SecondaryWindowHandler } from '@theia/core/lib/browser/secondary-window-handler';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import { ChatWidget } from './chat-widget';

export namespace QodeAssistChatCommands {
    const command = (id: string, label: string): Command => Command.toLocalizedCommand({ id: `qodeassist.chat.${id}`, category: 'QodeAssist', label }, `qodeassist/chat/${id}`);
    export const OPEN = command('open', 'Open Chat');
    export const NEW = command('new', 'New Chat');
    export const TO_LEFT = command('moveToLeft', 'Open Chat in Left Sidebar');
    export const TO_RIGHT = command('moveToRight', 'Open Chat in Right Sidebar');
    export const TO_BOTTOM = command('moveToBottom', 'Open Chat in Bottom Panel');
    export const TO_EDITOR = command('moveToEditor', 'Open Chat in Editor Area');
    export const TO_WINDOW = command('moveToWindow', 'Open Chat in Separate Window');
}

const PLACEMENTS: Array<[Command, ApplicationShell.Area, string | undefined]> = [
    [QodeAssistChatCommands.TO_LEFT, 'left', undefined],
    [QodeAssistChatCommands.TO_RIGHT, 'right', undefined],
    [QodeAssistChatCommands.TO_BOTTOM, 'bottom', 'ctrlcmd+alt+j'],
    [QodeAssistChatCommands.TO_EDITOR, 'main', undefined]
];

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

    @inject(WidgetManager) protected readonly widgets: WidgetManager;
    @inject(SecondaryWindowHandler) protected readonly secondaryWindows: SecondaryWindowHandler;
    /** The chat the user used last: the one a "move" command moves. */
    protected lastChat: ChatWidget | undefined;
    protected nextInstance = 1;

    @postConstruct()
    protected trackChats(): void {
        this.shell.onDidChangeActiveWidget(({ newValue }) => {
            if (newValue instanceof ChatWidget) {
                this.lastChat = newValue;
            }
        });
    }

    override registerCommands(commands: CommandRegistry): void {
        super.registerCommands(commands);
        commands.registerCommand(QodeAssistChatCommands.OPEN, {
            execute: () => this.openView({ activate: true, reveal: true })
        });
        commands.registerCommand(QodeAssistChatCommands.NEW, {
            execute: async () => {
                const chat = await this.widgets.getOrCreateWidget<ChatWidget>(ChatWidget.ID, { instance: this.nextInstance++ });
                await this.shell.addWidget(chat, { area: this.lastChat ? this.shell.getAreaFor(this.lastChat) ?? 'right' : 'right' });
                await this.shell.activateWidget(chat.id);
            }
        });
        for (const [command, area] of PLACEMENTS) {
            commands.registerCommand(command, { execute: () => this.moveChat(area) });
        }
        commands.registerCommand(QodeAssistChatCommands.TO_WINDOW, {
            execute: async () => this.secondaryWindows.moveWidgetToSecondaryWindow(await this.currentChat())
        });
    }

    override registerKeybindings(keybindings: KeybindingRegistry): void {
        super.registerKeybindings(keybindings);
        for (const [command, , keybinding] of PLACEMENTS) {
            if (keybinding) {
                keybindings.registerKeybinding({ command: command.id, keybinding });
            }
        }
    }

    override registerMenus(menus: MenuModelRegistry): void {
        super.registerMenus(menus);
        for (const command of [QodeAssistChatCommands.NEW, ...PLACEMENTS.map(([c]) => c), QodeAssistChatCommands.TO_WINDOW]) {
            menus.registerMenuAction([...ChatViewContribution.VIEW_MENU, 'qodeassist'], { commandId: command.id, label: command.label });
        }
    }

    static readonly VIEW_MENU = ['menubar', 'view', 'views'];

    /** The chat to move: the last one used, or the main chat view (opened if need be). */
    protected async currentChat(): Promise<ChatWidget> {
        if (this.lastChat && !this.lastChat.isDisposed) {
            return this.lastChat;
        }
        return this.openView({ activate: false, reveal: true });
    }

    /** Moves the chat, the same widget with its conversation, to another part of the window. */
    protected async moveChat(area: ApplicationShell.Area): Promise<void> {
        const chat = await this.currentChat();
        if (this.shell.getAreaFor(chat) !== area) {
            await this.shell.addWidget(chat, { area });
        }
        await this.shell.activateWidget(chat.id);
    }
}
