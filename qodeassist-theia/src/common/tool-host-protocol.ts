import type { Diagnostic, PermissionAnswer, PermissionRequest } from '@qodeassist/core';

/**
 * What the backend's tools ask of the IDE, for the chat and the quick refactor alike: the
 * user's permission, the editors' unsaved text, the problems shown, and writes that go
 * through the editor (undo, dirty state).
 */
export interface ToolHostClient {
    /** A write or execute tool wants to run: the view that started the request shows the exact arguments and the user answers. */
    requestToolPermission(sessionId: string, request: PermissionRequest): Promise<PermissionAnswer>;
    /** The problems the IDE shows (language servers, linters) for a file path, or all. */
    getDiagnostics(path?: string): Promise<Diagnostic[]>;
    /** The text of an open editor for a file path, unsaved changes included; undefined when not open. */
    readOpenDocument(path: string): Promise<string | undefined>;
    /** A tool writes a file: through the editor model (undo, dirty state), then saved. */
    writeDocument(path: string, content: string, options: { created: boolean }): Promise<void>;
}
