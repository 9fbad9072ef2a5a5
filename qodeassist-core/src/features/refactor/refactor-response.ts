import { withoutThinkBlocks } from '../../wire/think-blocks';
import { CURSOR, IndentStyle, SELECTION_END, SELECTION_START } from './refactor-prompt';

/** What the cleaner needs to know about the selection the answer replaces. */
export interface RefactorCleanOptions {
    /** Indentation of the selection's first line. */
    baseIndent: string;
    /** The selection starts inside a line's code: the answer's first line continues it, unindented. */
    startsMidLine: boolean;
    /** The selection ends with a line break: the replacement does too. */
    endsWithNewline: boolean;
    indent: IndentStyle;
    /** The answer is still streaming: an unclosed fence is not an error, a half-written last line is kept. */
    partial?: boolean;
}

/**
 * A model's answer → the code that replaces the selection: thinking dropped, the first fenced
 * block taken (or, unfenced, stray explanation lines removed), echoed markers removed,
 * indentation converted to the file's style and shifted to the selection's base, the
 * selection's trailing line break kept.
 */
export function cleanRefactorResponse(raw: string, options: RefactorCleanOptions): string {
    const visible = withoutThinkBlocks(raw);
    const code = firstFencedBlock(visible, options.partial) ?? withoutExplanation(visible);
    const lines = stripMarkers(code).split('\n');
    const indented = reindent(lines, options);
    const body = indented.join('\n').replace(/\s+$/, '');
    return body && options.endsWithNewline ? `${body}\n` : body;
}

/** The answer holds a fenced block, if an empty one: "delete the selection" is an answer, a reply without code is not. */
export function hasFencedBlock(raw: string): boolean {
    return firstFencedBlock(withoutThinkBlocks(raw)) !== undefined;
}

/**
 * The content of the first fenced block; undefined when the answer has no fence. While
 * streaming, an open fence yields what came so far, minus a line that may be its closing fence.
 */
export function firstFencedBlock(text: string, partial = false): string | undefined {
    const open = /(^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n/.exec(text);
    if (!open) {
        // A fence still being written (" ``" at the very start) is not prose yet.
        return partial && /^\s*(`{1,3}|~{1,3})[^\n]*$/.test(text) ? '' : undefined;
    }
    const fence = open[2];
    const start = open.index + open[0].length;
    const close = new RegExp(`(^|\\n)[ \\t]*${fence[0]}{${fence.length},}[ \\t]*(\\n|$)`, 'g');
    close.lastIndex = start - 1;
    const end = close.exec(text);
    if (end) {
        return text.slice(start, end.index);
    }
    const body = text.slice(start);
    // The last line may be the closing fence arriving a few characters at a time.
    return partial ? body.replace(new RegExp(`(^|\\n)[ \\t]*${fence[0]}{1,${fence.length}}$`), '') : body;
}

const PROSE_START = /^(here('s| is| are)|sure\b|certainly\b|of course\b|okay\b|ok\b|below\b|this (code|version|change|rewrite|refactor)|the (code|refactored|updated|rewritten|above|following)\b|i('ve| have| made| changed| replaced| renamed| extracted)\b|i (will|would)\b|note\b|explanation\b|changes?( made)?:)/i;

/** A line of words only, capitalized and ending like a sentence: no code reads like that. */
const SENTENCE = /^[A-Z][a-z']*(?:,? [A-Za-z'-]+)+[.!?:]$/;

/** An unfenced answer: leading and trailing lines that read as prose are dropped. */
export function withoutExplanation(text: string): string {
    const lines = text.split('\n');
    const prose = (line: string) => PROSE_START.test(line.trim()) || SENTENCE.test(line.trim());
    let first = 0;
    while (first < lines.length && (prose(lines[first]) || !lines[first].trim())) {
        first++;
    }
    let last = lines.length;
    while (last > first && (prose(lines[last - 1]) || !lines[last - 1].trim())) {
        last--;
    }
    return lines.slice(first, last).join('\n');
}

function stripMarkers(code: string): string {
    return code.split(SELECTION_START).join('').split(SELECTION_END).join('').split(CURSOR).join('');
}

/** Leading whitespace in the file's style, the whole answer shifted so its least-indented line sits at the selection's base. */
function reindent(lines: string[], options: RefactorCleanOptions): string[] {
    const { tabSize, insertSpaces } = options.indent;
    const width = (indent: string) => [...indent].reduce((sum, char) => char === '\t' ? sum + tabSize - (sum % tabSize) : sum + 1, 0);
    const render = (columns: number) => insertSpaces ? ' '.repeat(columns) : '\t'.repeat(Math.floor(columns / tabSize)) + ' '.repeat(columns % tabSize);
    const parsed = lines.map(line => {
        const indent = /^[ \t]*/.exec(line)![0];
        return { columns: width(indent), code: line.slice(indent.length) };
    });
    if (options.startsMidLine) {
        // The first line continues code already on the line; the others keep their place, in the file's style.
        return parsed.map((line, index) => index === 0 ? line.code : line.code ? render(line.columns) + line.code : '');
    }
    const coded = parsed.filter(line => line.code);
    if (coded.length === 0) {
        return [];
    }
    const least = Math.min(...coded.map(line => line.columns));
    const shift = width(options.baseIndent) - least;
    return parsed.map(line => line.code ? render(Math.max(0, line.columns + shift)) + line.code : '');
}
