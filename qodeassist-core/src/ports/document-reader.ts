/**
 * What an open editor holds for a file, unsaved changes included. Tools ask it before the
 * disk, so the model reads what the user sees; the bench CLI has no editors (undefined).
 */
export interface IDocumentReader {
    /** The editor text of an open document (absolute path), or undefined when it is not open. */
    readOpen(path: string): Promise<string | undefined>;
}

/**
 * Writes a file the way the IDE would: through its editor model, so the change lands on
 * the editor's undo stack and is saved. The bench CLI has none; tools write the disk.
 */
export interface IDocumentWriter {
    /** Replaces the content of a file (absolute path), creating it when `created`; resolves once saved. */
    write(path: string, content: string, options: { created: boolean }): Promise<void>;
}
