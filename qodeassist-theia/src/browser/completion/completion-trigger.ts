/** Whether an automatic trigger should ask for a completion at the cursor, and how eagerly. */
export type TriggerDecision = 'eager' | 'normal' | 'suppress';

const OPENERS = /[{(,=[;:]\s*$/;

/**
 * Reads the text around the cursor like a user would: a fresh indented line or an opening
 * `{ ( , = [ ; :` wants a suggestion now; the middle of an identifier, or right after `.`,
 * `->` or `::` (where the language server's member list serves better) wants none.
 */
export function triggerDecision(lineBefore: string, lineAfter: string): TriggerDecision {
    if (/[\w$]$/.test(lineBefore) && /^[\w$]/.test(lineAfter)) {
        return 'suppress';
    }
    if (/(\.|->|::)[\w$]*$/.test(lineBefore)) {
        return 'suppress';
    }
    if (lineBefore.trim() === '' || OPENERS.test(lineBefore)) {
        return 'eager';
    }
    return 'normal';
}
