/** What the user is typing at the caret that the composer offers completions for. */
export interface SuggestionTrigger {
    kind: 'mention' | 'skill';
    /** The text after `@` or `/` up to the caret. */
    query: string;
    /** Where the trigger character is; the choice replaces from here to the caret. */
    start: number;
}

/**
 * `@query` anywhere after a space or at the start mentions a file; `/query` at the very
 * start of the message invokes a skill. Anything else (an e-mail address, a path in the
 * middle of a sentence) triggers nothing.
 */
export function triggerAt(text: string, caret: number): SuggestionTrigger | undefined {
    const before = text.slice(0, caret);
    // A skill is lower-case; an MCP prompt is `/mcp.<server>.<prompt>`, whose names may hold "." "_" and capitals.
    const skill = /^\/([A-Za-z0-9._-]*)$/.exec(before);
    if (skill) {
        return { kind: 'skill', query: skill[1], start: 0 };
    }
    const mention = /(^|\s)@([^\s@]*)$/.exec(before);
    if (mention) {
        return { kind: 'mention', query: mention[2], start: before.length - mention[2].length - 1 };
    }
    return undefined;
}

/** The text with the trigger replaced by the choice and a space, and where the caret goes. */
export function applySuggestion(text: string, caret: number, trigger: SuggestionTrigger, choice: string): { text: string; caret: number } {
    const marker = trigger.kind === 'mention' ? '@' : '/';
    const inserted = `${marker}${choice} `;
    const after = text.slice(caret).replace(/^\S*/, '');
    return { text: text.slice(0, trigger.start) + inserted + after.replace(/^ /, ''), caret: trigger.start + inserted.length };
}

/** The files a message mentions (`@path`, trailing punctuation not included), in order, each once. */
export function mentionsIn(text: string): string[] {
    const found = new Set<string>();
    for (const match of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
        found.add(match[1].replace(/[),.;:!?]+$/, ''));
    }
    return [...found];
}

/** Open editors first (their order kept), then workspace matches not already listed. */
export function rankMentions(query: string, openEditors: readonly string[], workspaceMatches: readonly string[], limit = 12): string[] {
    const needle = query.toLowerCase();
    const open = openEditors.filter(path => path.toLowerCase().includes(needle));
    return [...new Set([...open, ...workspaceMatches])].slice(0, limit);
}
