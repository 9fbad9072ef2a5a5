import { Command, CommandRegistry, MenuModelRegistry, MessageService, QuickInputButton, QuickInputService, QuickPickItem } from '@theia/core';
import { AbstractViewContribution, ApplicationShell, codicon, ConfirmDialog, KeybindingRegistry, open, OpenerService, WidgetManager } from '@theia/core/lib/browser';
import { SecondaryWindowHandler } from '@theia/core/lib/browser/secondary-window-handler';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import { FileDialogService } from '@theia/filesystem/lib/browser/file-dialog/file-dialog-service';
import { FileService } from '@theia/filesystem/lib/browser/file-service';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { ChatStorage, ChatSummary, QodeAssistChatService } from '../../common/chat-protocol';
import { QodeAssistPreferences } from '../qodeassist-preferences';
import { ChatViewOptions, newChatViewKey } from './chat-view-identity';
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
    export const IMPORT = command('import', 'Import Chat from JSON…');
    /** Opens a saved chat (arguments: chat id, storage location); used by the history and "open the original chat". */
    export const OPEN_SAVED: Command = { id: 'qodeassist.chat.openSaved' };
}

interface ChatPick extends QuickPickItem {
    chat: ChatSummary;
}

const RENAME: QuickInputButton = { iconClass: codicon('edit'), tooltip: 'Rename' };
const EXPORT: QuickInputButton = { iconClass: codicon('markdown'), tooltip: 'Export as Markdown' };
const EXPORT_JSON: QuickInputButton = { iconClass: codicon('json'), tooltip: 'Export as JSON (with attachments; Import Chat reads it)' };
const IMPORT: QuickInputButton = { iconClass: codicon('cloud-upload'), tooltip: 'Import a chat exported as JSON' };
/** The largest file Import reads (the backend checks again). */
const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
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
    @inject(FileDialogService) protected readonly fileDialogs: FileDialogService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(MessageService) protected readonly messages: MessageService;
    /** The chat the user used last: the one a "move" command moves. */
    protected lastChat: ChatWidget | undefined;
    /** Saved chats on their way into a view, by chat id: opening one twice at once fills one view. */
    protected readonly openingSaved = new Map<string, Promise<ChatWidget>>();

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
        commands.registerCommand(QodeAssistChatCommands.IMPORT, {
            execute: () => this.importChat()
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
        for (const command of [QodeAssistChatCommands.NEW, QodeAssistChatCommands.HISTORY, QodeAssistChatCommands.IMPORT, ...PLACEMENTS.map(([c]) => c), QodeAssistChatCommands.TO_WINDOW]) {
            menus.registerMenuAction([...ChatViewContribution.VIEW_MENU, 'qodeassist'], { commandId: command.id, label: command.label });
        }
    }

    static readonly VIEW_MENU = ['menubar', 'view', 'views'];

    /** An empty chat view, always a new one: its key was never used by a view of this window, before or after a reload. */
    protected async newChat(): Promise<ChatWidget> {
        const taken = new Set(this.widgets.getWidgets(ChatWidget.ID).map(widget => widget.id));
        const options: ChatViewOptions = { instance: newChatViewKey(id => taken.has(id)) };
        const chat = await this.widgets.getOrCreateWidget<ChatWidget>(ChatWidget.ID, options);
        await this.shell.addWidget(chat, { area: this.areaForNewChat(chat) });
        await this.shell.activateWidget(chat.id);
        return chat;
    }

    /** Beside the chat used last; after a reload, before any was used, beside the chats restored; else in the right sidebar. */
    protected areaForNewChat(chat: ChatWidget): ApplicationShell.Area {
        const used = this.lastChat && !this.lastChat.isDisposed ? [this.lastChat] : [];
        const others = this.widgets.getWidgets(ChatWidget.ID).filter(widget => widget !== chat && widget.isAttached);
        for (const widget of [...used, ...others]) {
            const area = this.shell.getAreaFor(widget);
            if (area) {
                return area;
            }
        }
        return 'right';
    }

    protected storage(location: ChatStorage['location'] = this.preferences['qodeassist.chat.historyLocation']): ChatStorage {
        return { location, workspacePath: this.workspace.tryGetRoots()[0]?.resource.path.fsPath() };
    }

    /**
     * Shows a saved chat: in the view that already shows it (or is opening it, as a view restored
     * after a reload does), else in a new chat view; never in a view that shows another chat.
     */
    protected async openSaved(chatId: string, location?: ChatStorage['location']): Promise<void> {
        let view = this.openingSaved.get(chatId);
        if (!view) {
            const opening = this.viewFor(chatId, location);
            view = opening;
            this.openingSaved.set(chatId, opening);
            const done = () => {
                if (this.openingSaved.get(chatId) === opening) {
                    this.openingSaved.delete(chatId);
                }
            };
            opening.then(done, done);
        }
        await this.shell.activateWidget((await view).id);
    }

    protected async viewFor(chatId: string, location?: ChatStorage['location']): Promise<ChatWidget> {
        const [shown] = await this.viewsOf(chatId);
        if (shown) {
            return shown;
        }
        const chat = await this.newChat();
        await chat.openSaved(chatId, location);
        return chat;
    }

    /** The open views of a chat. */
    protected async viewsOf(chatId: string): Promise<ChatWidget[]> {
        const views: ChatWidget[] = [];
        for (const widget of this.widgets.getWidgets(ChatWidget.ID)) {
            if (widget instanceof ChatWidget && await widget.currentChatId() === chatId) {
                views.push(widget);
            }
        }
        return views;
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
                chat, label: chat.title, description: `${new Date(chat.updatedAt).toLocaleString()} · ${chat.messages} messages${chat.compressedFrom ? ' · summary' : ''}${chat.cost ? ` · cost ${chat.cost.unpriced ? '≥ ' : ''}${chat.cost.amounts.map(cost => new Intl.NumberFormat(undefined, { style: 'currency', currency: cost.currency, maximumFractionDigits: cost.amount < 1 ? 4 : 2 }).format(cost.amount)).join(' + ')}` : ''}`,
                buttons: [RENAME, EXPORT, EXPORT_JSON, DELETE]
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
                        for (const view of await this.viewsOf(chat.id)) {
                            view.renamed(title.trim());
                        }
                    }
                } else if (button === EXPORT || button === EXPORT_JSON) {
                    pick.hide();
                    await this.exportChat(storage, chat, button === EXPORT ? 'md' : 'json');
                } else if (button === DELETE) {
                    // Deleting cannot be undone: the chat file and its attachments go.
                    pick.hide();
                    const confirmed = await new ConfirmDialog({
                        title: 'Delete this chat?', msg: `"${chat.title}" and its attachments are deleted from the disk; this cannot be undone.`, ok: 'Delete'
                    }).open();
                    if (confirmed) {
                        await this.chatService.deleteChat(storage, chat.id);
                    }
                    void this.showHistory();
                }
            } catch (error) {
                this.messages.error(`QodeAssist: ${error instanceof Error ? error.message : String(error)}`);
            }
        });
        pick.buttons = [IMPORT];
        pick.onDidTriggerButton(button => {
            if (button === IMPORT) {
                pick.hide();
                void this.importChat();
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

    /** Asks for a chat exported as JSON, imports it as a new chat of the history shown, and opens it. */
    protected async importChat(): Promise<void> {
        try {
            const uri = await this.fileDialogs.showOpenDialog({ title: 'Import a QodeAssist chat', canSelectFiles: true, canSelectFolders: false, filters: { 'Chat export': ['json'] } });
            if (!uri) {
                return;
            }
            const stat = await this.files.resolve(uri, { resolveMetadata: true });
            if ((stat.size ?? 0) > MAX_IMPORT_BYTES) {
                throw new Error(`${uri.path.base} is larger than a chat export may be (${MAX_IMPORT_BYTES / 1024 / 1024} MB).`);
            }
            const storage = this.storage();
            const imported = await this.chatService.importChat(storage, (await this.files.read(uri)).value);
            if (imported.notes.length > 0) {
                this.messages.warn(`QodeAssist imported "${imported.title}": ${imported.notes.join(' ')}`);
            }
            await this.openSaved(imported.chatId, storage.location);
        } catch (error) {
            this.messages.error(`QodeAssist: the chat was not imported: ${error instanceof Error ? error.message : String(error)}`);
        }
    }

    /** Writes the chat as Markdown or JSON into the workspace (`.qodeassist/exports/`) and opens it. */
    protected async exportChat(storage: ChatStorage, chat: ChatSummary, kind: 'md' | 'json'): Promise<void> {
        const text = kind === 'md' ? await this.chatService.exportChat(storage, chat.id) : await this.chatService.exportChatJson(storage, chat.id);
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
        const uri = folder.resolve(`${name}-${chat.id.slice(0, 8)}.${kind}`);
        await this.files.write(uri, text);
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
