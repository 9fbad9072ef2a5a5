import { EditorManager } from '@theia/editor/lib/browser/editor-manager';

/**
 * Other open file editors with their current text (unsaved changes included), most recently
 * used first, cut to about `budgetTokens` (4 characters a token). The backend filters them
 * again against the workspace and its ignore rules.
 */
export function openEditorFiles(editors: EditorManager, exceptUri: string, budgetTokens: number): Array<{ path: string; content: string }> {
    const files: Array<{ path: string; content: string }> = [];
    let chars = 0;
    for (const widget of budgetTokens > 0 ? editors.all : []) {
        const uri = widget.editor.uri;
        if (uri.scheme !== 'file' || uri.toString() === exceptUri) {
            continue;
        }
        const content = widget.editor.document.getText();
        if (chars + content.length > budgetTokens * 4) {
            break;
        }
        chars += content.length;
        files.push({ path: uri.path.fsPath(), content });
    }
    return files;
}
