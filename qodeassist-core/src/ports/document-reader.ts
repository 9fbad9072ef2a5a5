/**
 * What an open editor holds for a file, unsaved changes included. Tools ask it before the
 * disk, so the model reads what the user sees; the bench CLI has no editors (undefined).
 */
export interface IDocumentReader {
    /** The editor text of an open document (absolute path), or undefined when it is not open. */
    readOpen(path: string): Promise<string | undefined>;
}
