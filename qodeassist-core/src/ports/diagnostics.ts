/** A problem a language server or linter reported, as the IDE's problem view has it. */
export interface Diagnostic {
    /** Absolute file-system path. */
    path: string;
    /** 1-based. */
    line: number;
    column: number;
    severity: 'error' | 'warning' | 'info' | 'hint';
    message: string;
    source?: string;
}

/** The IDE's current problems (language servers, linters); only the frontend knows them in Theia. */
export interface IDiagnostics {
    get(path?: string): Promise<Diagnostic[]>;
}
