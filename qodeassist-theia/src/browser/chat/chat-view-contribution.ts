import { Command, CommandRegistry, MenuModelRegistry, MessageService, QuickInputButton, QuickInputService, QuickPickItem } from '@theia/core';
import { AbstractViewContribution, ApplicationShell, codicon, KeybindingRegistry, open, OpenerService, WidgetManager } from '@theia/core/lib/browser';
import { SecondaryWindowHandler } from '@theia/core/lib/browser/secondary-window-handler';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import { FileService } from '@theia/filesystem/lib/browser/file-service';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { ChatStorage, ChatSummary, QodeAssistChatService } from '../../common/chat-protocol';
import { QodeAssistPreferences } from '../qodeassist-preferences';
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
    export const HISTORY = command('history', 'Chat History…');
    export const SUMMARIZE = command('summarize', 'Summarize Chat');
    /** Opens a saved chat (arguments: chat id, storage location); used by the history and "open the original chat". */
    export const OPEN_SAVED: Command = { id: 'qodeassist.chat.openSaved' };
}

interface ChatPick extends QuickPickItem {
    chat: ChatSummary;
}

const RENAME: QuickInputButton = { iconClass: codicon('edit'), tooltip: 'Rename' };
const EXPORT: QuickInputButton = { iconClass: codicon('markdown'), tooltip: 'Export as Markdown' };
const DELETE: QuickInputButton = { iconClass: codicon('trash'), tooltip: 'Delete' };

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
            // Ctrl+Alt+I is Theia AI's chat: products ship both.
            toggleKeybinding: 'ctrlcmd+alt+k'
        });
    }

    @inject(WidgetManager) protected readonly widgets: WidgetManager;
    @inject(SecondaryWindowHandler) protected readonly secondaryWindows: SecondaryWindowHandler;
    @inject(QodeAssistChatService) protected readonly chatService: QodeAssistChatService;
    @inject(QuickInputService) protected readonly quickInput: QuickInputService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(FileService) protected readonly files: FileService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(MessageService) protected readonly messages: MessageService;
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
            execute: () => this.newChat()
        });
        commands.registerCommand(QodeAssistChatCommands.HISTORY, {
            execute: () => this.showHistory()
        });
        commands.registerCommand(QodeAssistChatCommands.SUMMARIZE, {
            execute: async () => (await this.currentChat()).summarize()
        });
        commands.registerCommand(QodeAssistChatCommands.OPEN_SAVED, {
            execute: (chatId: string, location?: ChatStorage['location']) => this.openSaved(chatId, location)
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
        for (const command of [QodeAssistChatCommands.NEW, QodeAssistChatCommands.HISTORY, ...PLACEMENTS.map(([c]) => c), QodeAssistChatCommands.TO_WINDOW]) {
            menus.registerMenuAction([...ChatViewContribution.VIEW_MENU, 'qodeassist'], { commandId: command.id, label: command.label });
        }
    }

    static readonly VIEW_MENU = ['menubar', 'view', 'views'];

    protected async newChat(): Promise<ChatWidget> {
        const chat = await this.widgets.getOrCreateWidget<ChatWidget>(ChatWidget.ID, { instance: this.nextInstance++ });
        await this.shell.addWidget(chat, { area: this.lastChat && !this.lastChat.isDisposed ? this.shell.getAreaFor(this.lastChat) ?? 'right' : 'right' });
        await this.shell.activateWidget(chat.id);
        return chat;
    }

    protected storage(location: ChatStorage['location'] = this.preferences['qodeassist.chat.historyLocation']): ChatStorage {
        return { location, workspacePath: this.workspace.tryGetRoots()[0]?.resource.path.fsPath() };
    }

    /** Shows a saved chat: in the view that already shows it, else in a new chat view. */
    protected async openSaved(chatId: string, location?: ChatStorage['location']): Promise<void> {
        for (const widget of this.widgets.getWidgets(ChatWidget.ID)) {
            if (widget instanceof ChatWidget && await widget.currentChatId() === chatId) {
                await this.shell.activateWidget(widget.id);
                return;
            }
        }
        const chat = await this.newChat();
        await chat.openSaved(chatId, location);
    }

    /** The saved chats: search by typing, open with Enter, rename / export / delete with the item buttons. */
    protected async showHistory(): Promise<void> {
        const storage = this.storage();
        const pick = this.quickInput.createQuickPick<ChatPick>();
        pick.title = `QodeAssist chats (${storage.location === 'workspace' ? 'workspace' : 'user'})`;
        pick.placeholder = 'Search chats by title';
        pick.matchOnDescription = true;
        const load = async () => {
            const { chats, unreadable } = await this.chatService.listChats(storage);
            pick.items = chats.map(chat => ({
                chat, label: chat.title, description: `${new Date(chat.updatedAt).toLocaleString()} · ${chat.messages} messages${chat.compressedFrom ? ' · summary' : ''}`,
                buttons: [RENAME, EXPORT, DELETE]
            }));
            if (unreadable.length > 0) {
                this.messages.warn(`QodeAssist: ${unreadable.length} chat file(s) could not be read and were left alone: ${unreadable.map(entry => entry.reason).join(' ')}`);
            }
        };
        pick.onDidAccept(() => {
            const chosen = pick.selectedItems[0];
            pick.hide();
            if (chosen) {
                void this.openSaved(chosen.chat.id, storage.location);
            }
        });
        pick.onDidTriggerItemButton(async ({ button, item }) => {
            const { chat } = item as ChatPick;
            try {
                if (button === RENAME) {
                    pick.hide();
                    const title = await this.quickInput.input({ prompt: 'New title', value: chat.title });
                    if (title !== undefined) {
                        await this.chatService.renameChat(storage, chat.id, title);
                    }
                } else if (button === EXPORT) {
                    pick.hide();
                    await this.exportChat(storage, chat);
                } else if (button === DELETE) {
                    await this.chatService.deleteChat(storage, chat.id);
                    await load();
                }
            } catch (error) {
                this.messages.error(`QodeAssist: ${error instanceof Error ? error.message : String(error)}`);
            }
        });
        pick.onDidHide(() => pick.dispose());
        pick.busy = true;
        pick.show();
        try {
            await load();
        } finally {
            pick.busy = false;
        }
    }

    /** Writes the chat as Markdown into the workspace (`.qodeassist/exports/`) and opens it. */
    protected async exportChat(storage: ChatStorage, chat: ChatSummary): Promise<void> {
        const markdown = await this.chatService.exportChat(storage, chat.id);
        const root = this.workspace.tryGetRoots()[0];
        if (!root) {
            throw new Error('Open a workspace folder to export chats into.');
        }
        const name = chat.title.replace(/[^\w\- ]+/g, '').trim().replace(/\s+/g, '-').slice(0, 60) || 'chat';
        const folder = root.resource.resolve('.qodeassist/exports');
        if (!(await this.files.exists(folder))) {
            // As for saved chats (createGitIgnoredFolder in core): an export never lands in a commit by accident; a folder that exists is the user's.
            await this.files.createFolder(folder);
            await this.files.write(folder.resolve('.gitignore'), '*\n');
        }
        const uri = folder.resolve(`${name}-${chat.id.slice(0, 8)}.md`);
        await this.files.write(uri, markdown);
        await open(this.openers, uri);
    }

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
