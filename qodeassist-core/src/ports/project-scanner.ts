/** A project file as tools see it. */
export interface ScannedFile {
    absolute: string;
    /** Relative to its root, `/`-separated. */
    relative: string;
    root: string;
}

/**
 * Enumerates the project's files, ignore rules applied, in a stable order. The backend
 * adapter walks the file system (Theia's backend and the bench CLI share it); an IDE with
 * its own index could answer faster.
 */
export interface IProjectScanner {
    files(from: ScannedFile, signal?: AbortSignal): AsyncIterable<ScannedFile>;
}
