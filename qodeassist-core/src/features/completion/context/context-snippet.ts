/** Where a piece of cross-file context came from. */
export type ContextSourceKind = 'definition' | 'recent-edit' | 'similar';

/** Which language family a file's imports and declarations are read as; undefined: none of ours. */
export type SourceFamily = 'ts' | 'py';

/** One piece of another file (or of a part of this one the window does not show) offered to the model. */
export interface ContextSnippet {
    source: ContextSourceKind;
    /** Workspace-relative path, as the model sees it. */
    path: string;
    /** Whole lines of that file. */
    content: string;
    /** 0-based line of the file where `content` starts. */
    startLine: number;
    /** The symbol a definition is for. */
    symbol?: string;
    /** Higher is better, compared within one source only. */
    score: number;
}

/** What a template renders: one entry per file, its snippets in line order. */
export interface RepoFile {
    path: string;
    content: string;
    /** The kinds of snippet it holds, most important first (instruct templates label by the first). */
    source: ContextSourceKind;
}

/** A snippet as the completion log and the manifest list it. */
export interface ContextSnippetRecord {
    source: ContextSourceKind;
    path: string;
    symbol?: string;
    tokens: number;
}

/** A place the IDE's definition providers named for an identifier near the cursor. */
export interface DefinitionLocation {
    /** Absolute path. */
    path: string;
    /** 0-based line of the definition's name. */
    line: number;
    symbol?: string;
}

/** A region the user changed lately, as its lines read now; the newest first in any list. */
export interface RecentEdit {
    /** Absolute path. */
    path: string;
    /** 0-based line where `text` starts. */
    startLine: number;
    text: string;
}

/** The family of a language id or a file name. */
export function sourceFamily(languageOrPath: string): SourceFamily | undefined {
    const value = languageOrPath.toLowerCase();
    if (/^(typescript|javascript|typescriptreact|javascriptreact)$/.test(value) || /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(value)) {
        return 'ts';
    }
    if (value === 'python' || /\.pyi?$/.test(value)) {
        return 'py';
    }
    return undefined;
}
