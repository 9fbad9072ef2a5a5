/** How much of the file around the cursor goes into a completion request. */
export interface CompletionContextOptions {
    linesBefore: number;
    linesAfter: number;
    /** The whole file instead of the lines around the cursor. */
    wholeFile: boolean;
}

export const DEFAULT_CONTEXT: CompletionContextOptions = { linesBefore: 50, linesAfter: 30, wholeFile: false };

const HEADER = /^\s*(?:\/\*[\s\S]*?\*\/|(?:(?:\/\/|#)[^\n]*\n)+)\s*/;
const LEGAL = /copyright|license|licence|spdx-license-identifier|all rights reserved/i;

/**
 * A comment block at the very top of a file that is a copyright or license notice: the model
 * learns nothing about the code from it, and it costs tokens on every request.
 */
export function stripCopyrightHeader(prefix: string): string {
    const match = HEADER.exec(prefix);
    if (!match || !LEGAL.test(match[0])) {
        return prefix;
    }
    // A shebang or the header alone is not stripped away from under the cursor.
    return match[0].length < prefix.length ? prefix.slice(match[0].length) : prefix;
}

/** The text before and after the cursor offset, limited to whole lines around it, the notice at the top left out. */
export function cursorWindow(text: string, offset: number, options: CompletionContextOptions = DEFAULT_CONTEXT): { prefix: string; suffix: string } {
    const at = Math.max(0, Math.min(offset, text.length));
    let start = 0;
    let end = text.length;
    if (!options.wholeFile) {
        start = at;
        for (let lines = 0; start > 0 && lines <= options.linesBefore; start--) {
            if (text[start - 1] === '\n' && ++lines > options.linesBefore) {
                break;
            }
        }
        end = at;
        for (let lines = 0; end < text.length; end++) {
            if (text[end] === '\n' && ++lines > options.linesAfter) {
                break;
            }
        }
    }
    const prefix = text.slice(start, at);
    return { prefix: start === 0 ? stripCopyrightHeader(prefix) : prefix, suffix: text.slice(at, end) };
}
