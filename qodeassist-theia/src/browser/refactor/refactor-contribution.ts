import type { ErrorInfo } from '@qodeassist/core';
import {
    Command, CommandContribution, CommandRegistry, Disposable, MenuContribution, MenuModelRegistry, MessageService, nls, QuickInputService, QuickPickItem
} from '@theia/core';
import { KeybindingContribution, KeybindingRegistry, open, OpenerService, StorageService } from '@theia/core/lib/browser';
import { ContextKey, ContextKeyService } from '@theia/core/lib/browser/context-key-service';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import { EDITOR_CONTEXT_MENU } from '@theia/editor/lib/browser/editor-menu';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import { MonacoEditor } from '@theia/monaco/lib/browser/monaco-editor';
import * as monaco from '@theia/monaco-editor-core';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { AgentChoice } from '../../common/chat-protocol';
import { QodeAssistRefactorService, RefactorAnswer, SavedInstruction } from '../../common/refactor-protocol';
import { openEditorFiles } from '../open-editors';
import { QodeAssistPreferences, toolSettingsOf } from '../qodeassist-preferences';
import { QodeAssistSwitch } from '../qodeassist-switch';
import { OPEN_CONFIGURATION_COMMAND } from '../shared/configuration-target';
import { settingsTargetFor } from '../shared/error-affordance';
import { QodeAssistChatClientImpl } from '../shared/qodeassist-chat-client';
import { placeOf } from '../workspace-paths';
import { InlineRefactor, RefactorHost, RefactorRun } from './inline-refactor';

export namespace QodeAssistRefactorCommands {
    export const OPEN: Command = Command.toLocalizedCommand({ id: 'qodeassist.refactor.open', category: 'QodeAssist', label: 'Quick Refactor…' }, 'qodeassist/refactor/open');
    export const ACCEPT: Command = Command.toLocalizedCommand({ id: 'qodeassist.refactor.accept', category: 'QodeAssist', label: 'Accept Refactor' }, 'qodeassist/refactor/acceptCommand');
    export const REJECT: Command = Command.toLocalizedCommand({ id: 'qodeassist.refactor.reject', category: 'QodeAssist', label: 'Reject Refactor' }, 'qodeassist/refactor/rejectCommand');
    export const INSTRUCTIONS: Command = Command.toLocalizedCommand({ id: 'qodeassist.refactor.instructions', category: 'QodeAssist', label: 'Manage Refactor Instructions…' }, 'qodeassist/refactor/instructions');
}

const LAST_INSTRUCTION_KEY = 'qodeassist.refactor.lastInstruction';

interface InstructionItem extends QuickPickItem {
    instruction?: SavedInstruction;
    action?: 'new';
}

const EDIT_BUTTON = { iconClass: 'codicon codicon-edit', tooltip: nls.localize('qodeassist/refactor/editInstruction', 'Edit (opens its file)') };
const DUPLICATE_BUTTON = { iconClass: 'codicon codicon-copy', tooltip: nls.localize('qodeassist/refactor/duplicateInstruction', 'Duplicate') };
const DELETE_BUTTON = { iconClass: 'codicon codicon-trash', tooltip: nls.localize('qodeassist/refactor/deleteInstruction', 'Delete') };

/**
 * Quick refactor in every Monaco editor: the hotkey and the context-menu entry open an inline
 * refactor at the selection; Accept (Ctrl+Enter) and Reject (Esc) act on the one of the current
 * editor. The saved-instructions library is managed from its picker.
 */
@injectable()
export class RefactorContribution implements CommandContribution, KeybindingContribution, MenuContribution, RefactorHost {
    @inject(QodeAssistRefactorService) protected readonly service: QodeAssistRefactorService;
    @inject(QodeAssistChatClientImpl) protected readonly client: QodeAssistChatClientImpl;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(EditorManager) protected readonly editors: EditorManager;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(ContextKeyService) protected readonly contextKeys: ContextKeyService;
    @inject(QuickInputService) protected readonly quickInput: QuickInputService;
    @inject(MessageService) protected readonly messages: MessageService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(StorageService) protected readonly storage: StorageService;
    @inject(CommandRegistry) protected readonly commands: CommandRegistry;
    @inject(QodeAssistSwitch) protected readonly qodeAssistSwitch: QodeAssistSwitch;

    /** One refactor per editor at most. */
    protected readonly refactors = new Map<monaco.editor.ICodeEditor, InlineRefactor>();
    protected activeKey: ContextKey<boolean>;
    protected reviewKey: ContextKey<boolean>;
    protected last: string | undefined;

    @postConstruct()
    protected init(): void {
        this.activeKey = this.contextKeys.createKey<boolean>('qodeassistRefactorActive', false);
        this.reviewKey = this.contextKeys.createKey<boolean>('qodeassistRefactorReview', false);
        this.editors.onCurrentEditorChanged(() => this.updateKeys());
        void this.storage.getData<string>(LAST_INSTRUCTION_KEY).then(last => { this.last = this.last ?? last; });
    }

    registerCommands(commands: CommandRegistry): void {
        commands.registerCommand(QodeAssistRefactorCommands.OPEN, {
            execute: () => this.open(),
            isEnabled: () => this.currentControl() !== undefined
        });
        commands.registerCommand(QodeAssistRefactorCommands.ACCEPT, {
            execute: () => this.current()?.accept(),
            isEnabled: () => this.current()?.phase === 'review'
        });
        commands.registerCommand(QodeAssistRefactorCommands.REJECT, {
            execute: () => this.current()?.reject(),
            isEnabled: () => this.current() !== undefined
        });
        commands.registerCommand(QodeAssistRefactorCommands.INSTRUCTIONS, {
            execute: async () => {
                const picked = await this.pickInstruction();
                if (picked !== undefined && this.current()) {
                    void this.current()!.start(picked);
                }
            }
        });
    }

    registerKeybindings(keybindings: KeybindingRegistry): void {
        // Ctrl+Enter and Esc are the inline refactor's own while the focus is in its editor (a Theia keybinding on a
        // global context would also fire from the chat or a dialog); the Accept and Reject commands stay in the palette.
        keybindings.registerKeybinding({ command: QodeAssistRefactorCommands.OPEN.id, keybinding: 'ctrlcmd+alt+r', when: 'editorFocus' });
    }

    registerMenus(menus: MenuModelRegistry): void {
        menus.registerMenuAction([...EDITOR_CONTEXT_MENU, '1_modification'], { commandId: QodeAssistRefactorCommands.OPEN.id, label: nls.localize('qodeassist/refactor/menu', 'QodeAssist: Quick Refactor…') });
    }

    /** Opens the inline refactor at the current editor's selection (or cursor line); an open one there just gets the focus. */
    open(): void {
        const control = this.currentControl();
        if (!control?.getModel()) {
            return;
        }
        const off = this.qodeAssistSwitch.offReason;
        if (off) {
            this.messages.warn(off);
            return;
        }
        let refactor = this.refactors.get(control);
        if (!refactor) {
            refactor = new InlineRefactor(control, this, {
                agent: this.preferences['qodeassist.refactor.agent'], tools: this.preferences['qodeassist.refactor.tools'], thinking: this.preferences['qodeassist.refactor.thinking']
            });
            this.refactors.set(control, refactor);
        }
        const focused = refactor;
        setTimeout(() => focused.focusInput());
        this.updateKeys();
    }

    // ---- RefactorHost ----

    async run(refactor: InlineRefactor, request: RefactorRun): Promise<RefactorAnswer> {
        this.remember(request.instruction);
        const model = refactor.model;
        const path = new URI(model.uri.toString()).path.fsPath();
        const place = placeOf(this.workspace, path);
        const budget = this.preferences['qodeassist.refactor.openFilesTokens'];
        return this.service.refactor({
            id: request.id, ...place, file: path, language: model.getLanguageId(),
            text: request.text, selection: request.selection, cursor: request.cursor,
            instruction: request.instruction, agent: request.agent, tools: request.tools, thinking: request.thinking,
            indent: { insertSpaces: model.getOptions().insertSpaces, tabSize: model.getOptions().tabSize },
            toolSettings: toolSettingsOf(this.preferences),
            openFiles: budget > 0 ? openEditorFiles(this.editors, model.uri.toString(), budget) : undefined,
            openFilesBudget: budget
        });
    }

    async cancel(refactor: InlineRefactor): Promise<void> {
        await this.service.cancel(refactor.id);
    }

    subscribe(id: string, onProgress: Parameters<RefactorHost['subscribe']>[1], onPermission: Parameters<RefactorHost['subscribe']>[2]): Disposable {
        let asked = 0;
        const listening = this.client.onDidReceiveRefactorProgress(event => {
            if (event.id === id) {
                onProgress(event.progress);
            }
        });
        const permissions = this.client.setPermissionHandler(id, request => new Promise(answer => onPermission({ id: ++asked, request, answer })));
        return Disposable.create(() => {
            listening.dispose();
            permissions.dispose();
        });
    }

    agents(): Promise<AgentChoice[]> {
        return this.service.listAgents(this.workspacePath);
    }

    lastInstruction(): string | undefined {
        return this.last;
    }

    openSettings(error: ErrorInfo | undefined): void {
        void this.commands.executeCommand(OPEN_CONFIGURATION_COMMAND, error ? settingsTargetFor(error) : undefined);
    }

    changed(refactor: InlineRefactor): void {
        if (refactor.phase === 'closed' && this.refactors.get(refactor.editor) === refactor) {
            this.refactors.delete(refactor.editor);
        }
        this.updateKeys();
    }

    async saveInstruction(body: string): Promise<void> {
        if (!body.trim()) {
            this.messages.warn(nls.localize('qodeassist/refactor/nothingToSave', 'Type an instruction first, then save it.'));
            return;
        }
        const name = await this.quickInput.input({
            title: nls.localize('qodeassist/refactor/saveTitle', 'Save Refactor Instruction'),
            prompt: nls.localize('qodeassist/refactor/savePrompt', 'A name for the instruction (saved in ~/.qodeassist/instructions)'),
            value: body.trim().split('\n')[0].slice(0, 60)
        });
        if (!name?.trim()) {
            return;
        }
        try {
            const saved = await this.service.saveInstruction(this.workspacePath, { name, body }, 'user');
            this.messages.info(nls.localize('qodeassist/refactor/saved', 'Saved instruction "{0}".', saved.name));
        } catch (error) {
            this.messages.error(error instanceof Error ? error.message : String(error));
        }
    }

    /** The saved instructions, searchable by name and text; item buttons edit (open the file), duplicate and delete. */
    async pickInstruction(): Promise<string | undefined> {
        for (;;) {
            const { instructions, issues } = await this.service.listInstructions(this.workspacePath);
            for (const issue of issues) {
                this.messages.warn(`${issue.file}: ${issue.message}`);
            }
            let reopen = false;
            const items: InstructionItem[] = instructions.map(instruction => ({
                label: instruction.name, description: instruction.scope === 'project' ? nls.localize('qodeassist/refactor/project', 'project') : nls.localize('qodeassist/refactor/user', 'user'),
                detail: instruction.body, instruction, buttons: [EDIT_BUTTON, DUPLICATE_BUTTON, DELETE_BUTTON]
            }));
            const picked = await this.quickInput.showQuickPick<InstructionItem>(
                [...items, { label: `$(add) ${nls.localize('qodeassist/refactor/newInstruction', 'New instruction…')}`, action: 'new', alwaysShow: true }], {
                    title: nls.localize('qodeassist/refactor/pickTitle', 'Refactor Instructions'),
                    placeholder: nls.localize('qodeassist/refactor/pickPlaceholder', 'Search saved instructions by name or text'),
                    matchOnDetail: true,
                    onDidTriggerItemButton: async context => {
                        const instruction = context.item.instruction;
                        if (!instruction) {
                            return;
                        }
                        try {
                            if (context.button === EDIT_BUTTON) {
                                this.quickInput.hide();
                                await open(this.openers, URI.fromFilePath(instruction.file));
                            } else if (context.button === DUPLICATE_BUTTON) {
                                await this.service.duplicateInstruction(this.workspacePath, instruction.id, instruction.scope);
                                reopen = true;
                                this.quickInput.hide();
                            } else if (context.button === DELETE_BUTTON) {
                                await this.service.deleteInstruction(this.workspacePath, instruction.id, instruction.scope);
                                context.removeItem();
                            }
                        } catch (error) {
                            this.messages.error(error instanceof Error ? error.message : String(error));
                        }
                    }
                });
            if (picked?.action === 'new') {
                const body = await this.quickInput.input({ title: nls.localize('qodeassist/refactor/newTitle', 'New Refactor Instruction'), prompt: nls.localize('qodeassist/refactor/newPrompt', 'What the instruction asks for') });
                if (body?.trim()) {
                    await this.saveInstruction(body);
                }
                reopen = true;
            } else if (picked?.instruction) {
                return picked.instruction.body;
            }
            if (!reopen) {
                return undefined;
            }
        }
    }

    // ---- helpers ----

    protected get workspacePath(): string | undefined {
        return this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
    }

    protected currentControl(): monaco.editor.ICodeEditor | undefined {
        const editor = MonacoEditor.get(this.editors.currentEditor);
        return editor?.getControl();
    }

    /** The refactor of the current editor, or the only one open. */
    protected current(): InlineRefactor | undefined {
        const control = this.currentControl();
        return (control && this.refactors.get(control)) ?? (this.refactors.size === 1 ? [...this.refactors.values()][0] : undefined);
    }

    protected updateKeys(): void {
        const current = this.current();
        this.activeKey.set(current !== undefined);
        this.reviewKey.set(current?.phase === 'review');
    }

    protected remember(instruction: string): void {
        this.last = instruction;
        void this.storage.setData(LAST_INSTRUCTION_KEY, instruction);
    }
}
