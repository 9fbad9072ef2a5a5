import type { FileEditRecord } from '@qodeassist/core';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable } from '@theia/core/shared/inversify';
import { FileService } from '@theia/filesystem/lib/browser/file-service';
import { MonacoTextModelService } from '@theia/monaco/lib/browser/monaco-text-model-service';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import * as monaco from '@theia/monaco-editor-core';
import { FileEditConflict, minimalChange, patchContent } from './file-edit-patch';

/**
 * Writes the files the chat's tools change, the way an editor would: through the Monaco
 * model (so Ctrl+Z in an open editor takes the change back, as one step) and then saved.
 * Undo and reapply from the chat go the same way.
 */
@injectable()
export class ChatFileEdits {
    @inject(MonacoTextModelService) protected readonly models: MonacoTextModelService;
    @inject(FileService) protected readonly files: FileService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;

    /** A tool writes `content` to a file (absolute path). */
    async write(path: string, content: string, options: { created: boolean }): Promise<void> {
        const uri = URI.fromFilePath(path);
        if (options.created) {
            // The tool saw no file; one that appeared since (or an unsaved editor's model) is not overwritten.
            await this.files.create(uri, content, { overwrite: false });
            return;
        }
        await this.replace(uri, () => content);
    }

    /** Takes an edit back. A created file is deleted, unless it was changed since. */
    async undo(record: FileEditRecord): Promise<void> {
        const uri = this.uriOf(record);
        if (record.created) {
            const current = await this.textOf(uri);
            if (patchContent(current, record, 'undo') !== '') {
                throw new FileEditConflict(`${record.path} changed since QodeAssist created it; it was not deleted. Delete it by hand if you no longer want it.`);
            }
            await this.files.delete(uri, { useTrash: false });
            return;
        }
        await this.replace(uri, current => patchContent(current, record, 'undo'));
    }

    /** Applies an undone edit again. */
    async reapply(record: FileEditRecord): Promise<void> {
        const uri = this.uriOf(record);
        if (record.created && !await this.files.exists(uri)) {
            await this.files.create(uri, patchContent('', record, 'reapply'));
            return;
        }
        await this.replace(uri, current => patchContent(current, record, 'reapply'));
    }

    /** A saved chat can come from elsewhere: its edits may only touch the open workspace. */
    protected uriOf(record: FileEditRecord): URI {
        const uri = URI.fromFilePath(record.absolutePath);
        if (!this.workspace.tryGetRoots().some(root => root.resource.isEqualOrParent(uri)) || uri.path.toString().split('/').includes('..')) {
            throw new FileEditConflict(`${record.absolutePath} is outside the open workspace; QodeAssist only changes files in it. Open that workspace to undo or apply this edit.`);
        }
        return uri;
    }

    protected async textOf(uri: URI): Promise<string> {
        const reference = await this.models.createModelReference(uri);
        try {
            return reference.object.textEditorModel.getValue();
        } finally {
            reference.dispose();
        }
    }

    /** One undoable edit on the file's model, the smallest range that changes, then saved. */
    protected async replace(uri: URI, next: (current: string) => string): Promise<void> {
        const reference = await this.models.createModelReference(uri);
        try {
            const model = reference.object.textEditorModel;
            const current = model.getValue();
            const change = minimalChange(current, next(current));
            if (change.start !== change.end || change.text) {
                const start = model.getPositionAt(change.start);
                const end = model.getPositionAt(change.end);
                model.pushStackElement();
                model.pushEditOperations([], [{ range: new monaco.Range(start.lineNumber, start.column, end.lineNumber, end.column), text: change.text }], () => null);
                model.pushStackElement();
            }
            await reference.object.save();
        } finally {
            reference.dispose();
        }
    }
}
