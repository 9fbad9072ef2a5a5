/** One replacement the next edit suggests: `length` characters at `offset` become `text`. */
export interface SuggestedEdit {
    offset: number;
    length: number;
    text: string;
}

/** How one edit is drawn: the replaced characters struck through, the new text as ghost text after them. */
export interface EditDecoration {
    start: number;
    end: number;
    /** Ghost text, on one line (line breaks shown as ↵); absent for a pure deletion. */
    added?: string;
}

export function editDecorations(edits: readonly SuggestedEdit[]): EditDecoration[] {
    return edits.map(edit => ({
        start: edit.offset, end: edit.offset + edit.length,
        ...edit.text ? { added: edit.text.replace(/\r?\n/g, ' ↵ ') } : {}
    }));
}

/**
 * What Tab does with a suggestion on screen: with the cursor on a line an edit changes, apply it;
 * elsewhere, jump to the first edit at or below the cursor (or the first one, when all are above).
 */
export function tabAction(cursorLine: number, editLines: readonly number[]): { kind: 'apply' } | { kind: 'jump'; line: number } {
    if (editLines.includes(cursorLine)) {
        return { kind: 'apply' };
    }
    const sorted = [...editLines].sort((a, b) => a - b);
    return { kind: 'jump', line: sorted.find(line => line > cursorLine) ?? sorted[0] };
}

/** The hint shown when the suggestion's first edit is outside the visible lines; undefined when it is in view. */
export function offScreenHint(editLine: number, visible: ReadonlyArray<{ start: number; end: number }>): string | undefined {
    if (visible.some(range => range.start <= editLine && editLine <= range.end)) {
        return undefined;
    }
    const where = visible.length && editLine < visible[0].start ? '↑' : '↓';
    return `${where} Next edit at line ${editLine} — Tab to jump, Esc to dismiss`;
}

/** Whether next edits are asked for in a language: the feature on and the language not turned off for it. */
export function nextEditOn(language: string, settings: { enabled: boolean; disabledLanguages: readonly string[] }): boolean {
    return settings.enabled && !settings.disabledLanguages.includes(language);
}
