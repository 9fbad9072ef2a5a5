import { withoutThinkBlocks } from '../../wire/think-blocks';

/**
 * What a model answered, turned into the text to insert at the cursor: one small stage
 * per habit of some model, in order. Each stage takes the text so far and the code around
 * the cursor, and returns the text it leaves.
 */

export interface CursorContext {
    prefix: string;
    suffix: string;
    language?: string;
}

export interface PostprocessOptions {
    /** Prose a chat model writes around a fenced block: dropped, or kept as line comments. */
    prose: 'drop' | 'comment';
    /** 'auto': one line when the cursor is mid-line, several otherwise. */
    lines: 'auto' | 'single' | 'multi';
}

export const DEFAULT_POSTPROCESS: PostprocessOptions = { prose: 'drop', lines: 'auto' };

type Stage = (text: string, context: CursorContext, options: PostprocessOptions) => string;

const LINE_COMMENTS: Record<string, string> = {
    python: '#', ruby: '#', shellscript: '#', bash: '#', yaml: '#', toml: '#', perl: '#', r: '#', makefile: '#', cmake: '#', dockerfile: '#',
    sql: '--', lua: '--', haskell: '--', lisp: ';', clojure: ';', ini: ';', matlab: '%', latex: '%', erlang: '%'
};

/** The line-comment marker of a language (`//` for the C family and everything unknown). */
export function lineCommentOf(language: string | undefined): string {
    return LINE_COMMENTS[language ?? ''] ?? '//';
}

/** `<think>…</think>` reasoning some models emit first; an unfinished one means no code yet. */
export const stripThinking: Stage = text => withoutThinkBlocks(text);

/** A fenced answer becomes its code; prose around the fence is dropped or kept as comments. */
export const stripFences: Stage = (text, context, options) => {
    const match = /(^|\n)[ \t]*```[^\n]*\n([\s\S]*?)(?:\n[ \t]*```[ \t]*(?=\n|$)|$)/.exec(text);
    if (!match) {
        return text;
    }
    const code = match[2];
    if (options.prose === 'drop') {
        return code;
    }
    const comment = lineCommentOf(context.language);
    const prose = (part: string) => part.split('\n').map(line => line.trim()).filter(Boolean).map(line => `${comment} ${line}`);
    const before = prose(text.slice(0, match.index));
    const after = prose(text.slice(match.index + match[0].length).replace(/^\s*```/, ''));
    return [...before, code, ...after].join('\n');
};

/** The text left of the cursor on its line. */
function lineBefore(prefix: string): string {
    return prefix.slice(prefix.lastIndexOf('\n') + 1);
}

/** The text right of the cursor on its line. */
function lineAfter(suffix: string): string {
    const end = suffix.indexOf('\n');
    return end < 0 ? suffix : suffix.slice(0, end);
}

/** Instruct models often repeat the start of the current line, or its indentation, before the new code. */
export const stripLineEcho: Stage = (text, context) => {
    const before = lineBefore(context.prefix);
    if (before.trim() && text.startsWith(before)) {
        return text.slice(before.length);
    }
    const indentation = /^[ \t]*$/.test(before) ? before : '';
    if (indentation && text.startsWith(indentation)) {
        return text.slice(indentation.length);
    }
    if (/[ \t]$/.test(context.prefix) && /^ /.test(text)) {
        return text.replace(/^ +/, '');
    }
    return text;
};

/** A model that starts by repeating the line above the cursor: that line is dropped. */
export const dropRepeatedLineAbove: Stage = (text, context) => {
    const lines = context.prefix.split('\n');
    const above = lines.length >= 2 ? lines[lines.length - 2].trim() : '';
    // A bare closer (`}`, `end`) may rightly come again: only a line with some code in it counts as repeated.
    if (!/\w.*\W|\W.*\w/.test(above) || lineBefore(context.prefix).trim()) {
        return text;
    }
    const [first, ...rest] = text.split('\n');
    return first.trim() === above ? rest.join('\n') : text;
};

/** Whether only one line can be inserted: asked for, or the cursor is inside a line (text right of it other than closers). */
export function isSingleLine(context: CursorContext, options: PostprocessOptions): boolean {
    const right = lineAfter(context.suffix).trim();
    const midLine = right !== '' && !/^[)\]}>;,'"`]+$/.test(right);
    return options.lines === 'single' || (options.lines === 'auto' && midLine);
}

/** One line when that is all the cursor can take. */
export const limitLines: Stage = (text, context, options) => {
    if (!isSingleLine(context, options)) {
        return text;
    }
    const trimmed = text.replace(/^\n+/, '');
    const end = trimmed.indexOf('\n');
    return end < 0 ? trimmed : trimmed.slice(0, end);
};

/**
 * Stops where the model started writing code that already follows the cursor: the first
 * non-empty line of the suffix reproduced as a whole line, indentation included (so an
 * inner `}` does not match the function's own), or the end of the completion overlapping
 * the start of the suffix.
 */
export const stopAtSuffixOverlap: Stage = (text, context) => {
    const following = context.suffix.split('\n').slice(1).map(line => line.trimEnd()).find(line => line.trim());
    if (following) {
        const lines = text.split('\n');
        const at = lines.findIndex((line, index) => index > 0 && line.trimEnd() === following);
        if (at > 0) {
            text = lines.slice(0, at).join('\n');
        }
    }
    const head = context.suffix.replace(/^[ \t]+/, '');
    for (let size = Math.min(text.length, head.length, 200); size >= 2; size--) {
        if (text.endsWith(head.slice(0, size)) && head.slice(0, size).trim().length >= 2) {
            return text.slice(0, text.length - size).replace(/[ \t]+$/, '');
        }
    }
    return text;
};

/**
 * Closing characters right of the cursor (`) ] } ; ,` and quotes) that the completion also ends
 * with are not typed twice — but only closers the completion does not open itself: `foo(█)`
 * completed with `bar()` keeps its own `)`, with `a, b)` it drops the extra one.
 */
export const mergeClosingTail: Stage = (text, context) => {
    const right = lineAfter(context.suffix).trim();
    if (!right || !/^[)\]};,'"`>]+$/.test(right)) {
        return text;
    }
    const body = text.replace(/[ \t]+$/, '');
    const lastLine = body.length - body.lastIndexOf('\n') - 1;
    const surplus = surplusClosers(body);
    for (let size = Math.min(right.length, lastLine); size >= 1; size--) {
        const tail = body.length - size;
        if (body.endsWith(right.slice(0, size)) && [...right.slice(0, size)].every((char, i) => !CLOSERS.has(char) && !QUOTES.has(char) || surplus.has(tail + i))) {
            return body.slice(0, tail);
        }
    }
    return text;
};

const PAIRS: Readonly<Record<string, string>> = { ')': '(', ']': '[', '}': '{' };
const CLOSERS = new Set(Object.keys(PAIRS));
const QUOTES = new Set(['"', "'", '`']);

/** Positions of the closers and quotes in `text` that close something opened before it (in the prefix). */
function surplusClosers(text: string): Set<number> {
    const surplus = new Set<number>();
    const open: string[] = [];
    for (let i = 0; i < text.length; i++) {
        const char = text[i];
        if (char === '(' || char === '[' || char === '{') {
            open.push(char);
        } else if (CLOSERS.has(char)) {
            if (open.at(-1) === PAIRS[char]) {
                open.pop();
            } else {
                surplus.add(i);
            }
        }
    }
    for (const quote of QUOTES) {
        // An odd count: the last one closes a string the prefix opened.
        const count = [...text].filter(char => char === quote).length;
        if (count % 2 === 1) {
            surplus.add(text.lastIndexOf(quote));
        }
    }
    return surplus;
}

/** No trailing blank lines or spaces at the end of the insertion. */
export const trimEnd: Stage = text => text.replace(/\s+$/, '');

const STAGES: readonly Stage[] = [stripThinking, stripFences, dropRepeatedLineAbove, stripLineEcho, limitLines, stopAtSuffixOverlap, mergeClosingTail, trimEnd];

/** Every stage, in order. */
export function postprocessCompletion(raw: string, context: CursorContext, options: PostprocessOptions = DEFAULT_POSTPROCESS): string {
    return STAGES.reduce((text, stage) => stage(text, context, options), raw);
}
