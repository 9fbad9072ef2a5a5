import type { CompletionAnswer } from '../../common/completion-protocol';

/** Identifiers near the cursor whose definitions are asked for, the nearest first. */
const MAX_IDENTIFIERS = 4;
const KEYWORDS = new Set(['const', 'let', 'var', 'function', 'return', 'if', 'else', 'for', 'while', 'new', 'this', 'class', 'import', 'export', 'from',
    'await', 'async', 'def', 'self', 'None', 'True', 'False', 'true', 'false', 'null', 'undefined', 'in', 'of', 'not', 'and', 'or', 'is', 'typeof', 'void']);

/**
 * The identifiers on the cursor's line and the one above, the nearest to the cursor first (1-based
 * positions of their first character): what the definition providers are asked about. The word
 * being typed at the cursor is left out: it names nothing yet.
 */
export function identifiersNear(document: { getLineContent(lineNumber: number): string }, position: { lineNumber: number; column: number }): Array<{ name: string; lineNumber: number; column: number }> {
    const found: Array<{ name: string; lineNumber: number; column: number; distance: number }> = [];
    for (const lineNumber of [position.lineNumber, position.lineNumber - 1].filter(line => line >= 1)) {
        for (const match of document.getLineContent(lineNumber).matchAll(/[A-Za-z_$][\w$]*/g)) {
            const column = match.index! + 1;
            const typing = lineNumber === position.lineNumber && column + match[0].length === position.column;
            if (match[0].length < 2 || KEYWORDS.has(match[0]) || typing || found.some(item => item.name === match[0])) {
                continue;
            }
            const distance = (lineNumber === position.lineNumber ? 0 : 1000) + Math.abs(position.column - column);
            found.push({ name: match[0], lineNumber, column, distance });
        }
    }
    return found.sort((a, b) => a.distance - b.distance).slice(0, MAX_IDENTIFIERS).map(({ name, lineNumber, column }) => ({ name, lineNumber, column }));
}

/** The completion log's note of the context a request sent: `; context: definition src/a.ts (parse) ~40, similar src/b.ts ~120`. */
export function describeContext(answer: Pick<CompletionAnswer, 'context'>): string {
    return answer.context?.length ? `; context: ${answer.context.map(item => `${item.source} ${item.path}${item.symbol ? ` (${item.symbol})` : ''} ~${item.tokens}`).join(', ')}` : '';
}
