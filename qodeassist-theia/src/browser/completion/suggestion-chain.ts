/** One suggestion as the user sees it, across the re-shows of typing through it, the cache and Esc. */
export interface SuggestionChain {
    language: string;
    agent: string;
    /** Where the first accepted part begins (an offset in the document), once something was accepted. */
    acceptedFrom?: number;
}

/** A suggestion that was shown: in which document, at which offset, with which text. */
export interface ShownSuggestion {
    uri: string;
    offset: number;
    text: string;
    chain: SuggestionChain;
}

/**
 * Whether a suggestion shown at `next` is the one shown before, further along: same document, not
 * before it, the document between the two offsets is what the user typed of it (`typedBetween`),
 * and the new text is the rest of the old one (or the old rest is a start of the new text, when a
 * fresh answer says more). Such a re-show is not a new suggestion in the figures.
 */
export function continuesShown(previous: ShownSuggestion | undefined, next: { uri: string; offset: number; text: string }, typedBetween: string | undefined): boolean {
    if (!previous || previous.uri !== next.uri || next.offset < previous.offset || typedBetween === undefined) {
        return false;
    }
    if (typedBetween.length !== next.offset - previous.offset || !previous.text.startsWith(typedBetween)) {
        return false;
    }
    const rest = previous.text.slice(typedBetween.length);
    return rest !== '' && next.text !== '' && (rest.startsWith(next.text) || next.text.startsWith(rest));
}
