import { formatFile } from '../../context/env-block';

/** What the user wants rewritten: a file, the selection in it and the cursor, as offsets into `text`. */
export interface RefactorTarget {
    /** Workspace-relative path, for the prompt and the agents' [match] rules. */
    filePath: string;
    language: string;
    text: string;
    selection: { start: number; end: number };
    cursor: number;
}

/** How the editor indents this file. */
export interface IndentStyle {
    insertSpaces: boolean;
    tabSize: number;
}

export interface RefactorPromptOptions {
    /** Whole lines of the file shown before and after the selection. */
    linesAround: number;
    indent: IndentStyle;
    /** Other open files the model may read, already cut to a budget. */
    openFiles?: ReadonlyArray<{ path: string; content: string }>;
}

export const DEFAULT_LINES_AROUND = 60;

export const SELECTION_START = '<selection_start>';
export const SELECTION_END = '<selection_end>';
export const CURSOR = '<cursor>';

/**
 * The code around the selection with its markers: `<selection_start>` and `<selection_end>`
 * bracket what is to be rewritten, `<cursor>` marks the caret (left out when it sits on a
 * selection edge, where it tells nothing new).
 */
export function markedCode(target: RefactorTarget, linesAround: number): string {
    const { text } = target;
    const start = clamp(target.selection.start, text);
    const end = Math.max(start, clamp(target.selection.end, text));
    const cursor = clamp(target.cursor, text);
    const from = lineStartBefore(text, start, linesAround);
    const to = lineEndAfter(text, end, linesAround);
    const marks: Array<{ at: number; mark: string; order: number }> = [
        { at: start, mark: SELECTION_START, order: 0 },
        { at: end, mark: SELECTION_END, order: 2 }
    ];
    if (cursor !== start && cursor !== end && cursor >= from && cursor <= to) {
        marks.push({ at: cursor, mark: CURSOR, order: 1 });
    }
    marks.sort((a, b) => a.at - b.at || a.order - b.order);
    let out = '';
    let at = from;
    for (const mark of marks) {
        out += text.slice(at, mark.at) + mark.mark;
        at = mark.at;
    }
    return out + text.slice(at, to);
}

/**
 * The selection's base indentation — that of its least-indented non-blank line — and whether
 * it starts inside a line's code (then the first line continues what is left of it).
 */
export function selectionIndent(target: RefactorTarget): { indent: string; startsMidLine: boolean } {
    const start = clamp(target.selection.start, target.text);
    const end = Math.max(start, clamp(target.selection.end, target.text));
    const lineStart = target.text.lastIndexOf('\n', start - 1) + 1;
    const firstIndent = /^[ \t]*/.exec(target.text.slice(lineStart))![0];
    const startsMidLine = start > lineStart + firstIndent.length;
    const lines = target.text.slice(lineStart, end).split('\n').filter(line => line.trim());
    const indents = lines.map(line => /^[ \t]*/.exec(line)![0]);
    const indent = indents.reduce((least, candidate) => candidate.length < least.length ? candidate : least, indents[0] ?? firstIndent);
    return { indent: startsMidLine ? firstIndent : indent, startsMidLine };
}

export function describeIndent(style: IndentStyle): string {
    return style.insertSpaces ? `${style.tabSize} spaces per level` : 'tabs';
}

/**
 * The `refactor` system layer: file facts, the code around the selection with its markers,
 * the indentation rules, optional open files, and the output rules. The instruction itself
 * is the user message.
 */
export function refactorLayer(target: RefactorTarget, options: RefactorPromptOptions): string {
    const { indent, startsMidLine } = selectionIndent(target);
    const fence = fenceFor(target.text);
    const parts = [
        'You rewrite the selected code of a file as the user instructs.',
        formatFile({ activeFile: target.filePath, language: target.language }),
        `Indentation: ${describeIndent(options.indent)}.`
    ];
    for (const file of options.openFiles ?? []) {
        parts.push(`Open file ${file.path}:\n${fenceFor(file.content)}\n${file.content}${file.content.endsWith('\n') ? '' : '\n'}${fenceFor(file.content)}`);
    }
    parts.push(`The code around the selection. ${SELECTION_START} and ${SELECTION_END} mark the selection${target.cursor !== target.selection.start && target.cursor !== target.selection.end ? `, ${CURSOR} marks the cursor` : ''}:\n${fence}${target.language}\n${markedCode(target, options.linesAround)}\n${fence}`);
    parts.push([
        'Rules:',
        `- Reply with the code that replaces everything between ${SELECTION_START} and ${SELECTION_END}, in one fenced code block, and nothing else: no explanation before or after it.`,
        '- Do not repeat code outside the selection, and do not write the markers.',
        startsMidLine
            ? '- The selection starts inside a line: your first line continues that line; indent the following lines as the file does.'
            : `- Indent as the file does: the selection's least-indented line starts with ${indent ? JSON.stringify(indent) : 'no indentation'}; keep that base.`,
        '- Keep behaviour unless the instruction asks to change it.'
    ].join('\n'));
    return parts.join('\n\n');
}

/** A code fence longer than any run of backticks in the text, so the text cannot close it. */
export function fenceFor(text: string): string {
    const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map(run => run.length));
    return '`'.repeat(longest + 1);
}

function clamp(offset: number, text: string): number {
    return Math.max(0, Math.min(offset, text.length));
}

/** The start of the line `lines` lines above the one holding `offset`. */
function lineStartBefore(text: string, offset: number, lines: number): number {
    let at = text.lastIndexOf('\n', offset - 1) + 1;
    for (let count = 0; count < lines && at > 0; count++) {
        at = text.lastIndexOf('\n', at - 2) + 1;
    }
    return at;
}

/** The end (before its newline) of the line `lines` lines below the one holding `offset`. */
function lineEndAfter(text: string, offset: number, lines: number): number {
    let at = text.indexOf('\n', offset);
    // A selection of whole lines ends at the start of the next line: that line is the first one after it.
    const first = offset > 0 && text[offset - 1] === '\n' ? 1 : 0;
    for (let count = first; count < lines && at !== -1; count++) {
        const next = text.indexOf('\n', at + 1);
        if (next === -1 && at === text.length - 1) {
            break; // The file's final line break ends its last line; nothing follows it.
        }
        at = next;
    }
    return at === -1 ? text.length : at;
}
