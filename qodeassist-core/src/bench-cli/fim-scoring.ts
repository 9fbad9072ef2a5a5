import { editDistance } from '../config/config-issue';

/** A completion scored against the text a case expects. */
export interface FimScore {
    /** The part of the completion that is compared: as many lines as the expected text has. */
    scored: string;
    exactMatch: boolean;
    /** 1 − Levenshtein distance ÷ the longer length, over the expected span; 1 when both are empty. */
    editSimilarity: number;
}

/** Trailing whitespace, per line and at the end, is not a difference a user sees. */
export function withoutTrailingWhitespace(text: string): string {
    return text.replace(/[ \t]+(?=\r?\n)/g, '').replace(/\s+$/, '');
}

/**
 * The completion cut to the expected span: a model often keeps writing past the masked lines
 * (and the IDE lets the user accept line by line), so the lines beyond it are not scored.
 */
export function expectedSpanOf(completion: string, expected: string): string {
    const lines = withoutTrailingWhitespace(expected).split('\n').length;
    return completion.split('\n').slice(0, lines).join('\n');
}

export function scoreCompletion(completion: string, expected: string): FimScore {
    const scored = withoutTrailingWhitespace(expectedSpanOf(completion, expected));
    const target = withoutTrailingWhitespace(expected);
    const longer = Math.max(scored.length, target.length);
    return {
        scored,
        exactMatch: scored === target,
        editSimilarity: longer === 0 ? 1 : 1 - editDistance(scored, target) / longer
    };
}
