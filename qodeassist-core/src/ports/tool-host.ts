import { Diagnostic } from './diagnostics';
import { PermissionAnswer, PermissionRequest } from './permission-prompt';

/**
 * What the tools ask of the host they run in: the user's permission, the editors' unsaved
 * text, the problems shown, writes through the editor (undo, dirty state). The IDE answers
 * through its frontend; the bench from its `--allow` classes, with no editors at all.
 */
export interface ToolHost {
    /** A write or execute tool wants to run: whoever started the request shows the exact arguments and the user answers. */
    requestToolPermission(ownerId: string, request: PermissionRequest): Promise<PermissionAnswer>;
    /** The problems the host shows (language servers, linters) for a file path, or all. */
    getDiagnostics?(path?: string): Promise<Diagnostic[]>;
    /** The text of an open editor, unsaved changes included; undefined when not open. */
    readOpenDocument?(path: string): Promise<string | undefined>;
    /** Writes through the editor model; without it, the tools write the file themselves. */
    writeDocument?(path: string, content: string, options: { created: boolean }): Promise<void>;
}
